"""Streaming stores on the GPU (test/gpu/run_streaming.py): `store(..., streaming = 1)` writes the same bytes as a
plain store at every storage width, masked and not. Needs MEGAC_BUNDLES with streaming.mgb (compiled from
test/gpu/streaming.mega) and a CUDA device; skipped otherwise (CI has neither)."""
import os

from conftest import gpu_script


def test_streaming_stores_write_the_values():
    run_streaming = gpu_script("run_streaming", bundle="streaming.mgb")
    results, failures = run_streaming.run(os.path.join(os.environ["MEGAC_BUNDLES"], "streaming.mgb"))
    assert not failures, failures
    assert len(results) == 10
