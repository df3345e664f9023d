"""One loaded module on two GPUs (docs/runtime.md: a module is loaded per CUDA context): a launch runs on torch's
current device, in that device's context, and a tensor on another device is refused. Needs MEGAC_BUNDLES with
vector_add.mgb and two CUDA devices; skipped otherwise (CI has none)."""
import os
import threading

import pytest

import megac

N = (1 << 20) + 3  # not a multiple of 4: vector_add's default variant, its tail masked


def _two_devices():
    bundles = os.environ.get("MEGAC_BUNDLES", "")
    if not os.path.exists(os.path.join(bundles, "vector_add.mgb")):
        pytest.skip("set MEGAC_BUNDLES=<dir of .mgb bundles> holding vector_add.mgb")
    torch = pytest.importorskip("torch")
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two CUDA devices")
    return torch, megac.load(os.path.join(bundles, "vector_add.mgb"))


def _add_on(torch, mod, device):
    with torch.cuda.device(device):
        x = torch.randn(N, device=f"cuda:{device}")
        y = torch.randn_like(x)
        out = torch.full_like(x, float("nan"))
        mod.vector_add(x, y, out)
        torch.cuda.synchronize(device)
        return torch.equal(out, x + y)


def test_one_module_launches_on_each_device():
    torch, mod = _two_devices()
    # Device 1 first: the module was loaded with device 0 current, so this launch loads it into device 1's context.
    assert _add_on(torch, mod, 1)
    assert _add_on(torch, mod, 0)
    assert _add_on(torch, mod, 1)


def test_a_tensor_on_another_device_is_refused():
    torch, mod = _two_devices()
    with torch.cuda.device(0):
        x = torch.randn(N, device="cuda:1")
        y = torch.randn(N, device="cuda:0")
        out = torch.empty_like(y)
        with pytest.raises(TypeError, match=r"parameter 'x': tensor is on cuda:1, but the launch runs on cuda:0"):
            mod.vector_add(x, y, out)


def test_threads_on_two_devices_at_once():
    torch, mod = _two_devices()
    results = []

    def work(device):
        try:
            results.append((device, all(_add_on(torch, mod, device) for _ in range(20))))
        except Exception as e:  # noqa: BLE001 (reported below)
            results.append((device, repr(e)))

    threads = [threading.Thread(target=work, args=(d,)) for d in (0, 1, 0, 1)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(results) == [(0, True), (0, True), (1, True), (1, True)], results
