"""gdn_verify: the gated delta rule over T draft tokens per request; the pool is read, never written.
Every step's state goes to inter[B, T, HV, V, K] f32; outputs o[B, T, HV, 128] bf16."""
import torch

from . import gdn
from .common import Bytes, Close, distinct_slots, generator, randn
from .shapes import BENCH, SHAPES as _SHAPES

NAME = "gdn_verify"
SHAPES = _SHAPES[NAME]
BENCH_SHAPES = BENCH[NAME]
CHECKS = {"o": Close(1e-2, 1e-2), "inter": Close(1e-4, 1e-5), "S": Bytes()}
INPLACE = ("S",)  # restored between runs; the Bytes check proves the kernel left it alone


def inputs(B, T, HV, HK, device="cuda", seed=0):
    g = generator(seed, device)
    D = gdn.D
    slots = 2 * B + 1
    A_log, dt_bias = gdn.head_params(HV, g, device)
    return dict(S=randn((slots, HV, D, D), g, device, torch.float32, std=0.1), slot=distinct_slots(B, slots, g, device),
                q=randn((B, T, HK, D), g, device), k=randn((B, T, HK, D), g, device),
                v=randn((B, T, HV, D), g, device), a=randn((B, T, HV), g, device), b=randn((B, T, HV), g, device),
                A_log=A_log, dt_bias=dt_bias,
                inter=torch.empty((B, T, HV, D, D), device=device, dtype=torch.float32),
                o=torch.empty((B, T, HV, D), device=device, dtype=torch.bfloat16), B=B, T=T, HV=HV, HK=HK, slots=slots)


def reference(args):
    S = args["S"][args["slot"].long()].double()
    inters, outs = [], []
    for t in range(args["T"]):
        S, o = gdn.step(S, args["q"][:, t], args["k"][:, t], args["v"][:, t], args["a"][:, t], args["b"][:, t],
                        args["A_log"], args["dt_bias"])
        inters.append(S.float())
        outs.append(o)
    return dict(o=torch.stack(outs, 1).to(torch.bfloat16), inter=torch.stack(inters, 1), S=args["S"].clone())


def bytes_moved(B, T, HV, HK):
    D = gdn.D
    return B * HV * D * D * 4 * (1 + T) + B * T * (2 * HK + 2 * HV) * D * 2 + B * T * HV * 4
