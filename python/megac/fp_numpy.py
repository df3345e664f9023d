"""NumPy twin of megac.reference.fp: exact E4M3 / E2M1 / UE8M0 rounding and encoding.

The torch references use the same bit-level algorithm (reference/fp.py); this twin exists so the rounding
definition itself can be checked exhaustively on a machine without torch (python/tests/test_fp_numpy.py).

Rounding rule for a format with `mant_bits` mantissa bits, smallest normal exponent `min_exp` and largest
finite value `max_val`: take e = max(floor(log2|x|), min_exp) from the fp32 exponent field, quantum =
2^(e - mant_bits) (built from bits, so exact), q = rint(|x| / quantum) * quantum (rint = round half to even;
the division by a power of two is exact), saturate to max_val (satfinite: +-inf also saturates), keep the sign
(so -0.1 rounds to -0 and encodes with the sign bit set). NaN stays NaN.
"""
import numpy as np

E4M3 = dict(mant_bits=3, min_exp=-6, max_val=448.0)
E2M1 = dict(mant_bits=1, min_exp=0, max_val=6.0)


def _floor_log2(a):
    """floor(log2 a) for a > 0 normal fp32, read from the exponent field (fp32 subnormals give -127)."""
    return ((a.view(np.int32) >> 23) & 0xFF).astype(np.int32) - 127


def _pow2(e):
    """2**e as fp32 for -126 <= e <= 127, exact."""
    return ((e.astype(np.int32) + 127) << 23).astype(np.int32).view(np.float32)


def round_to_format(x, mant_bits, min_exp, max_val):
    x = np.asarray(x, dtype=np.float32)
    a = np.abs(x)
    e = np.maximum(_floor_log2(a), min_exp)
    quantum = _pow2(e - mant_bits)
    with np.errstate(invalid="ignore", over="ignore"):
        r = np.rint(a / quantum) * quantum
    r = np.minimum(r, np.float32(max_val))  # NaN propagates through np.minimum
    return np.copysign(r, x).astype(np.float32)


def e4m3_round(x):
    return round_to_format(x, **E4M3)


def e2m1_round(x):
    return round_to_format(x, **E2M1)


def _encode(r, mant_bits, min_exp, exp_bias, sign_shift):
    """Bits of already-representable values r (output of round_to_format)."""
    a = np.abs(r).astype(np.float32)
    e = _floor_log2(a)
    normal = e >= min_exp
    mant = (a.view(np.int32) >> (23 - mant_bits)) & ((1 << mant_bits) - 1)
    norm_code = ((e + exp_bias) << mant_bits) | mant
    sub_code = np.rint(a / _pow2(np.full_like(e, min_exp - mant_bits))).astype(np.int32)
    code = np.where(normal, norm_code, sub_code)
    sign = (np.signbit(r).astype(np.int32)) << sign_shift
    return (code | sign).astype(np.uint8)


def e4m3_encode(x):
    """fp32 -> E4M3FN byte (round to nearest even, satfinite). NaN input is not supported (never produced)."""
    return _encode(e4m3_round(x), 3, -6, 7, 7)


def e2m1_encode(x):
    """fp32 -> E2M1 nibble in a uint8 (0..15)."""
    return _encode(e2m1_round(x), 1, 0, 1, 3)


def e4m3_decode(b):
    b = np.asarray(b, dtype=np.uint8).astype(np.int32)
    sign = np.where(b & 0x80, -1.0, 1.0)
    exp = (b >> 3) & 0xF
    mant = b & 0x7
    val = np.where(exp == 0, mant / 8.0 * 2.0**-6, (1 + mant / 8.0) * 2.0 ** (exp - 7))
    val = np.where((b & 0x7F) == 0x7F, np.nan, val)
    return (sign * val).astype(np.float32)


def e2m1_decode(n):
    n = np.asarray(n, dtype=np.uint8).astype(np.int32)
    mags = np.array([0, 0.5, 1, 1.5, 2, 3, 4, 6], dtype=np.float32)
    return np.where(n & 0x8, -1.0, 1.0).astype(np.float32) * mags[n & 0x7]


def pack_e2m1(nibbles):
    """[..., K] nibbles -> [..., K/2] bytes, the even element in the low nibble."""
    n = np.asarray(nibbles, dtype=np.uint8)
    return (n[..., 0::2] | (n[..., 1::2] << 4)).astype(np.uint8)


def ue8m0_round_up(s):
    """Smallest power of two >= s (s > 0, normal fp32)."""
    s = np.asarray(s, dtype=np.float32)
    e = _floor_log2(s)
    exact = (s.view(np.int32) & 0x7FFFFF) == 0
    return _pow2(np.where(exact, e, e + 1))
