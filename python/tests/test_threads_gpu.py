"""One loaded module launched from many Python threads at once, each on a torch stream of its own (docs/runtime.md,
Threads). Needs MEGAC_BUNDLES with vector_add.mgb and a CUDA device; skipped otherwise (CI has neither)."""
import os
import threading

import pytest

import megac

THREADS, LAUNCHES, N = 8, 50, 1 << 18


def test_threads_share_a_module():
    bundles = os.environ.get("MEGAC_BUNDLES", "")
    if not os.path.exists(os.path.join(bundles, "vector_add.mgb")):
        pytest.skip("set MEGAC_BUNDLES=<dir of .mgb bundles> holding vector_add.mgb")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    mod = megac.load(os.path.join(bundles, "vector_add.mgb"))
    start = threading.Barrier(THREADS)
    failures = []

    def work(t):
        try:
            stream = torch.cuda.Stream()
            with torch.cuda.stream(stream):
                x = torch.full((N,), float(t), device="cuda")
                ys = [torch.full((N,), float(1000 * i), device="cuda") for i in range(LAUNCHES)]
                outs = [torch.empty(N, device="cuda") for _ in range(LAUNCHES)]
                start.wait(timeout=120)
                for y, out in zip(ys, outs):
                    mod.vector_add(x, y, out)  # on the current stream: this thread's
            stream.synchronize()
            for i, out in enumerate(outs):
                if not torch.equal(out, torch.full_like(out, float(t + 1000 * i))):
                    failures.append(f"thread {t}, launch {i}: wrong values")
        except Exception as e:  # noqa: BLE001 (reported below, with the thread)
            start.abort()  # the others stop waiting for this one
            failures.append(f"thread {t}: {e!r}")

    threads = [threading.Thread(target=work, args=(t,)) for t in range(THREADS)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not failures, failures
