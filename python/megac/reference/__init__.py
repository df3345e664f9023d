"""PyTorch references for the megac kernels (shared/KERNELS.md). `get(name)` returns a common.Kernel.

Modules are imported on demand so that listing names needs no torch.
"""
import importlib

# kernel name -> module (single-kernel modules) or (module, VARIANTS key)
_REGISTRY = {
    "vector_add": "vector_add",
    "shared_act_quant": "shared_act_quant",
    "gdn_conv": "gdn_conv",
    "gdn_core": "gdn_core",
    "gdn_verify": "gdn_verify",
}
for _mod, _names in {
    "hop": ("hop", "hop_mid", "hop_plain", "hop_fp8"),
    "route": ("route", "route_f32"),
    "nvfp4_quant": ("nvfp4_quant", "nvfp4_quant_swizzled"),
    "group_quant": ("group_quant", "group_quant_ue8m0"),
    "gdn_norm_gate": ("gdn_norm_gate", "gdn_norm_gate_fp8"),
    "attn_decode_cp": ("attn_decode_q1", "attn_decode_verify"),
    "draft_fin": ("draft_fin", "draft_fin_residual"),
    "reduce": ("reduce_rows", "reduce_cols"),
    "softmax": ("softmax", "softmax_small"),
    "matmul": ("matmul", "matmul_nt", "matmul_f16"),
}.items():
    for _n in _names:
        _REGISTRY[_n] = (_mod, _n)

NAMES = tuple(_REGISTRY)


def get(name):
    """The reference Kernel for a kernel name; KeyError lists the known names."""
    if name not in _REGISTRY:
        raise KeyError(f"no reference for kernel '{name}'; known: {', '.join(NAMES)}")
    entry = _REGISTRY[name]
    if isinstance(entry, str):
        from .common import Kernel
        return Kernel.from_module(importlib.import_module(f"{__name__}.{entry}"))
    mod, key = entry
    return importlib.import_module(f"{__name__}.{mod}").VARIANTS[key]
