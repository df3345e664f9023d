"""nvfp4_quant: NVFP4 activation quantization, bit-exact definition.

Per block of 16 along K, all in fp32 with IEEE operations in this order:
  sf  = e4m3_rne((gs * amax(|block|)) / 6)          (satfinite)
  inv = gs / float(sf), or 0 when sf == 0
  q   = e2m1_rne(clamp(x * inv, -6, 6))            two per byte, the even element in the low nibble
gs = 448 * 6 / amax(x) is the caller's global scale (fp32). Outputs q[M, K/2] u8, sf[M, K/16] e4m3 row-major,
or (variant nvfp4_quant_swizzled) sf in the 128x4 swizzled layout, zero padded to [ceil(M/128)*128,
ceil(K/64)*4].
"""
import torch

from . import fp
from .common import Bytes, Kernel, cdiv, div, generator, randn
from .shapes import BENCH, SHAPES


def global_scale(x):
    amax = x.float().abs().amax().reshape(())
    return div(torch.full((), 448.0 * 6.0, device=x.device), amax)


def quantize(x, gs):
    """Returns (q packed u8 [M, K/2], sf e4m3 [M, K/16])."""
    M, K = x.shape
    xb = x.float().reshape(M, K // 16, 16)
    gsf = gs.float().reshape(())
    amax = xb.abs().amax(-1)
    sf = fp.e4m3_round(div(gsf * amax, 6.0))
    inv = torch.where(sf == 0, torch.zeros_like(sf), div(gsf.expand_as(sf), sf))
    v = torch.clamp(xb * inv[..., None], -6.0, 6.0)
    q = fp.pack_e2m1(fp.e2m1_nibbles(v).reshape(M, K))
    return q, fp.e4m3(sf)


def swizzle_128x4(sf):
    """Row-major scales [M, S] -> the 128x4 tiled layout: tile (mt, st) at (mt * ceil(S/4) + st) * 512 bytes,
    row r of the tile at (r % 32) * 16 + (r // 32) * 4, column c at + c. Padding is zero."""
    M, S = sf.shape
    Mp, Sp = cdiv(M, 128) * 128, cdiv(S, 4) * 4
    b = torch.zeros((Mp, Sp), dtype=torch.uint8, device=sf.device)
    b[:M, :S] = sf.view(torch.uint8)
    t = b.reshape(Mp // 128, 4, 32, Sp // 4, 4).permute(0, 3, 2, 1, 4)
    return t.contiguous().reshape(Mp, Sp).view(torch.float8_e4m3fn)


def _make(name, swizzled):
    def inputs(M, K, device="cuda", seed=0):
        g = generator(seed, device)
        x = randn((M, K), g, device)
        # a few all-zero 16-blocks exercise the sf == 0 path (the rest stays random)
        if K >= 32 and M >= 3:
            x[1, 16:32] = 0
        S = K // 16
        sf_shape = (cdiv(M, 128) * 128, cdiv(S, 4) * 4) if swizzled else (M, S)
        return dict(x=x, gs=global_scale(x), q=torch.empty((M, K // 2), device=device, dtype=torch.uint8),
                    sf=torch.empty(sf_shape, device=device, dtype=torch.float8_e4m3fn), M=M, K=K,
                    swizzled=swizzled)  # the nvfp4_quant slot's variant flag (megac.qwen35)

    def reference(args):
        q, sf = quantize(args["x"], args["gs"])
        return dict(q=q, sf=swizzle_128x4(sf) if swizzled else sf)

    def bytes_moved(M, K):
        return M * K * 2 + M * K // 2 + M * K // 16

    return Kernel(name, SHAPES[name], BENCH[name], inputs, reference, {"q": Bytes(), "sf": Bytes()}, bytes_moved)


VARIANTS = {"nvfp4_quant": _make("nvfp4_quant", False),
            "nvfp4_quant_swizzled": _make("nvfp4_quant_swizzled", True)}
