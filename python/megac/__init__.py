"""megac from Python: compile .mega modules, load compiled bundles and call their kernels on torch tensors.

    import megac
    cm = megac.compile("kernels-dsl/vector_add.mega")     # needs megac._compiler; cm.ptx["sm_90a"], ...
    mod = cm.load()                                         # or megac.load("build/kernels/vector_add.mgb")
    mod.vector_add(x, y, out)

`megac.slots` binds the runtime's slot registry and plans (kernel or stock fallback per slot).
`megac.testing` (correctness and timing helpers) and `megac.reference` (PyTorch references of every kernel)
import torch lazily; this module needs neither torch nor a GPU until a kernel is launched.
"""
from .module import Kernel, Module, RawTensor

__version__ = "0.1.0"


def _extension():
    try:
        from . import _runtime as rt
    except ImportError as e:
        raise ImportError("megac._runtime (the C++ extension) is not built or not on PYTHONPATH: build with "
                          "-DMEGAC_ENABLE_PYTHON=ON and set PYTHONPATH=<build>/python") from e
    return rt


def load(path, early_launch=True, choose_variants_as=None):
    """Load a .mgb bundle from a file path; returns a Module whose kernels are callable. early_launch=False
    launches @early_launch kernels as every other kernel (after the prior kernel on the stream has ended).
    choose_variants_as=(sms, l2_mb): launches run the variants a device of those facts would (another card's,
    for testing them here) instead of this device's; docs/runtime.md."""
    rt = _extension()
    bundle = rt.Bundle.from_file(str(path))
    return Module(rt, bundle, early_launch=early_launch,
                  choose_variants_as=_device_facts(rt, bundle, choose_variants_as))


def load_bytes(data, name="<bytes>", early_launch=True, choose_variants_as=None):
    """Load a bundle from its bytes (e.g. one embedded in a Python package); the options as load's."""
    rt = _extension()
    bundle = rt.Bundle.from_bytes(bytes(data), name)
    return Module(rt, bundle, early_launch=early_launch,
                  choose_variants_as=_device_facts(rt, bundle, choose_variants_as))


def _device_facts(rt, bundle, facts):
    """choose_variants_as checked now (the module loads on its first launch): None, or two integers as a tuple,
    which the runtime's own check (megac._runtime.ArgError where no device has them) accepts."""
    if facts is None:
        return None
    try:
        sms, l2_mb = facts
    except (TypeError, ValueError):
        raise TypeError(f"megac: choose_variants_as takes (sms, l2_mb), two integers; got {facts!r}") from None
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in (sms, l2_mb)):
        raise TypeError(f"megac: choose_variants_as takes (sms, l2_mb), two integers; got {facts!r}")
    rt.check_choose_variants_as(bundle.module, sms, l2_mb)
    return (sms, l2_mb)


# pure Python; no extension yet
from .compiler import CompiledModule, MegacError, MegacWarning, clear_cache  # noqa: E402


def compile(source, target="sm_90a", constants=None, emit_ir=False, ptxas=True, cache=True, name=None):
    """Compile a .mega module (source text or a path) with megac._compiler; returns a CompiledModule
    (.ptx, .ir, .resources, .manifest, .bundle, .save(path), .load()). Raises MegacError with the formatted
    diagnostics; a compilation with warnings warns MegacWarning. Results are cached in memory and under
    $MEGAC_CACHE_DIR (default ~/.cache/megac).
    See megac.compiler.compile for the arguments."""
    from . import compiler
    return compiler.compile(source, target=target, constants=constants, emit_ir=emit_ir, ptxas=ptxas,
                            cache=cache, name=name)


def __getattr__(name):
    # megac.slots binds the runtime extension: imported on first use
    if name == "slots":
        import importlib
        return importlib.import_module(".slots", __name__)
    raise AttributeError(f"module 'megac' has no attribute {name!r}")


__all__ = ["load", "load_bytes", "compile", "CompiledModule", "MegacError", "MegacWarning", "clear_cache",
           "Module", "Kernel", "RawTensor"]
