"""megac from Python: load compiled module bundles and call their kernels on torch tensors.

    import megac
    mod = megac.load("build/kernels/vector_add.mgb")
    mod.vector_add(x, y, out)

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


def load(path):
    """Load a .mgb bundle from a file path; returns a Module whose kernels are callable."""
    rt = _extension()
    return Module(rt, rt.Bundle.from_file(str(path)))


def load_bytes(data, name="<bytes>"):
    """Load a bundle from its bytes (e.g. one embedded in a Python package)."""
    rt = _extension()
    return Module(rt, rt.Bundle.from_bytes(bytes(data), name))


def compile(*args, **kwargs):
    """Compile a .mega source to a Module. Provided by the compiler extension megac._compiler (lead's side);
    this is the hook it plugs into."""
    try:
        from . import _compiler
    except ImportError as e:
        raise ImportError("megac.compile needs the compiler extension megac._compiler, which this build does "
                          "not have (it needs LLVM/MLIR: configure with -DMEGAC_ENABLE_COMPILER=ON). "
                          "Load prebuilt bundles with megac.load(path) instead.") from e
    result = _compiler.compile(*args, **kwargs)
    # the compiler may hand back bundle bytes or a ready Module
    return load_bytes(result, "<compiled>") if isinstance(result, (bytes, bytearray)) else result


__all__ = ["load", "load_bytes", "compile", "Module", "Kernel", "RawTensor"]
