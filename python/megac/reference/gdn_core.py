"""gdn_core: the gated delta rule for one decode token, pool S[slots, HV, V, K] f32 updated in place."""
import torch

from . import gdn
from .common import Close, distinct_slots, generator, randn
from .shapes import BENCH, SHAPES as _SHAPES

NAME = "gdn_core"
SHAPES = _SHAPES[NAME]
BENCH_SHAPES = BENCH[NAME]
# o is bf16; the state stays fp32 and is compared against the float64 recurrence
CHECKS = {"o": Close(1e-2, 1e-2), "S": Close(1e-4, 1e-5)}
INPLACE = ("S",)


def inputs(B, HV, HK, device="cuda", seed=0):
    g = generator(seed, device)
    D = gdn.D
    slots = 2 * B + 1
    A_log, dt_bias = gdn.head_params(HV, g, device)
    return dict(S=randn((slots, HV, D, D), g, device, torch.float32, std=0.1), slot=distinct_slots(B, slots, g, device),
                q=randn((B, HK, D), g, device), k=randn((B, HK, D), g, device), v=randn((B, HV, D), g, device),
                a=randn((B, HV), g, device), b=randn((B, HV), g, device), A_log=A_log, dt_bias=dt_bias,
                o=torch.empty((B, HV, D), device=device, dtype=torch.bfloat16), B=B, HV=HV, HK=HK, slots=slots)


def reference(args):
    S, slot = args["S"].clone(), args["slot"].long()
    Sn, o = gdn.step(S[slot].double(), args["q"], args["k"], args["v"], args["a"], args["b"],
                     args["A_log"], args["dt_bias"])
    S[slot] = Sn.float()
    return dict(o=o.to(torch.bfloat16), S=S)


def bytes_moved(B, HV, HK):
    D = gdn.D
    return B * HV * D * D * 4 * 2 + B * (2 * HK + 2 * HV) * D * 2 + B * HV * 4
