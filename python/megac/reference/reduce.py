"""reduce: sums of 128x128 f32 tiles along each axis. x is [T * 128, 128], T tiles stacked along the rows.

  reduce_rows  rows[t * 128 + i] = sum_j x[t * 128 + i, j]   (axis 1, out [T * 128])
  reduce_cols  cols[t, j]        = sum_i x[t * 128 + i, j]   (axis 0, out [T, 128])
"""
import torch

from .common import Close, Kernel, generator, randn
from .shapes import BENCH, SHAPES

TILE = 128
# fp32 sums of 128 values in another order than torch's: a few ulps of the largest partial sums.
CHECKS_RTOL, CHECKS_ATOL = 1e-5, 1e-4


def _make(name, axis):
    out = "rows" if axis == 1 else "cols"

    def inputs(T, device="cuda", seed=0):
        g = generator(seed, device)
        shape = (T * TILE,) if axis == 1 else (T, TILE)
        return dict(x=randn((T * TILE, TILE), g, device, torch.float32),
                    **{out: torch.empty(shape, device=device, dtype=torch.float32)}, T=T)

    def reference(args):
        tiles = args["x"].double().reshape(args["T"], TILE, TILE)
        return {out: tiles.sum(dim=axis + 1).reshape(args[out].shape).float()}

    def bytes_moved(T):
        return T * TILE * TILE * 4 + T * TILE * 4

    return Kernel(name, SHAPES[name], BENCH[name], inputs, reference, {out: Close(CHECKS_RTOL, CHECKS_ATOL)}, bytes_moved)


VARIANTS = {
    "reduce_rows": _make("reduce_rows", axis=1),
    "reduce_cols": _make("reduce_cols", axis=0),
}
