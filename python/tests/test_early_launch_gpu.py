"""Early launch on the GPU (test/gpu/run_early_launch.py): a kernel launched early starts while the kernel ahead
of it still runs, and its wait_prior_kernel() holds it until that kernel's writes are visible; launched plainly it
starts after. On a stream and in a CUDA graph. Needs MEGAC_BUNDLES with early_launch.mgb (compiled from
test/gpu/early_launch.mega) and a CUDA device; skipped otherwise (CI has neither)."""
import os

from conftest import gpu_script


def test_early_launch_overlaps_and_waits():
    run_early_launch = gpu_script("run_early_launch", bundle="early_launch.mgb")
    results, failures = run_early_launch.run(os.path.join(os.environ["MEGAC_BUNDLES"], "early_launch.mgb"))
    assert not failures, failures
    assert set(results) == {f"{how}, early launch {on}" for how in ("stream", "graph") for on in ("on", "off")}
