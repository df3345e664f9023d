"""The language's semantics on the GPU (test/gpu/run_semantics.py): every kernel of test/gpu/semantics.mega against
its NumPy reference on fresh random inputs, outputs poisoned twice. Needs MEGAC_BUNDLES with semantics.mgb and a
CUDA device; skipped otherwise (CI has neither). That every kernel of the file has a check is tested on CPU
(test_semantics_reference.py)."""
import os
import sys

import pytest

from conftest import gpu_script

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "test", "gpu"))
import run_semantics  # noqa: E402  (NumPy only at import; the GPU parts import torch when they run)


@pytest.fixture(scope="module")
def semantics():
    runner = gpu_script("run_semantics", bundle="semantics.mgb")
    return runner.run(os.path.join(os.environ["MEGAC_BUNDLES"], "semantics.mgb"))


@pytest.mark.parametrize("kernel", list(run_semantics.CHECKS))
def test_kernel_matches_its_reference(semantics, kernel):
    results, _ = semantics
    assert results[kernel]["of"] > 0, results[kernel]
    assert results[kernel]["wrong"] == 0, results[kernel]
