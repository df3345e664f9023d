"""Loaded modules whose kernels are called like Python functions on torch tensors.

    mod = megac.load("vector_add.mgb")
    mod.vector_add(x, y, out)                # n inferred from x's shape
    mod.vector_add(x, y, out, n=x.numel(), grid=(4,), stream=s)

Arguments bind to the manifest's parameters by position or by name. A tensor is passed as
(data_ptr, dtype, shape, strides); the runtime checks it against the manifest (dtype, shape expressions,
alignment) and raises megac._runtime.ArgError naming the kernel and parameter. A scalar left out is inferred
from a tensor dimension named after it. Launches go on torch.cuda.current_stream() unless `stream` is given
(a torch.cuda.Stream or a raw CUstream int).
"""
import json
import operator

from . import dtypes


class RawTensor:
    """A device buffer described without torch: pointer, manifest dtype name, shape, strides (elements)."""

    def __init__(self, ptr, dtype, shape, strides=None):
        self.ptr, self.dtype, self.shape = operator.index(ptr), dtype, _ints("shape", shape)
        self.strides = _ints("strides", strides) if strides is not None else ()
        if not 0 <= self.ptr < 1 << 64:
            raise ValueError(f"megac: RawTensor: pointer {self.ptr:#x} is not a 64-bit address")


def _ints(what, values):
    """A tuple of ints (numpy's too) that fit int64, or a TypeError naming `what` (rather than pybind11's
    cast error)."""
    values = tuple(values)
    try:
        ints = tuple(operator.index(v) for v in values)
    except TypeError:
        ints = None
    if ints is None or not all(-(1 << 63) <= v < 1 << 63 for v in ints):
        raise TypeError(f"megac: {what} must be integers that fit int64, got {values!r}")
    return ints


def _is_tensor(v):
    return isinstance(v, RawTensor) or (hasattr(v, "data_ptr") and hasattr(v, "stride") and hasattr(v, "dtype"))


def _tensor_arg(rt, kernel, param, v, device):
    if not _is_tensor(v):
        raise TypeError(f"megac: kernel '{kernel}': parameter '{param['name']}' is a tensor (a torch tensor or "
                        f"megac.RawTensor), got {type(v).__name__}")
    if isinstance(v, RawTensor):
        given = v.dtype
        ptr, shape, strides = v.ptr, v.shape, v.strides
    else:
        if not v.is_cuda:
            raise TypeError(f"megac: kernel '{kernel}': parameter '{param['name']}': tensor is on {v.device}, "
                            "not a CUDA device")
        # The launch runs on torch's current device (its context): a pointer into another GPU's memory would
        # fault there or read that GPU's data.
        current = device.index()
        if v.get_device() != current:
            raise TypeError(f"megac: kernel '{kernel}': parameter '{param['name']}': tensor is on {v.device}, "
                            f"but the launch runs on cuda:{current} (torch's current device); launch under "
                            f"`with torch.cuda.device({v.device.index}):`")
        given = dtypes.manifest_name(v.dtype)
        ptr, shape, strides = v.data_ptr(), v.shape, v.stride()
    if not dtypes.accepts(param["dtype"], given):
        raise TypeError(f"megac: kernel '{kernel}': parameter '{param['name']}': expects {param['dtype']}, "
                        f"got {given}")
    # a uint8 buffer standing for a byte-typed parameter is passed under the parameter's own dtype; shape and
    # strides go as the sequences they are (torch.Size, tuples), which pybind11 reads without a copy to a list
    return rt.tensor_arg(ptr, param["dtype"], shape, strides)


def _scalar_arg(rt, kernel, param, v):
    if _is_tensor(v):
        if getattr(v, "numel", lambda: 2)() != 1:
            raise TypeError(f"megac: kernel '{kernel}': parameter '{param['name']}' is a scalar, got a tensor")
        v = v.item()
    is_float = param["dtype"] in dtypes.FLOAT_SCALARS
    if not is_float and isinstance(v, float) and not v.is_integer():
        raise TypeError(f"megac: kernel '{kernel}': parameter '{param['name']}' is {param['dtype']}, got {v}")
    if not is_float and not -(1 << 63) <= int(v) < 1 << 63:
        raise rt.ArgError(f"megac: kernel '{kernel}': parameter '{param['name']}': value {int(v)} does not fit "
                          f"{param['dtype']}")
    return rt.scalar_arg(param["dtype"], float(v) if is_float else int(v))


class Kernel:
    def __init__(self, module, info):
        self._module = module
        self.name = info["name"]
        self.info = info
        self.params = info["params"]
        self.param_names = [p["name"] for p in self.params]
        # What bind walks on every launch: (name, is a tensor, the parameter).
        self._walk = [(p["name"], p["kind"] == "tensor", p) for p in self.params]
        # A launch's fast path: the common case bound in one native call, whose None hands the launch to
        # _bind (which checks and words the refusals). A runtime without it (a stand-in in tests) binds here.
        binder = getattr(module._rt, "ArgBinder", None)
        self._binder = binder and binder([(p["name"], p["kind"] == "tensor", p["dtype"],
                                           dtypes.accepted_names(p["dtype"])) for p in self.params],
                                         dtypes.MANIFEST_BY_TORCH_DTYPE)

    def bind(self, *args, **kwargs):
        """Native argument list in manifest order (left-out scalars inferred by the runtime)."""
        return self._bind(args, kwargs, _LaunchDevice())

    def _bind(self, args, kwargs, device):
        rt = self._module._rt
        if len(args) > len(self.params):
            raise TypeError(f"megac: kernel '{self.name}' takes {len(self.params)} arguments "
                            f"({', '.join(self.param_names)}), got {len(args)}")
        values = dict(zip(self.param_names, args))
        for k, v in kwargs.items():
            if k not in self.param_names:
                raise TypeError(f"megac: kernel '{self.name}' has no parameter '{k}'; "
                                f"parameters: {', '.join(self.param_names)}")
            if k in values:
                raise TypeError(f"megac: kernel '{self.name}': parameter '{k}' given twice")
            values[k] = v
        out = []
        for name, is_tensor, p in self._walk:
            v = values.get(name)
            if is_tensor:
                if v is None:
                    raise TypeError(f"megac: kernel '{self.name}': missing tensor parameter '{name}'")
                out.append(_tensor_arg(rt, self.name, p, v, device))
            elif v is None:
                out.append(rt.infer_arg())
            else:
                out.append(_scalar_arg(rt, self.name, p, v))
        return out

    def prepare(self, *args, sms=132, l2_mb=60, grid=None, **kwargs):
        """What a launch would do (grid, block, variant, and whether that variant is compiled to be launched early)
        without launching: needs no GPU. The variant is chosen as this module launches on a device of `sms` SMs
        and `l2_mb` MiB of L2 (an H200's by default; `early` in a variant's condition is the module's
        early_launch)."""
        sig = self._module._signature(self.name)
        if callable(grid):
            named = dict(zip((p["name"] for p in self.params), args))
            named.update(kwargs)
            grid = grid(named)
        return sig.prepare(self.bind(*args, **kwargs), sms, _grid(grid), self._module.early_launch, l2_mb)

    def __call__(self, *args, grid=None, stream=None, **kwargs):
        """Launch on `stream` (default: torch's current stream). grid: None (the manifest's grid rule), a
        tuple, or a function of the arguments by name returning one, as in grid=lambda a: (a["M"],)."""
        if callable(grid):
            named = dict(zip((p["name"] for p in self.params), args))
            named.update(kwargs)
            grid = grid(named)
        # The arguments are checked before the driver is touched. torch's current device is asked once a
        # launch, by the first torch tensor or by the stream, whichever asks first.
        device = _LaunchDevice()
        native_args = self._binder and self._binder.bind(args, kwargs, device.index)
        if native_args is None:
            native_args = self._bind(args, kwargs, device)
        native = self._module._native_module()
        native.launch(self.name, native_args, _stream_handle(stream, device), _grid(grid))

    def __repr__(self):
        sig = ", ".join(f"{p['name']}: {p['dtype']}{'[' + ', '.join(p['shape']) + ']' if p['kind'] == 'tensor' else ''}"
                        for p in self.params)
        return f"<megac kernel {self.name}({sig})>"


def _grid(grid):
    return None if grid is None else _ints("grid", grid)


_torch = None


def _torch_module():
    """torch, imported on the first launch (loading and preparing need no torch), then kept."""
    global _torch
    if _torch is None:
        import torch
        _torch = torch
    return _torch


def _current_device():
    return _torch_module().cuda.current_device()


class _LaunchDevice:
    """torch's current device, asked at most once a launch: a launch's hot path asks once, not once a tensor."""
    __slots__ = ("_index",)

    def __init__(self):
        self._index = None

    def index(self):
        if self._index is None:
            self._index = _current_device()
        return self._index


_raw_stream = None


def _current_stream(device):
    """torch's current stream on `device`, as a CUstream handle. torch's raw getter, where it has one (Triton's
    launcher uses it), returns the handle without building a torch.cuda.Stream object each launch."""
    global _raw_stream
    if _raw_stream is None:
        torch = _torch_module()
        _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
            lambda index: torch.cuda.current_stream(index).cuda_stream)
    return _raw_stream(device)


def _stream_handle(stream, device):
    if stream is None:
        return _current_stream(device.index())
    if isinstance(stream, int):
        return stream
    return stream.cuda_stream


class Module:
    """A bundle; its kernels are attributes. The GPU module is loaded on the first launch."""

    def __init__(self, rt, bundle, early_launch=True, choose_variants_as=None):
        self._rt = rt
        self.bundle = bundle
        self.early_launch = early_launch
        self.choose_variants_as = choose_variants_as
        self.manifest = json.loads(bundle.manifest_json)
        self.name = self.manifest.get("module", "")
        self._kernels = {k["name"]: Kernel(self, k) for k in self.manifest["kernels"]}
        self._native = None
        self._signatures = {}

    @property
    def kernels(self):
        return list(self._kernels)

    def kernel(self, name):
        if name not in self._kernels:
            raise AttributeError(f"megac: module '{self.name}' has no kernel '{name}'; kernels: "
                                 f"{', '.join(self._kernels)}")
        return self._kernels[name]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return self.kernel(name)

    def __dir__(self):
        return list(super().__dir__()) + list(self._kernels)

    def ptx(self, target="sm_90a"):
        return self.bundle.image(target, "ptx").decode()

    def _signature(self, name):
        if name not in self._signatures:
            self._signatures[name] = self._rt.Signature(self.bundle, name)
        return self._signatures[name]

    def _native_module(self):
        if self._native is None:
            self._native = self._rt.load_module(self.bundle, early_launch=self.early_launch,
                                                choose_variants_as=self.choose_variants_as)
        return self._native

    def __repr__(self):
        return f"<megac module {self.name}: {', '.join(self._kernels)}>"
