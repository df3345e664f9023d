"""megac.compile (megac._compiler): runs on CPU machines; skipped where the compiler is not built."""
import os
import threading
import time

import pytest

import megac
from megac import compiler

_compiler = pytest.importorskip("megac._compiler", reason="megac._compiler not built (needs the compiler; set "
                                                          "MEGAC_PYTHON_BUILD=<build>/python)")

ROOT = os.environ.get("MEGAC_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
VECTOR_ADD = os.path.join(ROOT, "kernels-dsl", "vector_add.mega")
HAS_PTXAS = compiler.find_ptxas() is not None

SOURCE = """\
const BLOCK = 1024;

@num_warps(4)
@grid(cdiv(n, BLOCK))
kernel scale_add(x: *f32[n], y: *f32[n], out: *f32[n], n: i32) {
    let offs = program_id(0) * BLOCK + arange(0, BLOCK);
    let mask = offs < n;
    let a = load(x + offs, mask, 0.0);
    let b = load(y + offs, mask, 0.0);
    store(out + offs, a * 2.0 + b, mask);
}
"""


@pytest.fixture(autouse=True)
def fresh_cache(tmp_path, monkeypatch):
    """Every test starts with an empty memory cache and its own disk cache."""
    monkeypatch.setenv("MEGAC_CACHE_DIR", str(tmp_path / "cache"))
    megac.clear_cache()
    yield
    megac.clear_cache()


def test_compile_path():
    cm = megac.compile(VECTOR_ADD)
    assert isinstance(cm, megac.CompiledModule)
    assert cm.name == "vector_add" and cm.kernels == ["vector_add"] and cm.targets == ["sm_90a"]
    ptx = cm.ptx["sm_90a"]
    assert ".target sm_90a" in ptx
    assert "ld.global.v4" in ptx
    assert ".entry vector_add" in ptx
    assert cm.compile_ms > 0
    assert cm.manifest["module"] == "vector_add"
    assert [p["name"] for p in cm.manifest["kernels"][0]["params"]] == ["x", "y", "out", "n"]
    assert cm.bundle[:8] == b"MEGACBND"
    assert cm.ir == {}


def test_compile_string_and_pathlike(tmp_path):
    cm = megac.compile(SOURCE)
    assert cm.kernels == ["scale_add"]
    assert ".entry scale_add" in cm.ptx["sm_90a"]
    p = tmp_path / "scale_add.mega"
    p.write_text(SOURCE)
    cm2 = megac.compile(p)  # os.PathLike: a path
    assert cm2.name == "scale_add" and cm2.ptx == cm.ptx


def test_source_detection(tmp_path):
    assert compiler._is_source("kernel f() {}")
    assert compiler._is_source("const A = 1;\n")
    assert not compiler._is_source("kernels-dsl/vector_add.mega")   # 'kernels', not the word 'kernel'
    assert not compiler._is_source("my_kernel.mega")
    assert compiler._is_source("kernel/x.mega")                       # names no file: source text
    (tmp_path / "kernel").mkdir()
    (tmp_path / "kernel" / "x.mega").write_text(SOURCE)
    assert not compiler._is_source(str(tmp_path / "kernel" / "x.mega"))  # an existing file stays a path


def test_bundle_matches_runtime_reader():
    from megac import bundle
    cm = megac.compile(VECTOR_ADD, ptxas=False)
    b = bundle.read_bytes(cm.bundle)
    assert b.manifest == cm.manifest
    assert b.ptx("sm_90a") == cm.ptx["sm_90a"]


@pytest.mark.skipif(not HAS_PTXAS, reason="ptxas not installed (/usr/local/cuda/bin/ptxas)")
def test_resources_with_ptxas():
    cm = megac.compile(VECTOR_ADD)
    r = cm.resources["sm_90a"]["vector_add"]
    assert set(r) >= {"registers", "spills", "stack", "shared"}
    assert 0 < r["registers"] <= 255
    assert r["spills"] == 0
    assert cm.ptxas_ran["sm_90a"]
    assert cm.cubin["sm_90a"][:4] == b"\x7fELF"
    kinds = {(im["target"], im["kind"]) for im in cm.manifest["images"]}
    assert ("sm_90a", "cubin") in kinds


def test_no_ptxas():
    cm = megac.compile(VECTOR_ADD, ptxas=False)
    assert cm.resources == {"sm_90a": {}}
    assert not cm.ptxas_ran["sm_90a"] and cm.cubin["sm_90a"] == b""
    assert {im["kind"] for im in cm.manifest["images"]} == {"ptx"}


def test_targets_list_and_all():
    cm = megac.compile(VECTOR_ADD, target=["sm_90a", "sm_100a"], ptxas=False)
    assert cm.targets == ["sm_90a", "sm_100a"]
    assert ".target sm_100a" in cm.ptx["sm_100a"]
    every = megac.compile(VECTOR_ADD, target="all", ptxas=False)
    assert set(every.targets) >= {"sm_90a", "sm_100a"}


def test_ir_stages():
    cm = megac.compile(VECTOR_ADD, emit_ir=True, ptxas=False)
    assert set(cm.ir) == set(compiler.STAGES)
    assert "kernel vector_add" in cm.ir["ast"]["sm_90a"]
    assert "tile." in cm.ir["tile"]["sm_90a"]
    assert "#" in cm.ir["tile-layout"]["sm_90a"]          # layouts assigned
    assert "llvm.func" in cm.ir["llvm"]["sm_90a"]
    assert "define" in cm.ir["llvm-ir"]["sm_90a"] and "target triple" in cm.ir["llvm-ir"]["sm_90a"]
    with pytest.raises(ValueError, match="unknown IR stage"):
        megac.compile(VECTOR_ADD, emit_ir=["tiles"])
    plain = megac.compile(VECTOR_ADD, ptxas=False)
    with pytest.raises(KeyError, match="emit_ir=True"):
        plain.ir["llvm"]


def test_error_raises_megac_error_with_caret():
    bad = SOURCE.replace("let b = load(y + offs", "let b = lod(y + offs")
    with pytest.raises(megac.MegacError) as info:
        megac.compile(bad, name="bad.mega")
    msg = str(info.value)
    assert isinstance(info.value, Exception)
    assert msg.startswith("bad.mega:9:")
    assert "error:" in msg and "lod" in msg
    assert "^" in msg
    assert info.value.diagnostics == msg
    assert "let b = lod(y + offs" in msg  # the source line under the message


WIDE = """\
@num_warps(1)
@grid(1)
kernel fill(out: *i32[65536]) {
    let offs = arange(0, 65536);
    store(out + offs, offs);
}
"""


def test_warnings_warn_from_the_callers_line():
    with pytest.warns(megac.MegacWarning) as record:
        cm = megac.compile(WIDE, name="wide.mega", ptxas=False)
    (w,) = record
    assert w.filename == __file__  # the caller's line, not megac's
    msg = str(w.message)
    assert msg.startswith("wide.mega:4:16: warning: kernel 'fill' holds 2048 elements per thread")
    assert "hint: take it in blocks of at most 1024 elements per thread" in msg
    assert msg == cm.diagnostics.rstrip("\n")
    # A tile of pointers is spelled as the language spells its elements.
    pointers = WIDE.replace("store(out + offs, offs)", "store(out + arange(0, 65536), 1)").replace(
        "    let offs = arange(0, 65536);\n", "")
    with pytest.warns(megac.MegacWarning, match=r"of this \[65536\] \*i32 tile"):
        megac.compile(pointers, name="pointers.mega", ptxas=False)
    # A cache hit warns as well: the module is the same, and so is what is wrong with it.
    with pytest.warns(megac.MegacWarning, match="2048 elements per thread"):
        assert megac.compile(WIDE, name="wide.mega", ptxas=False).cached == "memory"


def test_no_warning_without_diagnostics(recwarn):
    cm = megac.compile(SOURCE, ptxas=False)
    assert cm.diagnostics == ""
    assert not [w for w in recwarn if issubclass(w.category, megac.MegacWarning)]


def test_missing_file_and_unknown_target():
    with pytest.raises(megac.MegacError, match="no_such_file.mega"):
        megac.compile("/nonexistent/no_such_file.mega")
    with pytest.raises(megac.MegacError, match="unknown target 'sm_80'"):
        megac.compile(VECTOR_ADD, target="sm_80")


def test_bad_arguments_are_refused_before_compiling():
    with pytest.raises(TypeError, match=r"target must be a name, a list of names or 'all', got \[\]"):
        megac.compile(VECTOR_ADD, target=[])
    with pytest.raises(TypeError, match=r"target must be a name, a list of names or 'all', got \[90\]"):
        megac.compile(VECTOR_ADD, target=[90])
    with pytest.raises(TypeError, match="constant 'BLOCK' must be an int, float, bool or str, got list"):
        megac.compile(VECTOR_ADD, constants={"BLOCK": [512]})
    # these were "'int' object is not iterable" and "'list' object has no attribute 'items'"
    with pytest.raises(TypeError, match=r"target must be a name, a list of names or 'all', got 90"):
        megac.compile(VECTOR_ADD, target=90)
    with pytest.raises(TypeError, match="constants must be a dict of name: value, got list"):
        megac.compile(VECTOR_ADD, constants=[("BLOCK", 512)])
    with pytest.raises(KeyError, match="unknown IR stage 'tiles'; stages: ast"):
        megac.compile(VECTOR_ADD, emit_ir=True, ptxas=False).ir["tiles"]


def test_constants_override():
    base = megac.compile(VECTOR_ADD, ptxas=False)
    small = megac.compile(VECTOR_ADD, constants={"BLOCK": 512}, ptxas=False)
    assert base.manifest["kernels"][0]["grid"][0] != small.manifest["kernels"][0]["grid"][0]
    assert "512" in small.manifest["kernels"][0]["grid"][0]
    assert base.ptx["sm_90a"] != small.ptx["sm_90a"]
    with pytest.raises(megac.MegacError, match="BLOCKS"):
        megac.compile(VECTOR_ADD, constants={"BLOCKS": 512}, ptxas=False)


def test_cache_memory_hit_does_not_compile():
    first = megac.compile(VECTOR_ADD)
    count = _compiler.compile_count()
    second = megac.compile(VECTOR_ADD)
    assert _compiler.compile_count() == count
    assert second.cached == "memory" and first.cached is None
    assert second.bundle == first.bundle and second.ptx == first.ptx and second.resources == first.resources
    assert second.compile_ms == first.compile_ms  # the original compilation's time


def test_cache_disk_hit_does_not_compile(tmp_path):
    first = megac.compile(VECTOR_ADD, emit_ir=True)
    files = sorted(os.listdir(os.environ["MEGAC_CACHE_DIR"]))
    assert len(files) == 2 and files[0].endswith(".json") and files[1].endswith(".mgb")
    megac.clear_cache()  # memory only: the next hit comes from disk
    count = _compiler.compile_count()
    t0 = time.perf_counter()
    second = megac.compile(VECTOR_ADD, emit_ir=True)
    hit_ms = (time.perf_counter() - t0) * 1e3
    assert _compiler.compile_count() == count
    assert second.cached == "disk"
    assert second.bundle == first.bundle and second.ptx == first.ptx and second.ir == first.ir
    assert second.resources == first.resources and second.cubin == first.cubin
    assert second.manifest == first.manifest
    assert hit_ms < first.compile_ms
    assert megac.compile(VECTOR_ADD, emit_ir=True).cached == "memory"


def test_cache_key_and_bypass():
    megac.compile(VECTOR_ADD, ptxas=False)
    count = _compiler.compile_count()
    assert megac.compile(VECTOR_ADD, ptxas=False, cache=False).cached is None
    assert _compiler.compile_count() == count + 1
    for kwargs in ({"constants": {"BLOCK": 512}}, {"target": ["sm_100a"]}, {"ptxas": True}, {"emit_ir": True}):
        before = _compiler.compile_count()
        opts = {"ptxas": False, **kwargs}
        assert megac.compile(VECTOR_ADD, **opts).cached is None, kwargs
        assert _compiler.compile_count() == before + 1
        assert megac.compile(VECTOR_ADD, **opts).cached == "memory", kwargs
    # constants are part of the key in sorted order: the same dict in another order hits
    src2 = SOURCE.replace("const BLOCK = 1024;", "const BLOCK = 1024;\nconst SCALE = 2.0;")
    megac.compile(src2, constants={"BLOCK": 256, "SCALE": 3.0}, ptxas=False)
    assert megac.compile(src2, constants={"SCALE": 3.0, "BLOCK": 256}, ptxas=False).cached == "memory"


def test_cache_key_holds_the_compiler_itself(monkeypatch):
    """A rebuilt compiler under the same version misses the cache (memory and disk) instead of returning what
    the old one compiled."""
    import hashlib
    with open(_compiler.__file__, "rb") as f:
        assert compiler.compiler_digest() == hashlib.sha256(f.read()).hexdigest()
    megac.compile(VECTOR_ADD, ptxas=False)
    assert megac.compile(VECTOR_ADD, ptxas=False).cached == "memory"
    monkeypatch.setattr(compiler, "_compiler_digest", "0" * 64)  # another build of megac
    before = _compiler.compile_count()
    assert megac.compile(VECTOR_ADD, ptxas=False).cached is None
    assert _compiler.compile_count() == before + 1


def test_cache_key_holds_which_ptxas(tmp_path):
    """Another ptxas behind the same path (a CUDA upgrade in place, a link moved) is another key."""
    tool = tmp_path / "ptxas"
    tool.write_bytes(b"one")
    link = tmp_path / "cuda" / "bin"
    link.mkdir(parents=True)
    (link / "ptxas").symlink_to(tool)
    key = lambda p: compiler._key("k.mega", SOURCE, {}, [], p, ())  # noqa: E731
    first = key(str(link / "ptxas"))
    assert key(str(tool)) == first  # the same file by another path
    assert key(None) != first
    tool.write_bytes(b"three")
    assert key(str(link / "ptxas")) != first
    before = key(str(tool))
    os.utime(tool, ns=(0, 10**9))
    assert key(str(tool)) != before


def test_cache_follows_imports(tmp_path):
    (tmp_path / "common.mega").write_text("const BLOCK = 1024;\n")
    main = tmp_path / "main.mega"
    main.write_text('import "common.mega";\n' + SOURCE.replace("const BLOCK = 1024;\n", ""))
    a = megac.compile(main, ptxas=False)
    (tmp_path / "common.mega").write_text("const BLOCK = 256;\n")
    b = megac.compile(main, ptxas=False)
    assert b.cached is None
    assert a.manifest["kernels"][0]["grid"] != b.manifest["kernels"][0]["grid"]


def test_errors_are_not_cached():
    bad = SOURCE.replace("arange", "arrange")
    for _ in range(2):
        count = _compiler.compile_count()
        with pytest.raises(megac.MegacError):
            megac.compile(bad)
        assert _compiler.compile_count() == count + 1


def test_gil_released_during_compilation():
    ticks = [0]
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            ticks[0] += 1

    t = threading.Thread(target=spin)
    t.start()
    try:
        time.sleep(0.01)
        before = ticks[0]
        cm = megac.compile(VECTOR_ADD, target="all", emit_ir=True, cache=False)
        during = ticks[0] - before
    finally:
        stop.set()
        t.join()
    # with the GIL held for the whole compilation the spinning thread would barely move
    assert cm.compile_ms > 20
    assert during > 1000, (during, cm.compile_ms)


def test_save_and_load_bytes(tmp_path):
    cm = megac.compile(VECTOR_ADD, ptxas=False)
    path = cm.save(tmp_path / "va.mgb")
    with open(path, "rb") as f:
        assert f.read() == cm.bundle
    rt = pytest.importorskip("megac._runtime")
    mod = cm.load()  # loading the bundle needs no GPU; launching does
    assert mod.kernels == ["vector_add"]
    assert rt.Bundle.from_file(str(path)).kernels == ["vector_add"]


VARIANT_GRID_SOURCE = """\
const ROWS = 4;

@num_warps(4)
@grid(cdiv(M, ROWS))
@variant(one_row, ROWS = 1, num_warps = 1, when = M <= 64)
kernel rows(x: *f32[M, 128], M: i32) {
    let r = program_id(0) * ROWS + arange(0, ROWS);
    let c = arange(0, 128);
    store(x + r[:, None] * 128 + c[None, :], 1.0, r[:, None] < M);
}
"""


def test_variant_with_its_own_grid_and_warps():
    """A variant whose constants change the grid records it, and its warps, in the manifest; the runtime
    chooses it on the kernel's grid and then launches its own grid and CTA size."""
    cm = megac.compile(VARIANT_GRID_SOURCE, ptxas=False)
    (k,) = cm.manifest["kernels"]
    assert k["grid"] == ["cdiv(M, 4)", "1", "1"] and k["num_warps"] == 4
    one_row, default = k["variants"]
    assert one_row["grid"] == ["cdiv(M, 1)", "1", "1"] and one_row["num_warps"] == 1
    assert "grid" not in default and "num_warps" not in default
    pytest.importorskip("megac._runtime", reason="megac._runtime not built")
    mod = megac.load_bytes(cm.bundle, "rows.mgb")
    small = mod.rows.prepare(megac.RawTensor(0x10000, "f32", (64, 128)))
    assert small["grid"] == (64, 1, 1) and small["block"][0] == 32
    big = mod.rows.prepare(megac.RawTensor(0x10000, "f32", (65, 128)))
    assert big["grid"] == (17, 1, 1) and big["block"][0] == 128
