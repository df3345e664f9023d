"""Bundle reader/writer (pure Python) and, when built, the extension's view of the same bytes."""
import json

import pytest

from megac import bundle

MANIFEST = {
    "format_version": 1, "compiler_version": "0.1.0", "module": "vector_add", "source_hash": "00ff",
    "kernels": [{
        "name": "vector_add", "num_warps": 4, "shared_bytes": 0, "grid": ["cdiv(n, 1024)", "1", "1"],
        "params": [
            {"name": "x", "kind": "tensor", "dtype": "f32", "align": 16, "shape": ["n"]},
            {"name": "y", "kind": "tensor", "dtype": "f32", "align": 16, "shape": ["n"]},
            {"name": "out", "kind": "tensor", "dtype": "f32", "align": 16, "shape": ["n"]},
            {"name": "n", "kind": "scalar", "dtype": "i32", "multiple_of": 1}],
        "variants": [{"name": "default", "symbol": "vector_add", "maxnreg": 0, "min_ctas_per_sm": 0, "when": ""}],
    }],
    "images": [{"target": "sm_90a", "kind": "ptx", "section": 1}],
}
PTX = b"// fake ptx\n.version 8.0\n"


def test_roundtrip():
    data = bundle.write_bytes(MANIFEST, [PTX])
    b = bundle.read_bytes(data)
    assert b.manifest == MANIFEST
    assert b.ptx() == PTX.decode()
    assert b.kernel("vector_add")["grid"][0] == "cdiv(n, 1024)"


@pytest.mark.parametrize("corrupt, message", [
    (lambda d: b"NOTMEGAC" + d[8:], "bad magic"),
    (lambda d: d[:8] + b"\x02" + d[9:], "version 2"),
    (lambda d: d[:-1] + bytes([d[-1] ^ 1]), "CRC mismatch"),
    (lambda d: d[:-3], "outside the file"),
])
def test_refusals(corrupt, message):
    data = bundle.write_bytes(MANIFEST, [PTX])
    with pytest.raises(bundle.BundleError, match=message):
        bundle.read_bytes(corrupt(data), "k.mgb")


def _flip(data, i):
    return data[:i] + bytes([data[i] ^ 1]) + data[i + 1:]


@pytest.mark.parametrize("data, message", [
    (lambda: bundle.write_bytes(MANIFEST, [PTX])[:20], r"truncated section table \(2 sections\)"),
    (lambda: _flip(bundle.write_bytes(MANIFEST, [PTX]), 16 + 12), "header CRC mismatch"),  # a section's offset
    (lambda: bundle.write_sections([(bundle.KIND_BLOB, PTX), (bundle.KIND_MANIFEST, b"{}")]),
     "section 0 is not the manifest"),
    (lambda: bundle.write_sections([]), "section 0 is not the manifest"),
    (lambda: bundle.write_sections([(bundle.KIND_MANIFEST, b'{"module": ')]), "manifest is not valid JSON"),
    (lambda: bundle.write_sections([(bundle.KIND_MANIFEST, b"\xff\xfe")]), "manifest is not valid JSON"),
])
def test_refusals_of_the_layout(data, message):
    with pytest.raises(bundle.BundleError, match="k.mgb: " + message):
        bundle.read_bytes(data(), "k.mgb")


def test_missing_kernel_and_image_are_named():
    b = bundle.read_bytes(bundle.write_bytes(MANIFEST, [PTX]))
    with pytest.raises(KeyError, match="bundle module 'vector_add' has no kernel 'vector_mul'"):
        b.kernel("vector_mul")
    with pytest.raises(KeyError, match="no cubin image for sm_90a"):
        b.image("sm_90a", "cubin")
    with pytest.raises(KeyError, match="no ptx image for sm_103a"):
        b.ptx("sm_103a")


def _rt():
    return pytest.importorskip("megac._runtime", reason="extension not built (set MEGAC_PYTHON_BUILD)")


def test_extension_reads_python_bundle():
    rt = _rt()
    b = rt.Bundle.from_bytes(bundle.write_bytes(MANIFEST, [PTX]), "t.mgb")
    assert b.module == "vector_add" and b.kernels == ["vector_add"]
    assert b.image("sm_90a", "ptx") == PTX
    assert [p["name"] for p in b.params("vector_add")] == ["x", "y", "out", "n"]
    # and the Python reader reads what the runtime writes
    again = bundle.read_bytes(b.to_bytes())
    assert again.manifest["kernels"][0]["params"][3]["dtype"] == "i32"
    assert json.loads(b.manifest_json)["module"] == "vector_add"


def test_extension_refuses_corrupt_bundle():
    rt = _rt()
    data = bundle.write_bytes(MANIFEST, [PTX])
    with pytest.raises(rt.BundleError, match="t.mgb"):
        rt.Bundle.from_bytes(data[:-1] + bytes([data[-1] ^ 1]), "t.mgb")


def test_module_prepare_without_gpu():
    _rt()
    import megac
    mod = megac.load_bytes(bundle.write_bytes(MANIFEST, [PTX]), "t.mgb")
    assert mod.kernels == ["vector_add"]
    n = 5000
    x, y, out = (megac.RawTensor(0x10000 * (i + 1), "f32", (n,)) for i in range(3))
    cfg = mod.vector_add.prepare(x, y, out)  # n inferred from x
    assert cfg["grid"] == (5, 1, 1) and cfg["block"][0] == 128
    assert mod.vector_add.prepare(x, y, out, n=n, grid=(7,))["grid"] == (7, 1, 1)
    # a grid can be a function of the arguments by name
    assert mod.vector_add.prepare(x, y, out, n=n, grid=lambda a: (a["n"] // 64,))["grid"] == (n // 64, 1, 1)


def test_module_argument_errors():
    rt = _rt()
    import megac
    mod = megac.load_bytes(bundle.write_bytes(MANIFEST, [PTX]), "t.mgb")
    x = megac.RawTensor(0x10000, "f32", (64,))
    with pytest.raises(TypeError, match="no parameter 'z'"):
        mod.vector_add.bind(x, x, x, z=1)
    with pytest.raises(TypeError, match="expects f32, got bf16"):
        mod.vector_add.bind(x, megac.RawTensor(0x20000, "bf16", (64,)), x)
    with pytest.raises(rt.ArgError, match="'y'"):  # shape mismatch, found by the runtime
        mod.vector_add.prepare(x, megac.RawTensor(0x20000, "f32", (63,)), x)
    with pytest.raises(AttributeError, match="no kernel 'nope'"):
        mod.nope


class _FakeDevice:
    def __init__(self, index):
        self.index = index

    def __str__(self):
        return f"cuda:{self.index}"


class _FakeCudaTensor:
    """Enough of a torch CUDA tensor for the Python side's checks (no torch here)."""

    def __init__(self, device_index, n=64):
        self.is_cuda = True
        self.device = _FakeDevice(device_index)
        self.dtype = "torch.float32"
        self.shape = (n,)

    def data_ptr(self):
        return 0x10000

    def stride(self):
        return (1,)

    def get_device(self):
        return self.device.index


def test_python_mistakes_get_megac_errors():
    """What the Python side is handed wrong is refused in megac's words, not as an AttributeError or pybind11's
    cast error."""
    rt = _rt()
    import megac
    np = pytest.importorskip("numpy")
    mod = megac.load_bytes(bundle.write_bytes(MANIFEST, [PTX]), "t.mgb")
    x = megac.RawTensor(0x10000, "f32", (64,))
    with pytest.raises(TypeError, match=r"parameter 'x' is a tensor \(a torch tensor or megac.RawTensor\), "
                                        r"got ndarray"):
        mod.vector_add.prepare(np.zeros(64, np.float32), x, x)
    with pytest.raises(TypeError, match="parameter 'y' is a tensor .* got int"):
        mod.vector_add.prepare(x, 1, x)
    with pytest.raises(TypeError, match=r"megac: grid must be integers that fit int64, got \('a', 'b', 'c'\)"):
        mod.vector_add.prepare(x, x, x, grid="abc")
    with pytest.raises(rt.ArgError, match="parameter 'n': value 1180591620717411303424 does not fit i32"):
        mod.vector_add.prepare(x, x, x, n=1 << 70)
    with pytest.raises(ValueError, match="pointer -0x10 is not a 64-bit address"):
        megac.RawTensor(-16, "f32", (64,))
    with pytest.raises(TypeError, match="megac: shape must be integers"):
        megac.RawTensor(0x10000, "f32", ("a",))
    # numpy's integers are integers
    assert mod.vector_add.prepare(x, x, x, grid=(np.int64(2),))["grid"] == (2, 1, 1)
    assert megac.RawTensor(np.uint64(0x10000), "f32", (np.int32(64),)).shape == (64,)


def test_launch_refuses_tensors_on_another_device(monkeypatch):
    """A tensor on cuda:1 while the launch runs on cuda:0 (torch's current device) is refused before the
    driver is touched: its pointer would fault on cuda:0 or read cuda:0's memory there."""
    _rt()
    import megac
    import megac.module as module
    mod = megac.load_bytes(bundle.write_bytes(MANIFEST, [PTX]), "t.mgb")
    asked = []
    monkeypatch.setattr(module, "_current_device", lambda: asked.append(1) or 0)
    monkeypatch.setattr(module.Module, "_native_module", lambda self: pytest.fail("reached the driver"))
    here, there = _FakeCudaTensor(0), _FakeCudaTensor(1)
    with pytest.raises(TypeError, match=r"parameter 'y': tensor is on cuda:1, but the launch runs on cuda:0 "
                                        r"\(torch's current device\); launch under `with torch.cuda.device\(1\):`"):
        mod.vector_add(here, there, here)
    with pytest.raises(TypeError, match="parameter 'out': tensor is on cuda:1"):
        mod.vector_add(here, here, out=there)
    # On one device the check passes and the launch goes on (to the driver, stopped here), having asked torch
    # for its current device once, not once a tensor.
    asked.clear()
    with pytest.raises(pytest.fail.Exception, match="reached the driver"):
        mod.vector_add(here, here, here)
    assert len(asked) == 1


def test_launch_without_driver_names_the_problem():
    rt = _rt()
    if not rt.HAS_LAUNCH:
        pytest.skip("extension built without launch support")
    import megac
    mod = megac.load_bytes(bundle.write_bytes(MANIFEST, [PTX]), "t.mgb")
    try:
        mod._native_module()
    except rt.DriverError as e:
        assert "megac:" in str(e)
    else:
        pytest.skip("a CUDA driver is present here")
