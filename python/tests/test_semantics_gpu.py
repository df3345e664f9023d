"""The language's semantics on the GPU (test/gpu/run_semantics.py): every kernel of test/gpu/semantics.mega against
its NumPy reference on fresh random inputs, outputs poisoned twice. Needs MEGAC_BUNDLES with semantics.mgb and a
CUDA device; skipped otherwise (CI has neither)."""
import os

import pytest

from conftest import gpu_script

KERNELS = ("sem_int", "sem_to_int", "sem_math", "sem_reduce", "sem_shape", "sem_loops", "sem_atomic", "sem_narrow",
           "sem_dot", "sem_layout", "sem_grid", "sem_bits", "sem_quant",
           "sem_tile_division", "sem_value_major", "sem_fast_division", "sem_spill", "sem_tree", "sem_fast_math",
           "sem_small_ints")


@pytest.fixture(scope="module")
def semantics():
    run_semantics = gpu_script("run_semantics", bundle="semantics.mgb")
    return run_semantics.run(os.path.join(os.environ["MEGAC_BUNDLES"], "semantics.mgb"))


@pytest.mark.parametrize("kernel", KERNELS)
def test_kernel_matches_its_reference(semantics, kernel):
    results, _ = semantics
    assert results[kernel]["of"] > 0, results[kernel]
    assert results[kernel]["wrong"] == 0, results[kernel]


def test_every_kernel_is_checked(semantics):
    results, _ = semantics
    assert sorted(k for k in results if k != "seed") == sorted(KERNELS)
