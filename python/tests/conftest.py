import importlib
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


def gpu_script(name, bundle=None):
    """test/gpu/<name>.py as a module, for the GPU tests that run it; skips the test unless MEGAC_BUNDLES names
    a directory of bundles (holding `bundle`, when given), torch is installed and a CUDA device is visible
    (CI has none of them)."""
    bundles = os.environ.get("MEGAC_BUNDLES", "")
    if not bundles:
        pytest.skip("set MEGAC_BUNDLES=<dir of .mgb bundles> to run the kernels")
    if bundle and not os.path.exists(os.path.join(bundles, bundle)):
        pytest.skip(f"MEGAC_BUNDLES has no {bundle}")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    sys.path.insert(0, os.path.join(_ROOT, "test", "gpu"))
    return importlib.import_module(name)
