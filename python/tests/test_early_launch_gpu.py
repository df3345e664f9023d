"""Early launch on the GPU (test/gpu/run_early_launch.py): a kernel launched early starts while the kernel ahead
of it still runs, and its wait_prior_kernel() holds it until that kernel's writes are visible; launched plainly it
starts after. On a stream and in a CUDA graph. Needs MEGAC_BUNDLES with early_launch.mgb (compiled from
test/gpu/early_launch.mega) and a CUDA device; skipped otherwise (CI has neither)."""
import os
import sys

import pytest

ROOT = os.environ.get("MEGAC_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUNDLE = os.path.join(os.environ.get("MEGAC_BUNDLES", ""), "early_launch.mgb")


def test_early_launch_overlaps_and_waits():
    if not os.environ.get("MEGAC_BUNDLES") or not os.path.exists(BUNDLE):
        pytest.skip("set MEGAC_BUNDLES to a directory with early_launch.mgb")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    sys.path.insert(0, os.path.join(ROOT, "test", "gpu"))
    import run_early_launch
    results, failures = run_early_launch.run(BUNDLE)
    assert not failures, failures
    assert set(results) == {f"{how}, early launch {on}" for how in ("stream", "graph") for on in ("on", "off")}
