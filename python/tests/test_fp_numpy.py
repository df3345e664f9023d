"""Exhaustive checks of the E4M3 / E2M1 rounding definition (NumPy twin) against a brute-force nearest search."""
import numpy as np
import pytest

from megac import fp_numpy as fp


def _grid(decode, codes):
    vals = decode(np.array(codes, dtype=np.uint8))
    keep = np.isfinite(vals) & (vals >= 0) & ~np.signbit(vals)
    return vals[keep], np.array(codes)[keep]


def _brute(x, grid, codes, max_val):
    """Nearest grid value to |x|, ties to the even code, saturating; sign copied."""
    a = np.minimum(np.abs(x).astype(np.float64), max_val)
    d = np.abs(a[:, None] - grid[None, :].astype(np.float64))
    best = d.min(axis=1, keepdims=True)
    cand = d == best
    # among tied candidates prefer the even code (the mantissa LSB is the code LSB)
    score = np.where(cand, (codes[None, :] & 1), 9)
    pick = np.argmin(score, axis=1)
    return np.copysign(grid[pick], x).astype(np.float32)


def _probe_points(grid):
    """Every grid value, every midpoint, one fp32 ulp either side of each, beyond the maximum, and randoms."""
    g = np.sort(grid.astype(np.float32))
    mids = ((g[1:].astype(np.float64) + g[:-1]) / 2).astype(np.float32)
    pts = np.concatenate([g, mids, g[-1:] * 1.01, g[-1:] * 1.5, [1e30, np.inf], g[1:2] / 4]).astype(np.float32)
    pts = np.concatenate([pts, np.nextafter(pts, np.inf), np.nextafter(pts, -np.inf)])
    rng = np.random.default_rng(0)
    rnd = (rng.standard_normal(20000) * g[-1] / 3).astype(np.float32)
    allp = np.concatenate([pts, rnd]).astype(np.float32)
    return np.concatenate([allp, -allp])


@pytest.mark.parametrize("name", ["e4m3", "e2m1"])
def test_round_matches_brute_force(name):
    if name == "e4m3":
        grid, codes = _grid(fp.e4m3_decode, range(128))
        rnd, maxv = fp.e4m3_round, 448.0
    else:
        grid, codes = _grid(fp.e2m1_decode, range(8))
        rnd, maxv = fp.e2m1_round, 6.0
    x = _probe_points(grid)
    got = rnd(x)
    want = _brute(x, grid, codes, maxv)
    bad = np.flatnonzero(got.view(np.int32) != want.view(np.int32))
    assert bad.size == 0, f"{name}: {bad.size} mismatches, first x={x[bad[0]]!r} got={got[bad[0]]} want={want[bad[0]]}"


def test_e4m3_encode_roundtrip_all_codes():
    codes = np.array([c for c in range(256) if (c & 0x7F) != 0x7F], dtype=np.uint8)
    vals = fp.e4m3_decode(codes)
    assert np.array_equal(fp.e4m3_encode(vals), codes)


def test_e2m1_encode_roundtrip_all_codes():
    codes = np.arange(16, dtype=np.uint8)
    assert np.array_equal(fp.e2m1_encode(fp.e2m1_decode(codes)), codes)


def test_known_values():
    assert fp.e4m3_encode(np.float32(448.0)) == 0x7E
    assert fp.e4m3_encode(np.float32(1e9)) == 0x7E  # satfinite
    assert fp.e4m3_encode(np.float32(-0.0001)) == 0x80  # sign kept on underflow
    assert fp.e4m3_encode(np.float32(2.0**-9)) == 0x01
    assert fp.e2m1_round(np.float32(2.5)) == 2.0  # tie to even code (2.0 is code 4)
    assert fp.e2m1_round(np.float32(5.0)) == 4.0  # tie between 4 (code 6) and 6 (code 7)
    assert fp.e2m1_round(np.float32(0.25)) == 0.0
    assert fp.e2m1_round(np.float32(0.75)) == 1.0


def test_pack_low_nibble_first():
    assert list(fp.pack_e2m1(np.array([1, 2, 3, 4], dtype=np.uint8))) == [0x21, 0x43]


def test_ue8m0_round_up():
    s = np.array([1.0, 1.5, 0.25, 0.3, 3e-5], dtype=np.float32)
    assert list(fp.ue8m0_round_up(s)) == [1.0, 2.0, 0.25, 0.5, 2.0**-15]
