"""softmax: row softmax of a bf16 matrix, fp32 math, bf16 out.

  y[m, :] = exp(x[m, :] - max(x[m, :])) / sum(exp(x[m, :] - max(x[m, :])))

The kernel keeps a row in registers (N <= 4096, N a multiple of 16): one read of x, one write of y.
"""
import torch

from .common import M_LIST, Close, generator, randn

NAME = "softmax"
N_LIST = (256, 1024, 2048, 4096)
SHAPES = [dict(M=m, N=n) for n in N_LIST for m in M_LIST]
BENCH_SHAPES = [dict(M=m, N=n) for n in (1024, 4096) for m in (1, 128, 4096, 16384)]
# bf16 output: about 2^-9 relative from the final rounding alone; exp2.approx and the summation order add
# far less. atol only guards outputs that underflow toward zero.
CHECKS = {"y": Close(1e-2, 1e-6)}
INPLACE = ()


def inputs(M, N, device="cuda", seed=0):
    g = generator(seed, device)
    # std 3: rows with a clear maximum and outputs spread over many decades.
    return dict(x=randn((M, N), g, device, std=3.0), y=torch.empty((M, N), device=device, dtype=torch.bfloat16),
                M=M, N=N)


def reference(args):
    return dict(y=torch.softmax(args["x"].float(), dim=-1).to(torch.bfloat16))


def bytes_moved(M, N):
    return M * N * (2 + 2)
