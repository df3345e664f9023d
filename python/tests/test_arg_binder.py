"""A launch's fast path (megac._runtime.ArgBinder, used by Kernel.__call__): it binds what the Python path
binds, and hands every other case to the Python path (which checks and words the errors) instead of binding
it differently. No torch here: stand-in CUDA tensors with the attributes a launch reads."""
import copy

import pytest

from megac import bundle, dtypes

from test_bundle import MANIFEST, PTX

def _mixed():
    """test_bundle's manifest with one kernel of a byte-typed tensor and a float scalar."""
    m = copy.deepcopy(MANIFEST)
    k = m["kernels"][0]
    m["module"] = k["name"] = k["variants"][0]["symbol"] = "mixed"
    k["params"] = [
        {"name": "x", "kind": "tensor", "dtype": "f32", "align": 16, "shape": ["n"]},
        {"name": "q", "kind": "tensor", "dtype": "f8e4m3", "align": 16, "shape": ["n"]},
        {"name": "n", "kind": "scalar", "dtype": "i32", "multiple_of": 1},
        {"name": "eps", "kind": "scalar", "dtype": "f32"}]
    return m


MIXED = _mixed()


class FakeDtype:
    """Hashable, and printed as torch prints its dtypes (dtypes.manifest_name reads str())."""

    def __init__(self, name):
        self.name = name

    def __str__(self):
        return self.name


F32, BF16, U8, F8 = (FakeDtype(n) for n in ("torch.float32", "torch.bfloat16", "torch.uint8",
                                            "torch.float8_e4m3fn"))


class FakeTensor:
    def __init__(self, n, dtype=F32, device=0, ptr=0x10000, is_cuda=True):
        self.is_cuda, self.dtype, self.shape, self._device, self._ptr = is_cuda, dtype, (n,), device, ptr

    @property
    def device(self):
        return f"cuda:{self._device}"

    def data_ptr(self):
        return self._ptr

    def stride(self):
        return (1,)

    def get_device(self):
        return self._device


@pytest.fixture
def kernels(monkeypatch):
    rt = pytest.importorskip("megac._runtime", reason="extension not built (set MEGAC_PYTHON_BUILD)")
    import megac
    import megac.module as module
    for d in (F32, BF16, U8, F8):  # the names a first launch would have cached
        dtypes.manifest_name(d)
    monkeypatch.setattr(module, "_current_device", lambda: 0)
    add = megac.load_bytes(bundle.write_bytes(MANIFEST, [PTX]), "t.mgb").vector_add
    mixed = megac.load_bytes(bundle.write_bytes(MIXED, [PTX]), "m.mgb").mixed
    return rt, add, mixed


def fast(kernel, *args, **kwargs):
    return kernel._binder.bind(args, kwargs, lambda: 0)


def plan(kernel, native_args):
    if not isinstance(native_args, list):
        native_args = native_args.to_list()  # ArgBinder's BoundArgs
    return kernel._module._signature(kernel.name).prepare(native_args, 132, None, False)


def test_binds_what_the_python_path_binds(kernels):
    _, add, mixed = kernels
    x, y, out = FakeTensor(5000), FakeTensor(5000, ptr=0x20000), FakeTensor(5000, ptr=0x30000)
    for args, kwargs in [((x, y, out), {}), ((x,), {"out": out, "y": y}), ((x, y, out, 5000), {}),
                         ((), {"x": x, "y": y, "out": out, "n": 5000})]:
        bound = fast(add, *args, **kwargs)
        assert bound is not None
        assert [(a.kind, a.dtype) for a in bound] == [(a.kind, a.dtype) for a in add.bind(*args, **kwargs)]
        assert plan(add, bound) == plan(add, add.bind(*args, **kwargs)) and plan(add, bound)["grid"] == (5, 1, 1)
    # a uint8 tensor stands for a byte-typed parameter, bound under the parameter's dtype; a float parameter
    # takes an int; the shapes bound are the tensors' (the runtime finds a mismatch in them alike)
    q = FakeTensor(5000, U8)
    bound = fast(mixed, x, q, eps=1)
    assert [(a.kind, a.dtype) for a in bound] == [("tensor", "f32"), ("tensor", "f8e4m3"), ("infer", "i64"),
                                                  ("scalar", "f32")]
    assert plan(mixed, bound) == plan(mixed, mixed.bind(x, q, eps=1))
    # a dtype megac names after the kernel was loaded (the first launch with it, through the Python path) is
    # bound by the fast path from then on: the binder reads megac.dtypes' own table, not a copy
    later = FakeDtype("torch.float32")
    assert fast(add, FakeTensor(5000, later), y, out) is None
    dtypes.manifest_name(later)
    assert fast(add, FakeTensor(5000, later), y, out) is not None
    short = FakeTensor(4999, ptr=0x20000)
    for bind in (lambda: fast(add, x, short, out), lambda: add.bind(x, short, out)):
        with pytest.raises(kernels[0].ArgError, match="'y'"):
            plan(add, bind())


@pytest.mark.parametrize("case", [
    "raw tensor", "not cuda", "other device", "dtype not cached", "dtype not accepted", "unknown name",
    "given twice", "too many", "missing tensor", "tensor for scalar", "bool scalar", "float for int",
    "int past int64", "string scalar",
])
def test_everything_else_goes_to_the_python_path(kernels, case):
    import megac
    _, add, mixed = kernels
    x = FakeTensor(64)
    args, kwargs, kernel = {
        "raw tensor": ((megac.RawTensor(0x10000, "f32", (64,)), x, x), {}, add),
        "not cuda": ((x, FakeTensor(64, is_cuda=False), x), {}, add),
        "other device": ((x, x, FakeTensor(64, device=1)), {}, add),
        "dtype not cached": ((x, FakeTensor(64, FakeDtype("torch.never_seen")), x), {}, add),
        "dtype not accepted": ((x, FakeTensor(64, BF16), x), {}, add),
        "unknown name": ((x, x, x), {"z": 1}, add),
        "given twice": ((x, x, x), {"x": x}, add),
        "too many": ((x, x, x, 64, 1), {}, add),
        "missing tensor": ((x, x), {}, add),
        "tensor for scalar": ((x, x, x, x), {}, add),
        "bool scalar": ((x, x, x, True), {}, add),
        "float for int": ((x, x, x, 64.0), {}, add),
        "int past int64": ((x, x, x, 1 << 70), {}, add),
        "string scalar": ((x, FakeTensor(64, F8)), {"eps": "1e-6"}, mixed),
    }[case]
    assert fast(kernel, *args, **kwargs) is None


def test_a_launch_takes_the_fast_path_and_the_python_path_words_refusals(kernels, monkeypatch):
    _, add, _ = kernels
    launched = []

    class Native:
        def launch(self, name, args, stream, grid):
            launched.append((name, [a.kind for a in args], stream, grid))
    monkeypatch.setattr(add._module, "_native_module", lambda: Native())
    monkeypatch.setattr(add, "_bind", lambda *a: pytest.fail("the Python path bound a plain launch"))
    x = FakeTensor(64)
    add(x, x, out=x, stream=7)
    assert launched == [("vector_add", ["tensor", "tensor", "tensor", "infer"], 7, None)]
    monkeypatch.undo()
    import megac.module as module
    monkeypatch.setattr(module, "_current_device", lambda: 0)
    monkeypatch.setattr(add._module, "_native_module", lambda: pytest.fail("reached the driver"))
    with pytest.raises(TypeError, match="expects f32, got bf16"):
        add(x, FakeTensor(64, BF16), x, stream=7)
