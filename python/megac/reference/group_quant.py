"""group_quant: per-token-group FP8 (group 128 along K).
s = max(amax(group), 1e-10) / 448 (UE8M0 variant: rounded up to a power of two); q = e4m3(clamp(x / s)).
Outputs q[M, K] e4m3, s[M, K/128] f32."""
import torch

from . import fp
from .common import Bytes, Kernel, div, generator, randn
from .shapes import BENCH, SHAPES

GROUP = 128
BOUNDARY_ULPS = 1


def quantize(x, ue8m0):
    M, K = x.shape
    xg = x.float().reshape(M, K // GROUP, GROUP)
    s = div(torch.clamp(xg.abs().amax(-1), min=1e-10), 448.0)
    if ue8m0:
        s = fp.ue8m0_round_up(s)
    v = torch.clamp(div(xg, s[..., None].expand_as(xg)), -448.0, 448.0)
    near = fp.near_boundary(v, fp.e4m3_round, BOUNDARY_ULPS).reshape(M, K)
    return fp.e4m3(v).reshape(M, K), s, near


def _make(name, ue8m0):
    def inputs(M, K, device="cuda", seed=0):
        g = generator(seed, device)
        return dict(x=randn((M, K), g, device), q=torch.empty((M, K), device=device, dtype=torch.float8_e4m3fn),
                    s=torch.empty((M, K // GROUP), device=device, dtype=torch.float32), M=M, K=K,
                    ue8m0=ue8m0)  # the group_quant slot's variant flag (megac.qwen35)

    def reference(args):
        q, s, near = quantize(args["x"], ue8m0)
        return dict(q=q, s=s, q_near_boundary=near)

    def bytes_moved(M, K):
        return M * K * 3 + M * K // GROUP * 4

    # the scale is a max and one IEEE division: bit exact
    checks = {"q": Bytes(allow="q_near_boundary"), "s": Bytes()}
    return Kernel(name, SHAPES[name], BENCH[name], inputs, reference, checks, bytes_moved)


VARIANTS = {"group_quant": _make("group_quant", False), "group_quant_ue8m0": _make("group_quant_ue8m0", True)}
