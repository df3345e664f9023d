"""torch dtype <-> manifest dtype names (docs/bundle.md), keyed by the torch dtype's string so that this module
needs no torch."""

TORCH_TO_MANIFEST = {
    "torch.bfloat16": "bf16",
    "torch.float16": "f16",
    "torch.float32": "f32",
    "torch.float64": "f64",
    "torch.bool": "i1",
    "torch.int8": "i8",
    "torch.int16": "i16",
    "torch.int32": "i32",
    "torch.int64": "i64",
    "torch.uint8": "u8",
    "torch.uint16": "u16",
    "torch.uint32": "u32",
    "torch.uint64": "u64",
    "torch.float8_e4m3fn": "f8e4m3",
    "torch.float8_e5m2": "f8e5m2",
    "torch.float8_e8m0fnu": "e8m0",
    "torch.float4_e2m1fn_x2": "f4e2m1x2",
}

# Byte-typed manifest dtypes that a uint8 tensor may also stand for (packed FP4 and raw scale bytes are often
# kept as uint8, and torch's own float4/e8m0 dtypes are recent).
U8_COMPATIBLE = {"f4e2m1x2", "e8m0", "f8e4m3", "f8e5m2", "i8"}

SIZES = {"bf16": 2, "f16": 2, "f32": 4, "f64": 8, "i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "u8": 1,
         "u16": 2, "u32": 4, "u64": 8, "f8e4m3": 1, "f8e5m2": 1, "f4e2m1x2": 1, "e8m0": 1}

FLOAT_SCALARS = {"bf16", "f16", "f32", "f64"}


# torch dtype object -> manifest name, filled as manifest_name meets them: a launch's fast path
# (megac._runtime.ArgBinder) looks its tensors' dtypes up here.
MANIFEST_BY_TORCH_DTYPE = {}


def manifest_name(torch_dtype):
    name = MANIFEST_BY_TORCH_DTYPE.get(torch_dtype)
    if name is not None:
        return name
    key = str(torch_dtype)
    if key not in TORCH_TO_MANIFEST:
        raise TypeError(f"megac: torch dtype {key} has no manifest dtype; supported: {', '.join(TORCH_TO_MANIFEST)}")
    MANIFEST_BY_TORCH_DTYPE[torch_dtype] = TORCH_TO_MANIFEST[key]
    return TORCH_TO_MANIFEST[key]


def accepted_names(param_dtype):
    """The tensor dtype names a parameter of `param_dtype` takes (what accepts() says yes to)."""
    return [param_dtype] + (["u8"] if param_dtype in U8_COMPATIBLE else [])


def accepts(param_dtype, tensor_dtype_name):
    """Whether a tensor of manifest dtype `tensor_dtype_name` may be passed for a parameter of `param_dtype`."""
    return tensor_dtype_name in accepted_names(param_dtype)
