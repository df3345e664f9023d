"""gdn_norm_gate: per value head y = w * rmsnorm(o) * silu(z) (plain weight over the 128 head dims, eps 1e-6),
bf16 out, or (gdn_norm_gate_fp8) e4m3(clamp(y / scale)) with a static scale."""
import torch

from . import fp
from .common import Bytes, Close, Kernel, div, generator, randn
from .shapes import BENCH, SHAPES

EPS = 1e-6
D = 128
FP8_BOUNDARY_ULPS = 16


def _make(name, fp8):
    def inputs(M, HV, device="cuda", seed=0):
        g = generator(seed, device)
        args = dict(o=randn((M, HV, D), g, device), z=randn((M, HV, D), g, device),
                    w=randn((D,), g, device, std=0.2, mean=1.0), M=M, HV=HV, eps=EPS)
        if fp8:
            args["scale"] = torch.tensor(3.0 / 448.0, device=device)
            args["y"] = torch.empty((M, HV, D), device=device, dtype=torch.float8_e4m3fn)
        else:
            args["y"] = torch.empty((M, HV, D), device=device, dtype=torch.bfloat16)
        return args

    def reference(args):
        o = args["o"].float()
        y = args["w"].float() * (o * torch.rsqrt((o * o).mean(-1, keepdim=True) + EPS)) * \
            torch.nn.functional.silu(args["z"].float())
        if not fp8:
            return dict(y=y.to(torch.bfloat16))
        v = torch.clamp(div(y, args["scale"].float()), -448.0, 448.0)
        return dict(y=fp.e4m3(v), y_near_boundary=fp.near_boundary(v, fp.e4m3_round, FP8_BOUNDARY_ULPS))

    def bytes_moved(M, HV):
        return M * HV * D * (2 + 2 + (1 if fp8 else 2)) + D * 2

    checks = {"y": Bytes(allow="y_near_boundary") if fp8 else Close(1e-2, 1e-2)}
    return Kernel(name, SHAPES[name], BENCH[name], inputs, reference, checks, bytes_moved)


VARIANTS = {"gdn_norm_gate": _make("gdn_norm_gate", False), "gdn_norm_gate_fp8": _make("gdn_norm_gate_fp8", True)}
