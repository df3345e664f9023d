"""In-place updates through replicated layouts on the GPU (test/gpu/run_replicas.py): only one thread stores each
element, so a kernel that adds to what it reads adds once. Needs MEGAC_BUNDLES with replicas.mgb (compiled from
test/gpu/replicas.mega) and a CUDA device; skipped otherwise (CI has neither)."""
import os

from conftest import gpu_script


def test_replicated_layouts_store_once():
    run_replicas = gpu_script("run_replicas", bundle="replicas.mgb")
    results, failures = run_replicas.run(os.path.join(os.environ["MEGAC_BUNDLES"], "replicas.mgb"))
    assert not failures, failures
    assert set(results) == {"replicas_small", "replicas_rows", "replicas_scalar", "replicas_hop"}
