"""Compile, load, run and compare on a GPU; skipped without torch, CUDA or the extensions."""
import os

import pytest

import megac

ROOT = os.environ.get("MEGAC_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VECTOR_ADD = os.path.join(ROOT, "kernels-dsl", "vector_add.mega")


def _cuda():
    pytest.importorskip("megac._compiler", reason="megac._compiler not built")
    rt = pytest.importorskip("megac._runtime", reason="megac._runtime not built")
    torch = pytest.importorskip("torch", reason="torch not installed")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    if not rt.HAS_LAUNCH:
        pytest.skip("megac._runtime built without launch support")
    return torch


@pytest.mark.parametrize("n", [1, 1000, 4097, 1 << 20])
def test_vector_add_compiled_from_python(n):
    torch = _cuda()
    from megac import testing
    mod = megac.compile(VECTOR_ADD).load()
    x = torch.randn(n, device="cuda")
    y = torch.randn_like(x)
    out = testing.poison(torch.empty_like(x))
    mod.vector_add(x, y, out)
    torch.cuda.synchronize()
    testing.assert_bytes_equal(out, x + y)


def test_slot_runs_the_megac_kernel_on_gpu():
    torch = _cuda()
    from megac import slots
    mod = megac.compile(VECTOR_ADD).load()
    reg = slots.Registry()
    reg.add("vector_add", kernel=lambda x, y, out: mod.vector_add(x, y, out),
            stock=lambda x, y, out: torch.add(x, y, out=out), max_batch=1 << 16,
            batch_of=lambda x, y, out: x.numel())
    plan = slots.build_plan(reg, ["vector_add"], log=lambda line: None)
    for n, path in ((1 << 16, "kernel"), ((1 << 16) + 1, "stock")):
        x = torch.randn(n, device="cuda")
        out = torch.empty_like(x)
        assert plan.dispatch("vector_add", x=x, y=x, out=out)[0] == path
        torch.cuda.synchronize()
        assert torch.equal(out, x + x)
