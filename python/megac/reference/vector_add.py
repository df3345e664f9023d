"""vector_add: out = x + y (f32). The smoke test of the whole toolchain."""
import torch

from .common import Bytes, generator, randn
from .shapes import BENCH, SHAPES as _SHAPES

NAME = "vector_add"
SHAPES = _SHAPES[NAME]
BENCH_SHAPES = BENCH[NAME]
# IEEE fp32 add is exactly rounded, so the kernel must reproduce every bit.
CHECKS = {"out": Bytes()}
INPLACE = ()


def inputs(n, device="cuda", seed=0):
    g = generator(seed, device)
    return dict(x=randn((n,), g, device, torch.float32), y=randn((n,), g, device, torch.float32),
                out=torch.empty(n, device=device, dtype=torch.float32), n=n)


def reference(args):
    return dict(out=args["x"] + args["y"])


def bytes_moved(n):
    return 3 * 4 * n
