"""The correctness suite under pytest (GPU machine): every kernel against its reference at every listed shape and
every benchmarked shape not among them (so that every timed shape runs checked code), fresh random inputs,
outputs poisoned (two patterns), the reference's checks.

    MEGAC_BUNDLES=out/bundles MEGAC_PYTHON_BUILD=build-gpu/python python3 -m pytest python/tests/test_kernels_gpu.py

(conftest.py puts MEGAC_PYTHON_BUILD, where the runtime extension is built, first on the path; without it
the source tree's package is imported, which has no extension to launch with.)

One test per (kernel, shape), by the same code as test/gpu/run_gpu_tests.py (which also writes the JSON that
results/ keeps). Skipped without MEGAC_BUNDLES or a CUDA device (CI has neither).
"""
import os
import time

import pytest
from conftest import gpu_script

BUNDLES = os.environ.get("MEGAC_BUNDLES", "")


def _cases():
    """(kernel, shape index, shape, launched early): kernels compiled for early launch run both ways, as a
    variant may be chosen by the launch mode."""
    if not BUNDLES:
        return []
    from megac import bundles, reference
    early = bundles.early_kernels(bundles.index(BUNDLES)[0])
    return [(name, i, shape, mode) for name in reference.NAMES
            for mode in ((True, False) if early & set(reference.get(name).launches) else (True,))
            for i, shape in enumerate(reference.get(name).every_shape())]


def _id(case):
    name, _, shape, early = case
    return name + ("" if early else "-plain") + "-" + "-".join(f"{k}{v}" for k, v in shape.items())


@pytest.fixture(scope="module")
def gpu():
    run_gpu_tests = gpu_script("run_gpu_tests")
    from megac import bundles
    found, _ = bundles.index(BUNDLES)
    return run_gpu_tests, found, {}, int(time.time()) % 100000


def test_bundles_are_given():
    if not BUNDLES:
        pytest.skip("MEGAC_BUNDLES not set: the GPU correctness suite does not run here")


CASES = _cases()


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_kernel_matches_reference(gpu, case):
    import torch
    from megac import bundles, reference, testing
    run_gpu_tests, found, modules, seed = gpu
    name, i, shape, early = case
    ref_kernel = reference.get(name)
    if ref_kernel.launches[0] not in found:
        pytest.fail(f"no bundle in {BUNDLES} holds kernel '{ref_kernel.launches[0]}'")
    run = bundles.sequence(ref_kernel, found, modules, early_launch=early)
    row = run_gpu_tests.run_shape(torch, testing, run, ref_kernel, shape, seed * 1000 + i)
    details = "; ".join(o["detail"] for o in row["outputs"].values() if not o["ok"])
    assert row["pass"], f"{name} {shape}: {details} unstable={row['unstable_outputs']}"
