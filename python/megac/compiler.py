"""megac.compile: .mega source to PTX, IR stages, ptxas resources and a bundle, with a compile cache.

    import megac
    cm = megac.compile("kernels-dsl/vector_add.mega")            # a path ...
    cm = megac.compile(source_text, constants={"BLOCK": 512})    # ... or source text
    cm.ptx["sm_90a"], cm.resources["sm_90a"]["vector_add"]["registers"], cm.manifest, cm.bundle
    cm.save("vector_add.mgb"); mod = cm.load()                   # load() needs a GPU

The compiler itself is the C++ extension megac._compiler (megac::compile, the same pipeline as the megac tool);
this module resolves the arguments, raises MegacError on errors, warns (MegacWarning) with the compiler's
warnings and caches results in memory and on disk ($MEGAC_CACHE_DIR, default ~/.cache/megac).
"""
import collections
import hashlib
import json
import os
import re
import sys
import threading
import time
import warnings

STAGES = ("ast", "tile", "tile-layout", "llvm", "llvm-ir")
# stages printed once for the module (before any target-specific pass); reported under every target
_MODULE_STAGES = ("ast", "tile")
_CACHE_FORMAT = 1
_MEMORY_ENTRIES = 256


class MegacError(Exception):
    """A compilation that failed; the message is the compiler's formatted diagnostics
    (`file:line:col: error: ...`, the source line and a caret)."""

    def __init__(self, diagnostics):
        super().__init__(diagnostics)
        self.diagnostics = diagnostics


class MegacWarning(UserWarning):
    """A compilation that succeeded with warnings (a register cap the tiles pass, a tile too wide to unroll
    quickly); the message is the compiler's formatted diagnostics, as megac prints them. Issued on every
    compile of the module, cache hits included, from the caller's line (Python's filters show it once a line)."""


def _ext():
    try:
        from . import _compiler
    except ImportError as e:
        raise ImportError("megac.compile needs the compiler extension megac._compiler, which this build does "
                          "not have (it needs LLVM/MLIR: configure with -DMEGAC_ENABLE_COMPILER=ON and put "
                          "<build>/python on PYTHONPATH). Load prebuilt bundles with megac.load(path) "
                          "instead.") from e
    return _compiler


def available():
    """True when megac._compiler is importable (the compiler was built)."""
    try:
        _ext()
        return True
    except ImportError:
        return False


def version():
    return _ext().version()


def find_ptxas():
    """The ptxas the compiler runs ($MEGAC_PTXAS, $CUDA_HOME/bin, /usr/local/cuda/bin, PATH) or None."""
    return _ext().find_ptxas()


# ---------------------------------------------------------------------------------------------------------
# The result
# ---------------------------------------------------------------------------------------------------------

class _IR(dict):
    """ir[stage][target]; a stage that was not kept says how to get it."""

    def __missing__(self, stage):
        if stage not in STAGES:
            raise KeyError(f"unknown IR stage {stage!r}; stages: {', '.join(STAGES)}")
        raise KeyError(f"IR stage {stage!r} was not kept: compile with emit_ir=True (or emit_ir=[{stage!r}])")


class CompiledModule:
    """What one compilation produced.

    ptx[target]                 PTX text
    ir[stage][target]           with emit_ir: "ast", "tile" (module-wide, repeated per target), "tile-layout",
                                "llvm" (LLVM dialect), "llvm-ir"
    resources[target][symbol]   ptxas report: registers, spills (bytes; also spill_stores/spill_loads), stack,
                                shared; {} for a target when ptxas did not run
    cubin[target]               bytes (b"" without ptxas)
    compile_ms                  wall time of the compilation (the original one on a cache hit)
    manifest, bundle            the manifest as a dict, the .mgb bytes
    kernels, symbols, name, targets, diagnostics (warnings), cached ("memory", "disk" or None)
    """

    def __init__(self, data, cached=None):
        self._data = data
        self.name = data["module"]
        self.targets = [t["target"] for t in data["targets"]]
        self.kernels = list(data["kernels"])
        self.symbols = dict(data["symbols"])
        self.ptx = {t["target"]: t["ptx"] for t in data["targets"]}
        self.cubin = {t["target"]: t.get("cubin", b"") for t in data["targets"]}
        self.resources = {t["target"]: {s: dict(r) for s, r in t["resources"].items()} for t in data["targets"]}
        self.ptxas_ran = {t["target"]: t["ptxas_ran"] for t in data["targets"]}
        self.ptxas_log = {t["target"]: t["ptxas_log"] for t in data["targets"]}
        self.compile_ms = data["compile_ms"]
        self.target_ms = {t["target"]: t["compile_ms"] + t["ptxas_ms"] for t in data["targets"]}
        self.diagnostics = data["diagnostics"]
        self.bundle = data["bundle"]
        self.manifest = json.loads(data["manifest_json"])
        self.cached = cached
        self.ir = _IR()
        for stage in data.get("ir_stages", ()):
            if stage in _MODULE_STAGES:
                self.ir[stage] = {t["target"]: data[stage] for t in data["targets"]}
            else:
                self.ir[stage] = {t["target"]: t[stage] for t in data["targets"]}

    def save(self, path):
        """Write the bundle (.mgb) to `path`; megac.load(path) or the C++ runtime loads it."""
        path = os.fspath(path)
        with open(path, "wb") as f:
            f.write(self.bundle)
        return path

    def load(self, early_launch=True, choose_variants_as=None):
        """The runtime module (megac.load_bytes): kernels callable on torch CUDA tensors. Needs the runtime
        extension; launching needs a GPU. early_launch and choose_variants_as as megac.load's."""
        from . import load_bytes
        return load_bytes(self.bundle, self.name, early_launch=early_launch, choose_variants_as=choose_variants_as)

    def __repr__(self):
        src = f", cached={self.cached}" if self.cached else ""
        return (f"<megac CompiledModule {self.name}: kernels {', '.join(self.kernels)}; "
                f"targets {', '.join(self.targets)}; {self.compile_ms:.1f} ms{src}>")


# ---------------------------------------------------------------------------------------------------------
# Arguments
# ---------------------------------------------------------------------------------------------------------

_KERNEL_WORD = re.compile(r"\bkernel\b")


def _is_source(s):
    """Source text: a newline, or the word `kernel` in a string that names no existing file (so that
    "kernels-dsl/vector_add.mega" or "kernel/x.mega" stay paths)."""
    if "\n" in s:
        return True
    return bool(_KERNEL_WORD.search(s)) and not os.path.isfile(s)


def _targets(target):
    if target is None or target == "all":
        return []
    if isinstance(target, str):
        return [target]
    try:
        out = list(target)
    except TypeError:  # not iterable: refused below
        out = []
    if not out or not all(isinstance(t, str) for t in out):
        raise TypeError(f"megac.compile: target must be a name, a list of names or 'all', got {target!r}")
    return [] if out == ["all"] else out


def _define_value(name, v):
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return v
    raise TypeError(f"megac.compile: constant {name!r} must be an int, float, bool or str, got {type(v).__name__}")


def _stages(emit_ir):
    if not emit_ir:
        return ()
    if emit_ir is True or emit_ir == "all":
        return STAGES
    stages = (emit_ir,) if isinstance(emit_ir, str) else tuple(emit_ir)
    for s in stages:
        if s not in STAGES:
            raise ValueError(f"megac.compile: unknown IR stage {s!r}; stages: {', '.join(STAGES)}")
    return tuple(s for s in STAGES if s in stages)


_IMPORT = re.compile(r'^\s*import\s+"([^"]*)"\s*;', re.M)
_LINE_COMMENT = re.compile(r"//[^\n]*")


def _imports(name, text, seen):
    """(path, text or None) of every file `text` imports, transitively, resolved as the frontend does
    (relative to the importing file's directory): part of the cache key."""
    out = []
    base = os.path.dirname(name)
    for rel in _IMPORT.findall(_LINE_COMMENT.sub("", text)):
        path = os.path.normpath(rel if rel.startswith("/") else os.path.join(base, rel))
        if path in seen:
            continue
        seen.add(path)
        try:
            with open(path, encoding="utf-8") as f:
                sub = f.read()
        except OSError:
            out.append((path, None))
            continue
        out.append((path, sub))
        out.extend(_imports(path, sub, seen))
    return out


# ---------------------------------------------------------------------------------------------------------
# Cache
# ---------------------------------------------------------------------------------------------------------

_memory = collections.OrderedDict()
_lock = threading.Lock()
stats = {"compiles": 0, "memory_hits": 0, "disk_hits": 0}


def cache_dir():
    return os.environ.get("MEGAC_CACHE_DIR") or os.path.join(os.path.expanduser("~"), ".cache", "megac")


def clear_cache(memory=True, disk=False):
    """Forget cached compilations: the in-memory ones, and with disk=True the files under cache_dir()."""
    if memory:
        with _lock:
            _memory.clear()
    if disk:
        d = cache_dir()
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith((".mgb", ".json")) and len(f.split(".")[0]) == 64:
                    try:
                        os.remove(os.path.join(d, f))
                    except OSError:
                        pass


_compiler_digest = None


def compiler_digest():
    """SHA-256 of the compiler extension's file, computed once a process: part of the cache key, so that a
    rebuilt megac (other code under the same version) never returns what the old one compiled."""
    global _compiler_digest
    if _compiler_digest is None:
        h = hashlib.sha256()
        with open(_ext().__file__, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        _compiler_digest = h.hexdigest()
    return _compiler_digest


def _file_identity(path):
    """Where a tool really lives, its size and modification time: another ptxas behind the same path (a CUDA
    upgrade under /usr/local/cuda) is another key."""
    if path is None:
        return None
    real = os.path.realpath(path)
    try:
        st = os.stat(real)
    except OSError:
        return [real]
    return [real, st.st_size, st.st_mtime_ns]


def _key(name, text, defines, targets, ptxas_path, stages):
    doc = {"format": _CACHE_FORMAT, "version": version(), "compiler": compiler_digest(), "name": name,
           "source": text,
           "imports": _imports(name, text, {os.path.normpath(name)}),
           "constants": sorted(defines.items()), "targets": targets,
           "ptxas": _file_identity(ptxas_path),
           "ir": stages != ()}
    return hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()


def _disk_get(key):
    d = cache_dir()
    try:
        with open(os.path.join(d, key + ".json"), encoding="utf-8") as f:
            data = json.load(f)
        with open(os.path.join(d, key + ".mgb"), "rb") as f:
            data["bundle"] = f.read()
    except (OSError, ValueError):
        return None
    if data.get("format") != _CACHE_FORMAT or data.get("key") != key:
        return None
    # cubins live inside the bundle; the JSON only knows which targets had one
    from . import bundle as bundle_py
    try:
        b = bundle_py.read_bytes(data["bundle"], key)
        for t in data["targets"]:
            t["cubin"] = b.image(t["target"], "cubin") if t.pop("has_cubin", False) else b""
    except Exception:  # a damaged file is a miss, never an error
        return None
    return data


def _disk_put(key, data):
    d = cache_dir()
    try:
        os.makedirs(d, exist_ok=True)
        meta = {k: v for k, v in data.items() if k != "bundle"}
        meta["targets"] = [{**{k: v for k, v in t.items() if k != "cubin"}, "has_cubin": bool(t["cubin"])}
                           for t in data["targets"]]
        meta["format"], meta["key"] = _CACHE_FORMAT, key
        for suffix, payload, mode in ((".mgb", data["bundle"], "wb"),
                                      (".json", json.dumps(meta).encode(), "wb")):
            tmp = os.path.join(d, f".{key}{suffix}.{os.getpid()}.{threading.get_ident()}.tmp")
            with open(tmp, mode) as f:
                f.write(payload)
            os.replace(tmp, os.path.join(d, key + suffix))  # the .json last: it marks the entry complete
    except OSError:
        pass  # an unwritable cache only costs a recompilation


# ---------------------------------------------------------------------------------------------------------
# compile
# ---------------------------------------------------------------------------------------------------------

def _caller_stacklevel():
    """warnings.warn's stacklevel naming the first caller outside this package (megac.compile's user)."""
    here = os.path.dirname(os.path.abspath(__file__))
    level, frame = 1, sys._getframe(1)
    while frame is not None and os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == here:
        frame, level = frame.f_back, level + 1
    return level


def compile(source, target="sm_90a", constants=None, emit_ir=False, ptxas=True, cache=True, name=None):
    """Compile a .mega module.

    source     source text (a str with a newline, or with the word `kernel` and naming no file) or a path
               (any other str, or an os.PathLike)
    target     "sm_90a", a list of targets, or "all" (every target the compiler knows)
    constants  {NAME: value}: overrides compile-time constants, like megac -D NAME=VALUE
    emit_ir    False, or True / a list of STAGES: keep the IR stages in .ir (all of them are kept)
    ptxas      run ptxas when installed: cubins in the bundle and .resources
    cache      False bypasses the memory and disk caches (the result is not stored either)
    name       the file name diagnostics show for source text (default "<string>"); imports resolve
               relative to it
    Raises MegacError with the formatted diagnostics when compilation fails; warns with MegacWarning when it
    succeeds with warnings (also .diagnostics).
    """
    module = _compile(source, target, constants, emit_ir, ptxas, cache, name)
    if module.diagnostics.strip():
        warnings.warn(MegacWarning(module.diagnostics.rstrip("\n")), stacklevel=_caller_stacklevel())
    return module


def _compile(source, target, constants, emit_ir, ptxas, cache, name):
    ext = _ext()
    targets = _targets(target)
    if constants is not None and not isinstance(constants, dict):
        raise TypeError(f"megac.compile: constants must be a dict of name: value, got {type(constants).__name__}")
    defines = {str(k): _define_value(k, v) for k, v in (constants or {}).items()}
    stages = _stages(emit_ir)

    if isinstance(source, (bytes, bytearray)):
        source = bytes(source).decode("utf-8")
    if isinstance(source, str) and _is_source(source):
        text, path = source, name or "<string>"
    else:
        path = os.fspath(source)
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError:
            text = None  # the compiler reports the missing file in its own words
        if name:
            path = name

    ptxas_path = ext.find_ptxas() if ptxas else None
    key = None
    if cache and text is not None:
        key = _key(path, text, defines, targets, ptxas_path, stages)
        with _lock:
            data = _memory.get(key)
            if data is not None:
                _memory.move_to_end(key)
                stats["memory_hits"] += 1
                return CompiledModule(data, cached="memory")
        data = _disk_get(key)
        if data is not None:
            with _lock:
                _memory[key] = data
                stats["disk_hits"] += 1
            return CompiledModule(data, cached="disk")

    t0 = time.perf_counter()
    raw = ext.compile_raw(path, text, defines, targets, bool(ptxas), bool(stages))
    elapsed = (time.perf_counter() - t0) * 1e3
    with _lock:
        stats["compiles"] += 1
    if not raw["ok"]:
        raise MegacError(raw["diagnostics"].rstrip("\n") or "megac: compilation failed")
    data = {k: raw[k] for k in ("module", "kernels", "symbols", "maxnreg", "manifest_json", "bundle",
                                "diagnostics")}
    data["compile_ms"] = elapsed
    # the compiler keeps every stage or none: with any stage requested, all are kept (one cache entry)
    data["ir_stages"] = list(STAGES) if stages else []
    for s in _MODULE_STAGES:
        data[s] = raw[s] if stages else ""
    data["targets"] = [dict(t) for t in raw["targets"]]
    if not stages:
        for t in data["targets"]:
            for s in STAGES:
                if s not in _MODULE_STAGES:
                    t[s] = ""
    if key is not None:
        with _lock:
            _memory[key] = data
            while len(_memory) > _MEMORY_ENTRIES:
                _memory.popitem(last=False)
        _disk_put(key, data)
    return CompiledModule(data)
