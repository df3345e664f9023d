"""shared_act_quant: SiLU-and-mul on [gate | up], then static per-tensor FP8 E4M3."""
import torch

from . import fp
from .common import Bytes, div, generator, randn
from .shapes import BENCH, SHAPES as _SHAPES

NAME = "shared_act_quant"
SHAPES = _SHAPES[NAME]
BENCH_SHAPES = BENCH[NAME]
# Bytes may differ only where the fp32 value sits within BOUNDARY_ULPS fp32 ulps of a rounding boundary.
BOUNDARY_ULPS = 1
CHECKS = {"q": Bytes(allow="q_near_boundary")}
INPLACE = ()


def act(x):
    """silu(gate) * up in fp32, x = [gate | up] along the last dimension."""
    gate, up = x.float().chunk(2, dim=-1)
    return torch.nn.functional.silu(gate) * up


def quant_e4m3(a, scale):
    """e4m3_rne(clamp(a / scale, -448, 448)) and the near-boundary mask; scale is the dequantization scale."""
    v = torch.clamp(div(a, scale.float()), -448.0, 448.0)
    return fp.e4m3(v), fp.near_boundary(v, fp.e4m3_round, BOUNDARY_ULPS)


def inputs(M, I, device="cuda", seed=0):
    g = generator(seed, device)
    x = randn((M, 2 * I), g, device)
    # scale so that the largest few values saturate: the clamp is exercised, the rest spans the e4m3 range
    scale = (act(x).abs().amax() * 0.8 / 448.0).reshape(()).float()
    q = torch.empty((M, I), device=device, dtype=torch.float8_e4m3fn)
    return dict(x=x, scale=scale, q=q, M=M, I=I)


def reference(args):
    q, near = quant_e4m3(act(args["x"]), args["scale"])
    return dict(q=q, q_near_boundary=near)


def bytes_moved(M, I):
    return M * 2 * I * 2 + M * I + 4
