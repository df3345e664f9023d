"""gdn_conv: causal conv1d update (depthwise, kernel 4, no bias, SiLU), one token per request.
win = concat(conv[slot], x) [B, C, 4]; y = silu(sum_j w[:, j] * win[:, j]); conv[slot] = win[:, :, 1:]."""
import torch

from .common import Bytes, Close, distinct_slots, generator, randn
from .shapes import BENCH, SHAPES as _SHAPES

NAME = "gdn_conv"
SHAPES = _SHAPES[NAME]
BENCH_SHAPES = BENCH[NAME]
CHECKS = {"y": Close(1e-2, 1e-2), "conv": Bytes()}
INPLACE = ("conv",)


def inputs(B, C, device="cuda", seed=0):
    g = generator(seed, device)
    slots = 2 * B + 3  # more slots than requests: untouched slots must stay untouched
    return dict(conv=randn((slots, C, 3), g, device), x=randn((B, C), g, device), w=randn((C, 4), g, device, std=0.5),
                slot=distinct_slots(B, slots, g, device), y=torch.empty((B, C), device=device, dtype=torch.bfloat16),
                B=B, C=C, slots=slots)


def reference(args):
    conv, slot = args["conv"].clone(), args["slot"].long()
    win = torch.cat([conv[slot].float(), args["x"].float()[..., None]], dim=-1)
    y = torch.nn.functional.silu((args["w"].float() * win).sum(-1))
    conv[slot] = win[..., 1:].to(conv.dtype)
    return dict(y=y.to(torch.bfloat16), conv=conv)


def bytes_moved(B, C):
    return B * C * (3 * 2 * 2 + 2 + 2) + C * 4 * 2 + B * 4
