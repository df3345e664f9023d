"""hop: residual add + RMSNorm (+ FP8 output). Variants:

  hop        y = r * rsqrt(mean(r^2) + eps) * (1 + w), bf16 out (Qwen3.5 zero-centred weight)
  hop_mid    the same kernel tuned for M in 64..512
  hop_plain  plain weight: * w
  hop_fp8    (1 + w), then e4m3(clamp(y / scale)) as in shared_act_quant

r = x + residual is computed in fp32 and written back to `residual` as bf16; the norm uses the fp32 r.
"""
import torch

from . import fp
from .common import Bytes, Close, Kernel, div, generator, randn
from .shapes import BENCH, SHAPES

EPS = 1e-6
# The mean over H depends on summation order; allow e4m3 byte differences this close to a boundary.
FP8_BOUNDARY_ULPS = 64


def _make(name, plain, fp8):
    def inputs(M, H, device="cuda", seed=0):
        g = generator(seed, device)
        w = randn((H,), g, device, std=0.2, mean=1.0 if plain else 0.0)
        args = dict(x=randn((M, H), g, device), residual=randn((M, H), g, device), w=w, M=M, H=H, eps=EPS,
                    plain=plain)  # the hop slot's variant flag (megac.qwen35); no kernel parameter
        if fp8:
            args["scale"] = torch.tensor(4.0 * (1.2 if plain else 1.0) / 448.0, device=device)
            args["out"] = torch.empty((M, H), device=device, dtype=torch.float8_e4m3fn)
        else:
            args["out"] = torch.empty((M, H), device=device, dtype=torch.bfloat16)
        return args

    def reference(args):
        r = args["x"].float() + args["residual"].float()
        wf = args["w"].float()
        y = r * torch.rsqrt((r * r).mean(-1, keepdim=True) + EPS) * (wf if plain else 1.0 + wf)
        ref = dict(residual=r.to(torch.bfloat16))
        if fp8:
            v = torch.clamp(div(y, args["scale"].float()), -448.0, 448.0)
            ref["out"] = fp.e4m3(v)
            ref["out_near_boundary"] = fp.near_boundary(v, fp.e4m3_round, FP8_BOUNDARY_ULPS)
        else:
            ref["out"] = y.to(torch.bfloat16)
        return ref

    def bytes_moved(M, H):
        return M * H * (2 + 2 + 2 + (1 if fp8 else 2)) + H * 2

    checks = {"residual": Bytes(), "out": Bytes(allow="out_near_boundary") if fp8 else Close(1e-2, 1e-2)}
    return Kernel(name, SHAPES[name], BENCH[name], inputs, reference, checks, bytes_moved, inplace=("residual",))


VARIANTS = {
    "hop": _make("hop", plain=False, fp8=False),
    "hop_mid": _make("hop_mid", plain=False, fp8=False),  # the same kernel tuned for M in 64..512 (its shapes)
    "hop_plain": _make("hop_plain", plain=True, fp8=False),
    "hop_fp8": _make("hop_fp8", plain=False, fp8=True),
}
