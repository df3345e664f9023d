"""Exact E4M3 / E2M1 / UE8M0 rounding and encoding with torch ops (the definition the kernels must match).

Bit-level, the same algorithm as megac/fp_numpy.py (which documents the rule and is checked exhaustively):
the exponent comes from the fp32 exponent field and the quantum is built from bits, so nothing depends on
pow/log accuracy or on torch's own float8 conversion. Round half to even, satfinite, sign kept.
"""
import torch

E4M3 = dict(mant_bits=3, min_exp=-6, max_val=448.0)
E2M1 = dict(mant_bits=1, min_exp=0, max_val=6.0)


def _floor_log2(a):
    return ((a.view(torch.int32) >> 23) & 0xFF) - 127


def _pow2(e):
    return ((e.to(torch.int32) + 127) << 23).view(torch.float32)


def round_to_format(x, mant_bits, min_exp, max_val):
    x = x.float()
    a = x.abs()
    e = torch.clamp(_floor_log2(a), min=min_exp)
    quantum = _pow2(e - mant_bits)
    r = torch.round(a / quantum) * quantum  # torch.round is round-half-to-even
    r = torch.clamp(r, max=max_val)
    return torch.copysign(r, x)


def e4m3_round(x):
    return round_to_format(x, **E4M3)


def e2m1_round(x):
    return round_to_format(x, **E2M1)


def _encode(r, mant_bits, min_exp, exp_bias, sign_shift):
    a = r.abs()
    e = _floor_log2(a)
    mant = (a.view(torch.int32) >> (23 - mant_bits)) & ((1 << mant_bits) - 1)
    norm_code = ((e + exp_bias) << mant_bits) | mant
    sub_code = torch.round(a * float(2 ** (mant_bits - min_exp))).to(torch.int32)
    code = torch.where(e >= min_exp, norm_code, sub_code)
    sign = torch.signbit(r).to(torch.int32) << sign_shift
    return (code | sign).to(torch.uint8)


def e4m3_bytes(x):
    """fp32 -> E4M3FN bytes (uint8 tensor)."""
    return _encode(e4m3_round(x), 3, -6, 7, 7)


def e4m3(x):
    """fp32 -> torch.float8_e4m3fn tensor with the exact rounding above."""
    return e4m3_bytes(x).view(torch.float8_e4m3fn)


def e2m1_nibbles(x):
    return _encode(e2m1_round(x), 1, 0, 1, 3)


def pack_e2m1(nibbles):
    """[..., K] nibbles -> [..., K/2] uint8, the even element in the low nibble."""
    return nibbles[..., 0::2] | (nibbles[..., 1::2] << 4)


def unpack_e2m1(packed):
    lo = packed & 0xF
    hi = packed >> 4
    return torch.stack([lo, hi], dim=-1).flatten(-2)


_E2M1_MAGS = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0]


def e2m1_decode(nibbles):
    mags = torch.tensor(_E2M1_MAGS, device=nibbles.device)
    n = nibbles.to(torch.int64)
    return torch.where((n & 8) != 0, -1.0, 1.0) * mags[n & 7]


def ue8m0_round_up(s):
    """Smallest power of two >= s, for s > 0 normal fp32."""
    s = s.float()
    e = _floor_log2(s)
    exact = (s.view(torch.int32) & 0x7FFFFF) == 0
    return _pow2(torch.where(exact, e, e + 1))


def ue8m0_bytes(pow2_scale):
    """A power-of-two fp32 scale -> its E8M0 byte (the biased exponent)."""
    return ((pow2_scale.float().view(torch.int32) >> 23) & 0xFF).to(torch.uint8)


def ulp(x):
    """fp32 ulp of |x| (spacing above |x| for normals)."""
    a = x.float().abs()
    e = torch.clamp(_floor_log2(a), min=-126)
    return _pow2(torch.clamp(e - 23, min=-126))


def near_boundary(v, round_fn, ulps=1):
    """Elements whose fp32 value lies within `ulps` fp32 ulps of a rounding boundary of round_fn.

    A kernel that computes v with a different (equally valid) fp32 operation order may land on the other
    side of such a boundary; the correctness rule allows those bytes to differ and asks for their count.
    """
    d = ulp(v) * ulps
    return round_fn(v - d) != round_fn(v + d)
