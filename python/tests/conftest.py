import importlib.util
import os
import sys

import pytest

# The pure-Python parts are tested from the source tree. To test the extension too, point
# MEGAC_PYTHON_BUILD at <build>/python (where _runtime is built next to links to these sources).
_build = os.environ.get("MEGAC_PYTHON_BUILD")
sys.path.insert(0, _build if _build else os.path.join(os.path.dirname(__file__), ".."))

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load_bench_script(name):
    """bench/<name>.py as a module (the bench scripts are files, not a package)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(_ROOT, "bench", name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def bench_script():
    """load_bench_script, for tests of the bench scripts' logic."""
    return load_bench_script
