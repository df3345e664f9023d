"""vector_add: out = x + y (f32). The smoke test of the whole toolchain."""
import torch

from .common import Bytes, generator, randn

NAME = "vector_add"
SHAPES = [dict(n=n) for n in (1, 7, 16, 1000, 1024, 4097, 65536, 1 << 20, (1 << 24) + 3)]
BENCH_SHAPES = [dict(n=n) for n in (1 << 16, 1 << 20, 1 << 24, 1 << 26)]
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
