#!/usr/bin/env python3
"""The language's semantics on the GPU (test/gpu/semantics.mega): each kernel runs on fresh random inputs (a new
seed each run, printed and saved) and every output element is compared with a NumPy reference: exactly for integer
results, casts, reductions of small integers, shapes, loops, atomics and bitcasts; within a tolerance scaled by the
terms' magnitudes for f32 and f64 math, the f16 matrix products and @fast_division. Each kernel runs twice, its
outputs poisoned with two byte patterns first, and both runs must match the reference: an element no thread wrote
keeps a pattern and fails one of them.

    PYTHONPATH=build-gpu/python python3 test/gpu/run_semantics.py --bundle out/bundles/semantics.mgb [--out DIR]
Exit status 0 when every element matches; writes DIR/semantics.json.
"""
import os
import sys
import traceback

import numpy as np

import bundle_check

N = 20000 + 123          # elements of the elementwise kernels: a ragged last program of 1024
BATCH = 37               # programs of the tile kernels
PATTERNS = (0xA5, 0x5A)  # the poison bytes of the two runs
I32_MIN = -2 ** 31


def trunc_div(a, b):
    """C's integer division (toward zero), and its remainder (the dividend's sign)."""
    q = np.abs(a) // np.abs(b) * np.sign(a) * np.sign(b)
    return q, a - b * q


def to_int(x, dtype):
    """float -> int as the language converts: toward zero, saturated to the type's range, NaN to 0."""
    info = np.iinfo(dtype)
    t = np.trunc(np.where(np.isnan(x), 0, x).astype(np.float64))
    hi, lo = t >= float(info.max), t <= float(info.min)
    safe = np.where(hi | lo, 0, t).astype(dtype)
    return np.where(hi, info.max, np.where(lo, info.min, safe)).astype(dtype)


def wrong_close(got, want, scale, rtol):
    """Elements of `got` farther from `want` than rtol * scale (NaN never passes)."""
    err = np.abs(got.astype(np.float64) - want)
    return int((~(err <= rtol * scale + 1e-300)).sum())


class Runner:
    """The GPU side of a check: the loaded bundle, the inputs' random generator, buffers, poisoned runs."""

    def __init__(self, torch, mod, rng):
        self.torch, self.mod, self.rng = torch, mod, rng

    def dev(self, a):
        return self.torch.from_numpy(np.array(a, order="C")).cuda()  # (ascontiguousarray makes 0-d arrays 1-d)

    def out(self, shape, dtype):
        return self.torch.empty(shape, dtype=dtype, device="cuda")

    def twice(self, launch, outputs):
        """Runs launch() after poisoning `outputs` with each pattern; the host copies (NumPy) of each run."""
        runs = []
        for byte in PATTERNS:
            for t in outputs:
                t.view(self.torch.uint8).fill_(byte)
            launch()
            self.torch.cuda.synchronize()
            runs.append([t.cpu().view(self.torch.uint8).numpy().copy() for t in outputs])
        return runs

    def exact(self, launch, outputs, wants):
        """Runs `launch` twice (`twice`) and compares every element of `outputs` with `wants` (NumPy arrays of the
        outputs' dtypes), byte for byte: {"wrong": elements differing, over both runs, "of": elements compared,
        "wrong_by_output": the same by output, "first_wrong": each differing output's first element, its bytes}."""
        per_output = [0] * len(outputs)
        total = 0
        first = {}
        for run in self.twice(launch, outputs):
            for k, (got, want) in enumerate(zip(run, wants)):
                want = np.ascontiguousarray(want)
                bad = (got.reshape(want.size, -1) != want.view(np.uint8).reshape(want.size, -1)).any(-1)
                per_output[k] += int(bad.sum())
                total += want.size
                if bad.any() and k not in first:
                    i = int(np.argmax(bad))
                    first[k] = {"index": i, "got": got.reshape(want.size, -1)[i].tobytes().hex(),
                                "want": want.view(np.uint8).reshape(want.size, -1)[i].tobytes().hex()}
        out = {"wrong": sum(per_output), "of": total, "wrong_by_output": per_output}
        if first:
            out["first_wrong"] = first
        return out


def check_int(r):
    torch = r.torch
    x = r.rng.integers(I32_MIN, 2 ** 31, N, dtype=np.int64).astype(np.int32)
    u = r.rng.integers(0, 2 ** 32, N, dtype=np.uint64).astype(np.uint32)
    d = -7
    outs = [r.out(N, torch.int32), r.out(N, torch.int32), r.out(N, torch.int32), r.out(N, torch.int64),
            r.out(N, torch.int32), r.out(N, torch.int32).view(torch.uint32)]
    xd, ud = r.dev(x), r.dev(u.view(np.int32)).view(torch.uint32)
    q, rem = trunc_div(x.astype(np.int64), d)
    with np.errstate(over="ignore"):
        bits = ((x >> 3) ^ (x << 7)) & ~(x | 0x0F0F)
    wq, _ = trunc_div(x.astype(np.int64) * 3000000000, 7)
    _, wide = trunc_div(wq, 1000003)
    ucmp = np.where(u > np.uint32(2 ** 31), 1, 0) + np.where(u < x.view(np.uint32), 2, 0)
    with np.errstate(over="ignore"):
        ushr = (u >> np.uint32(5)) + u // np.uint32(3) + u % np.uint32(1000)
    wants = [q.astype(np.int32), rem.astype(np.int32), bits, wide.astype(np.int64), ucmp.astype(np.int32),
             ushr.astype(np.uint32)]
    return r.exact(lambda: r.mod.sem_int(xd, ud, d, *outs), outs, wants)


def specials(r, n, scale_lo, scale_hi):
    """n f32 values over many magnitudes, both signs, with zeros, infinities and the type boundaries among them."""
    mag = 10.0 ** r.rng.uniform(scale_lo, scale_hi, n)
    x = (r.rng.standard_normal(n) * mag).astype(np.float32)
    edge = np.array([0.0, -0.0, np.inf, -np.inf, 0.5, -0.5, 0.999, -0.999, 127.5, 128.0, -128.5, 255.5, 256.0,
                     65535.5, 65536.0, 2 ** 31, -2 ** 31, 2 ** 31 + 256, 3e38, -3e38, 448.0, 464.0, 57344.0,
                     61440.0, 65520.0, 2 ** -9, 2 ** -10, 2 ** -17, 1e-40], dtype=np.float32)
    x[: edge.size] = edge
    return x


def check_to_int(r):
    torch = r.torch
    x = specials(r, N, -3, 20)
    x[100:110] = np.nan
    dtypes = [(torch.int32, np.int32), (torch.uint8, np.uint8), (torch.int8, np.int8), (torch.uint16, np.uint16),
              (torch.int64, np.int64)]
    outs = [r.out(N, t) for t, _ in dtypes]
    xd = r.dev(x)
    return r.exact(lambda: r.mod.sem_to_int(xd, *outs), outs, [to_int(x, n) for _, n in dtypes])


def f32_math_terms(f):
    """The f32 terms of sem_math's `b` (and sem_spill's), in float64, for input f (float64)."""
    return [np.exp(f), np.exp2(f), np.log(np.abs(f) + 1), np.log2(np.abs(f) + 2), np.sqrt(np.abs(f)), np.tanh(f),
            1 / (1 + np.exp(-f)), f / (1 + np.exp(-f)), np.log1p(np.exp(f)), f * f + 1, np.minimum(f, 0.5),
            np.maximum(f, -0.5), f / 7]


def check_math(r):
    torch = r.torch
    x = r.rng.uniform(-5, 5, N)
    a = r.rng.uniform(-5, 5, N).astype(np.float32)
    outs = [r.out(N, torch.float64), r.out(N, torch.float64), r.out(N, torch.float32), r.out(N, torch.float32)]
    xd, ad = r.dev(x), r.dev(a)
    f64_terms = [np.exp(x), np.log(np.abs(x) + 1), np.sqrt(np.abs(x)), np.tanh(x), x / 3]
    f = a.astype(np.float64)
    f32_terms = f32_math_terms(f)
    # (reference, scale, relative tolerance of the scale) of each output: libdevice's f64 functions are within
    # 2 ulp and its f32 ones within 2-4 ulp a term; rsqrt is rsqrt.approx in both types (PTX: 2^-22.9 relative for
    # f32; within 1 ulp for f64 on the H200, 2.2e-16, though not correctly rounded)
    checks = [(sum(f64_terms), sum(np.abs(t) for t in f64_terms), 1e-14),
              (1 / np.sqrt(np.abs(x) + 1), 1 / np.sqrt(np.abs(x) + 1), 1e-14),
              (sum(f32_terms), sum(np.abs(t) for t in f32_terms), 4e-6),
              (1 / np.sqrt(np.abs(f) + 1), 1 / np.sqrt(np.abs(f) + 1), 4e-7)]
    wrong = total = 0
    worst = [0.0] * 4
    for run in r.twice(lambda: r.mod.sem_math(xd, outs[0], outs[1], ad, outs[2], outs[3]), outs):
        for k, (got, (want, scale, rtol)) in enumerate(zip(run, checks)):
            g = got.view(np.float64 if k < 2 else np.float32)
            wrong += wrong_close(g, want, scale, rtol)
            worst[k] = max(worst[k], float(np.nanmax(np.abs(g - want) / scale)))
            total += N
    return {"wrong": wrong, "of": total, "worst_relative_error": dict(zip(("f64", "f64 rsqrt", "f32", "f32 rsqrt"),
                                                                          worst))}


def check_reduce(r):
    torch = r.torch
    v = r.rng.integers(-4, 5, (BATCH, 16, 32)).astype(np.float32)
    rows, cols = r.out((BATCH, 6, 16), torch.float32), r.out((BATCH, 6, 32), torch.float32)
    idx, whole = r.out((BATCH, 4, 32), torch.int32), r.out((BATCH, 4), torch.float32)
    vd = r.dev(v)
    want_rows = np.stack([v.sum(2), v.max(2), v.min(2), v.argmax(2), v.argmin(2), (v * v).sum(2)], 1)
    want_cols = np.stack([v.sum(1), v.max(1), v.min(1), v.argmax(1), v.argmin(1), v.max(1) - v.min(1)], 1)
    i = v.astype(np.int32)
    want_idx = np.stack([i.sum(1), i.max(1), i.min(1), i.argmax(1)], 1).astype(np.int32)
    rs = v.sum(2)
    want_whole = np.stack([rs.sum(1), rs.max(1), rs.min(1), rs.argmin(1)], 1)
    outs = [rows, cols, idx, whole]
    wants = [want_rows.astype(np.float32), want_cols.astype(np.float32), want_idx, want_whole.astype(np.float32)]
    return r.exact(lambda: r.mod.sem_reduce(vd, *outs), outs, wants)


def check_shape(r):
    torch = r.torch
    v = r.rng.integers(-100, 100, (BATCH, 4, 8, 16)).astype(np.float32)
    axes, moved = r.out((BATCH, 3, 128), torch.float32), r.out((BATCH, 3, 512), torch.float32)
    vd = r.dev(v)
    want_axes = np.concatenate([v.sum(1).reshape(BATCH, 128), v.max(2).reshape(BATCH, 64),
                                np.full((BATCH, 64), np.nan, np.float32), v.min(3).reshape(BATCH, 32),
                                np.full((BATCH, 96), np.nan, np.float32)], 1).reshape(BATCH, 3, 128)
    t = v.reshape(BATCH, 32, 16).transpose(0, 2, 1)
    s2 = v.min(3)  # [BATCH, 4, 8]
    e = s2[:, None, :, :] + np.arange(2, dtype=np.float32)[None, :, None, None]
    want_moved = np.concatenate([t.reshape(BATCH, 512), t.reshape(BATCH, 512) * 2, e.reshape(BATCH, 64),
                                 np.full((BATCH, 448), np.nan, np.float32)], 1).reshape(BATCH, 3, 512)
    # the parts of axes and moved the kernel does not write stay poisoned: compare only the written ones
    wrong = total = 0
    for run in r.twice(lambda: r.mod.sem_shape(vd, axes, moved), [axes, moved]):
        for got, want in zip(run, (want_axes, want_moved)):
            g = got.view(np.float32).reshape(want.shape)
            written = ~np.isnan(want)
            wrong += int((g[written] != want[written]).sum())
            total += int(written.sum())
    return {"wrong": wrong, "of": total}


def check_loops(r):
    torch = r.torch
    programs = 64
    trips = r.rng.integers(-3, 14, programs).astype(np.int32)
    trips[:6] = [-1, 0, 1, 2, 3, 4]
    v = r.rng.integers(-8, 9, (programs, 64)).astype(np.float32)
    y = r.out((programs, 64), torch.float32)
    vd, td = r.dev(v), r.dev(trips)
    want = np.full((programs, 64), np.nan, np.float32)
    for p, n in enumerate(trips):
        if n < 0:
            continue  # returned early: the row keeps its poison
        acc, count = np.zeros(64, np.float32), 0
        for i in range(n):
            for j in range(i, n, 2):
                acc = acc + v[p] * np.float32(j) if (i + j) % 3 == 0 else acc - np.float32(1)
                count += 1
        for i in range(0, 4 * n, 2):
            acc = acc + v[p] * np.float32(i % 5)
        want[p] = acc + np.float32(count)
    wrong = total = 0
    for byte, run in zip(PATTERNS, r.twice(lambda: r.mod.sem_loops(vd, y, td), [y])):
        g = run[0].view(np.float32).reshape(programs, 64)
        live = trips >= 0
        wrong += int((g[live] != want[live]).sum())
        wrong += int((run[0].reshape(programs, 256)[~live] != byte).sum() // 4)  # early returns wrote nothing
        total += want.size
    return {"wrong": wrong, "of": total}


def check_atomic(r):
    torch = r.torch
    x = r.rng.integers(-300, 301, N).astype(np.int32)
    xd = r.dev(x)
    wrong = total = 0
    for byte in PATTERNS:
        bins = torch.zeros(64, dtype=torch.int32, device="cuda")
        total_d = torch.zeros((), dtype=torch.float32, device="cuda")
        best = torch.full((), I32_MIN, dtype=torch.int32, device="cuda")
        old = r.out(N, torch.int32)
        old.view(torch.uint8).fill_(byte)
        r.mod.sem_atomic(xd, bins, old, total_d, best)
        torch.cuda.synchronize()
        b, o = bins.cpu().numpy(), old.cpu().numpy()
        want_bins = np.bincount(x & 63, minlength=64)
        wrong += int((b != want_bins).sum())
        # each bin's old values are 0 .. count - 1, once each, whatever the order
        for k in range(64):
            got = np.sort(o[(x & 63) == k])
            wrong += int((got != np.arange(want_bins[k])).sum())
        wrong += int(float(total_d.item()) != float(x.sum())) + int(int(best.item()) != int(x.max()))
        total += 64 + N + 2
    return {"wrong": wrong, "of": total}


def check_narrow(r):
    torch = r.torch
    x = specials(r, N, -4, 5)
    outs = [r.out(N, torch.float8_e4m3fn), r.out(N, torch.float8_e5m2), r.out(N, torch.float16),
            r.out(N, torch.bfloat16), r.out(N, torch.float32)]
    xd = r.dev(x)
    xt = torch.from_numpy(x)
    # torch rounds to nearest even but gives NaN past the FP8 range: clamp first (the language saturates)
    e4 = xt.clamp(-448, 448).to(torch.float8_e4m3fn)
    e5 = xt.clamp(-57344, 57344).to(torch.float8_e5m2)
    back = e4.float() + e5.float() * 1024
    wants = [e4.view(torch.uint8).numpy(), e5.view(torch.uint8).numpy(), xt.half().view(torch.int16).numpy(),
             xt.bfloat16().view(torch.int16).numpy(), back.numpy()]
    outs_bytes = [outs[0], outs[1], outs[2], outs[3], outs[4]]
    return r.exact(lambda: r.mod.sem_narrow(xd, *outs), outs_bytes, wants)


def check_dot(r):
    torch = r.torch
    a = r.rng.standard_normal((BATCH, 32, 64)).astype(np.float16)
    b = r.rng.standard_normal((BATCH, 64, 32)).astype(np.float16)
    c, d = r.out((BATCH, 32, 32), torch.float32), r.out((BATCH, 32, 32), torch.float32)
    ad, bd = r.dev(a), r.dev(b)
    ab = a.astype(np.float64) @ b.astype(np.float64)
    scale = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
    wrong = total = 0
    for run in r.twice(lambda: r.mod.sem_dot(ad, bd, c, d), [c, d]):
        wrong += wrong_close(run[0].view(np.float32).reshape(ab.shape), ab, scale, 1e-5)
        wrong += wrong_close(run[1].view(np.float32).reshape(ab.shape), 1.5 * ab, 1.5 * scale, 1e-5)
        total += 2 * ab.size
    return {"wrong": wrong, "of": total}


def check_layout(r):
    torch = r.torch
    v = r.rng.integers(-50, 51, (BATCH, 32, 64)).astype(np.float32)
    y = r.out((BATCH, 3, 32), torch.float32)
    vd = r.dev(v)
    want = np.repeat(v.sum(2)[:, None, :], 3, 1).astype(np.float32)
    return r.exact(lambda: r.mod.sem_layout(vd, y), [y], [want])


def check_grid(r):
    torch = r.torch
    gx, gy, gz = 5, 3, 2
    ids = r.out((gz, gy, gx, 2), torch.int32)
    want = np.stack([np.arange(gx * gy * gz), np.full(gx * gy * gz, gx * gy * gz)], 1).astype(np.int32)
    return r.exact(lambda: r.mod.sem_grid(ids, gx, gy, gz), [ids], [want.reshape(gz, gy, gx, 2)])


def check_bits(r):
    torch = r.torch
    x = specials(r, N, -30, 30)
    x[200:205] = np.nan
    hb = r.rng.integers(-2 ** 15, 2 ** 15, 2 * N).astype(np.int16)
    outs = [r.out(N, torch.int32), r.out(N, torch.float32), r.out(N, torch.int32)]
    xd, hd = r.dev(x), r.dev(hb).view(torch.bfloat16)
    i = x.view(np.int32)
    with np.errstate(over="ignore"):
        up = np.where((i & 0x7FFFFF) != 0, (i + 0x800000) & 0x7F800000, i & 0x7F800000).astype(np.int32)
    return r.exact(lambda: r.mod.sem_bits(xd, hd, *outs), outs, [i, up.view(np.float32), hb.view(np.int32)])


def bf16_bits(x):
    """f32 -> bf16 bits, round to nearest even (finite x)."""
    b = x.astype(np.float32).view(np.uint32)
    return ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype(np.uint16).view(np.int16)


def check_quant(r):
    from megac import fp_numpy as fp
    torch = r.torch
    M = 45  # the last program's last three rows are past M
    x = (r.rng.standard_normal((M, 128)) * 10.0 ** r.rng.uniform(-3, 3, (M, 4)).repeat(32, 1)).astype(np.float32)
    x[3, :32] = 0.0                     # an all-zero block: scales at their floor, values 0
    amax = np.float32(np.abs(x).max())
    gs = np.float32(448.0 * 6.0) / amax
    scale = amax / np.float32(57344.0) * np.float32(4.0)  # a quarter of the E5M2 range saturates
    # MXFP4, blocks of 32: sf = 2^(floor(log2 amax) - 2), the exponent clamped to E8M0's [-127, 127]
    xb = x.reshape(M, 4, 32)
    e = np.clip(fp._floor_log2(np.abs(xb).max(-1)) - 2, -127, 127)
    sf = np.ldexp(1.0, e).astype(np.float32)
    mv = np.clip(xb / sf[..., None], -6, 6).astype(np.float32)
    m_nib = fp.e2m1_encode(mv).reshape(M, 128)
    m_back = (fp.e2m1_decode(m_nib).reshape(M, 4, 32) * sf[..., None]).reshape(M, 128)
    # NVFP4, blocks of 16 (as reference/nvfp4_quant.py): sf = e4m3(gs * amax / 6), values x * (gs / sf)
    xn = x.reshape(M, 8, 16)
    nsf = fp.e4m3_round(gs * np.abs(xn).max(-1) / np.float32(6.0))
    with np.errstate(divide="ignore"):
        inv = np.where(nsf == 0, np.float32(0), gs / nsf).astype(np.float32)
    n_nib = fp.e2m1_encode(np.clip(xn * inv[..., None], -6, 6).astype(np.float32)).reshape(M, 128)
    # dequantized with the block's factor sf / gs (divided once a block), as documented
    n_back = (fp.e2m1_decode(n_nib).reshape(M, 8, 16) * (nsf / gs)[..., None]).reshape(M, 128)
    # static E5M2: rne(clamp(x / scale)), back to bf16 as float(q) * scale
    e5 = fp.round_to_format(np.clip(x / scale, -57344, 57344), mant_bits=2, min_exp=-14, max_val=57344.0)
    # groups of 128, UE8M0 scales: s = ue8m0(max(amax, 1e-10) / 448)
    gsc = fp.ue8m0_round_up(np.maximum(np.abs(x).max(-1, keepdims=True), np.float32(1e-10)) / np.float32(448.0))
    g4 = fp.e4m3_round(np.clip(x / gsc, -448, 448).astype(np.float32))
    wants = [fp.pack_e2m1(m_nib), (e + 127).astype(np.uint8), m_back.astype(np.float32), fp.pack_e2m1(n_nib),
             fp.e4m3_encode(nsf), n_back.astype(np.float32), fp._encode(e5, 2, -14, 15, 7), bf16_bits(e5 * scale),
             fp.e4m3_encode(g4), gsc.astype(np.float32), (g4 * gsc).astype(np.float32)]
    u8, f32 = torch.uint8, torch.float32
    outs = [r.out((M, 64), u8), r.out((M, 4), u8), r.out((M, 128), f32), r.out((M, 64), u8),
            r.out((M, 8), torch.float8_e4m3fn), r.out((M, 128), f32), r.out((M, 128), torch.float8_e5m2),
            r.out((M, 128), torch.bfloat16), r.out((M, 128), torch.float8_e4m3fn), r.out((M, 1), f32),
            r.out((M, 128), f32)]
    xd, gd, sd = r.dev(x), r.dev(np.array(gs, np.float32)), r.dev(np.array(scale, np.float32))
    return r.exact(lambda: r.mod.sem_quant(xd, gd, sd, *outs), outs, wants)


def check_division(r, kernel):
    """x / y + x / (y + 1) over special operands (zeros, infinities, subnormals, huge and tiny values, NaN): the
    bits of IEEE f32 division (NumPy's), any NaN for a NaN."""
    torch = r.torch
    a, b = specials(r, N, -40, 38), specials(r, N, -40, 38)
    r.rng.shuffle(b)
    a[300:310], b[310:320] = np.nan, np.nan
    q = r.out(N, torch.float32)
    ad, bd = r.dev(a), r.dev(b)
    with np.errstate(all="ignore"):
        want = a / b + a / (b + np.float32(1))
    wrong = 0
    for run in r.twice(lambda: getattr(r.mod, kernel)(ad, bd, q), [q]):
        got = run[0].view(np.float32)
        nan = np.isnan(want)
        wrong += int((np.isnan(got) != nan).sum() + (got[~nan].view(np.int32) != want[~nan].view(np.int32)).sum())
    return {"wrong": wrong, "of": 2 * N}


def check_fast_division(r):
    """@fast_division's quotients within 2 ulp of the exact one wherever that is a normal f32 (operands over the
    whole finite range, subnormals included); infinities and zeros where the exact quotient overflows or
    vanishes are not checked."""
    torch = r.torch
    a = (r.rng.standard_normal(N) * 10.0 ** r.rng.uniform(-44, 38, N)).astype(np.float32)
    b = (r.rng.standard_normal(N) * 10.0 ** r.rng.uniform(-44, 38, N)).astype(np.float32)
    b[b == 0] = 1
    q = r.out(N, torch.float32)
    ad, bd = r.dev(a), r.dev(b)
    exact = a.astype(np.float64) / b.astype(np.float64)
    normal = (np.abs(exact) >= 2.0 ** -126) & (np.abs(exact) < 2.0 ** 128 * (1 - 2.0 ** -25))
    ulp = 2.0 ** (np.floor(np.log2(np.abs(np.where(normal, exact, 1.0)))) - 23)
    wrong = 0
    for run in r.twice(lambda: r.mod.sem_fast_division(ad, bd, q), [q]):
        got = run[0].view(np.float32).astype(np.float64)
        wrong += int((~(np.abs(got - exact) <= 2 * ulp))[normal].sum())
    return {"wrong": wrong, "of": 2 * int(normal.sum())}


def check_spill(r):
    """sem_math's f32 expression under a 32-register cap (ptxas spills to local memory): the same tolerance."""
    torch = r.torch
    a = r.rng.uniform(-5, 5, N).astype(np.float32)
    b = r.out(N, torch.float32)
    ad = r.dev(a)
    terms = f32_math_terms(a.astype(np.float64))
    wrong = 0
    for run in r.twice(lambda: r.mod.sem_spill(ad, b), [b]):
        wrong += wrong_close(run[0].view(np.float32), sum(terms), sum(np.abs(t) for t in terms), 4e-6)
    return {"wrong": wrong, "of": 2 * N}


def check_tree(r):
    torch = r.torch
    v = r.rng.integers(-1000, 1001, (BATCH, 16, 32)).astype(np.float32)
    rows, cols = r.out((BATCH, 3, 16), torch.float32), r.out((BATCH, 3, 32), torch.float32)
    vd = r.dev(v)
    want_rows = np.stack([v.sum(2), v.max(2), v.min(2)], 1).astype(np.float32)
    want_cols = np.stack([v.sum(1), v.max(1), v.min(1)], 1).astype(np.float32)
    return r.exact(lambda: r.mod.sem_tree(vd, rows, cols), [rows, cols], [want_rows, want_cols])


def check_fused(r):
    """sem_fused: @fused_reductions' butterflies on integer values (exact in any order; squares of at most 100^2,
    512 of them, stay below 2^24): a [16, 128] tile's row sums, maxima and minima, and of its first 512 values the
    sum, the sum of squares, the max and the min."""
    torch = r.torch
    v = r.rng.integers(-100, 101, (BATCH, 16, 128)).astype(np.float32)
    rows, whole = r.out((BATCH, 3, 16), torch.float32), r.out((BATCH, 4), torch.float32)
    vd = r.dev(v)
    want_rows = np.stack([v.sum(2), v.max(2), v.min(2)], 1).astype(np.float32)
    u = v.reshape(BATCH, -1)[:, :512]
    want_whole = np.stack([u.sum(1), (u * u).sum(1), u.max(1), u.min(1)], 1).astype(np.float32)
    return r.exact(lambda: r.mod.sem_fused(vd, rows, whole), [rows, whole], [want_rows, want_whole])


def check_fused_floats(r):
    """sem_fused_floats against sem_plain_floats (the same body without @fused_reductions), byte for byte on
    random floats, whose sums round by the order of their additions; and sem_plain_floats near float64."""
    torch = r.torch
    s = r.rng.standard_normal((BATCH, 4, 128)).astype(np.float32)
    q = r.rng.standard_normal((BATCH, 128)).astype(np.float32)
    k = r.rng.standard_normal((BATCH, 128)).astype(np.float32)
    sd, qd, kd = r.dev(s), r.dev(q), r.dev(k)
    plain = r.out((BATCH, 16), torch.float32)
    r.mod.sem_plain_floats(sd, qd, kd, plain)
    torch.cuda.synchronize()
    want = plain.cpu().numpy().view(np.float32).reshape(BATCH, 16).copy()
    f = [x.astype(np.float64) for x in (s, q, k)]
    near, scale = np.zeros((BATCH, 16)), np.ones((BATCH, 16))
    for col, terms in ((0, f[1] * f[1]), (2, f[1] * f[2]), (slice(4, 8), f[0] * f[2][:, None, :]),
                       (slice(8, 12), f[0] * f[1][:, None, :])):
        near[:, col], scale[:, col] = terms.sum(-1), np.abs(terms).sum(-1)
    near[:, 1] = (f[2] * f[2]).sum(1) + near[:, 0]
    scale[:, 1] = near[:, 1]
    near[:, 3], near[:, 12:16] = f[1].max(1), f[0].max(2)
    scale[:, 3], scale[:, 12:16] = np.abs(near[:, 3]) + 1, np.abs(near[:, 12:16]) + 1
    out = r.out((BATCH, 16), torch.float32)
    result = r.exact(lambda: r.mod.sem_fused_floats(sd, qd, kd, out), [out], [want])
    result["plain_far_from_float64"] = wrong_close(want, near, scale, 2e-5)
    result["wrong"] += result["plain_far_from_float64"]
    return result


# @fast_math's tolerances (of the terms' magnitudes): ex2.approx.ftz and lg2.approx are within a few ulp,
# tanh.approx.f32 within 2^-10.9 relative (PTX ISA), sqrt.approx and rsqrt.approx within 2 ulp, div.approx
# within 2 ulp for these divisors
FAST_MATH = (("exp, exp2, sigmoid, silu", 2e-6), ("log, log2", 2e-6), ("tanh", 6e-4), ("sqrt, rsqrt", 4e-7),
             ("division", 4e-7))


def check_fast_math(r):
    torch = r.torch
    a = r.rng.uniform(-8, 8, N).astype(np.float32)
    outs = [r.out(N, torch.float32) for _ in FAST_MATH]
    ad = r.dev(a)
    f = a.astype(np.float64)
    groups = [[np.exp(f), np.exp2(f), 1 / (1 + np.exp(-f)), f / (1 + np.exp(-f))],
              [np.log(np.abs(f) + 1), np.log2(np.abs(f) + 2)], [np.tanh(f)],
              [np.sqrt(np.abs(f)), 1 / np.sqrt(np.abs(f) + 1)], [f / (np.abs(f) + 0.75)]]
    wrong = 0
    worst = {name: 0.0 for name, _ in FAST_MATH}
    for run in r.twice(lambda: r.mod.sem_fast_math(ad, *outs), outs):
        for got, terms, (name, rtol) in zip(run, groups, FAST_MATH):
            g, want, scale = got.view(np.float32), sum(terms), sum(np.abs(t) for t in terms)
            wrong += wrong_close(g, want, scale, rtol)
            worst[name] = max(worst[name], float(np.nanmax(np.abs(g - want) / scale)))
    return {"wrong": wrong, "of": 2 * N * len(FAST_MATH), "worst_relative_error": worst}


def check_small_ints(r):
    torch = r.torch
    x = r.rng.integers(-128, 128, N).astype(np.int8)
    y = r.rng.integers(0, 256, N).astype(np.uint8)
    z = r.rng.integers(-2 ** 15, 2 ** 15, N).astype(np.int16)
    w = r.rng.integers(0, 2 ** 16, N).astype(np.uint16)
    f = r.rng.integers(0, 2, N).astype(np.bool_)
    ins = [r.dev(x), r.dev(y), r.dev(z), r.dev(w.view(np.int16)).view(torch.uint16), r.dev(f)]
    outs = [r.out(N, torch.int8), r.out(N, torch.uint8), r.out(N, torch.int32), r.out(N, torch.int8),
            r.out(N, torch.int32).view(torch.uint32), r.out(N, torch.bool), r.out(N, torch.float32)]
    with np.errstate(over="ignore"):
        s8 = x + x * np.int8(3) - (x >> 2)
        u8s = y + y // np.uint8(3) - np.uint8(7) + (y >> 1)
        wide = x.astype(np.uint32) + z.view(np.uint16).astype(np.uint32)
    mix = x.astype(np.int32) * 100000 + y.astype(np.int32) * 1000 + z.astype(np.int32) + w.astype(np.int32) + f * 7
    wants = [s8, u8s, mix.astype(np.int32), z.astype(np.int8) ^ w.astype(np.int8), wide, (x < 0) ^ f,
             y.astype(np.float32) + x.astype(np.float32) * np.float32(0.5) + f.astype(np.float32)]
    return r.exact(lambda: r.mod.sem_small_ints(*ins, *outs), outs, wants)


# Kernels that another kernel's check launches (as its reference), with no check of their own.
LAUNCHED_BY_OTHERS = ("sem_plain_floats",)

CHECKS = {"sem_int": check_int, "sem_to_int": check_to_int, "sem_math": check_math, "sem_reduce": check_reduce,
          "sem_shape": check_shape, "sem_loops": check_loops, "sem_atomic": check_atomic,
          "sem_narrow": check_narrow, "sem_dot": check_dot, "sem_layout": check_layout, "sem_grid": check_grid,
          "sem_bits": check_bits, "sem_quant": check_quant,
          "sem_tile_division": lambda r: check_division(r, "sem_tile_division"),
          "sem_value_major": lambda r: check_division(r, "sem_value_major"),
          "sem_fast_division": check_fast_division, "sem_spill": check_spill,
          "sem_tree": check_tree, "sem_fused": check_fused, "sem_fused_floats": check_fused_floats,
          "sem_fast_math": check_fast_math, "sem_small_ints": check_small_ints}


def run(bundle_path, seed=None):
    """({kernel: {"wrong": elements not right, "of": elements}, "seed": ...}, failures)."""
    import torch
    import megac
    seed = int.from_bytes(os.urandom(4), "little") if seed is None else seed
    r = Runner(torch, megac.load(bundle_path), np.random.default_rng(seed))
    results = {}
    for name, check in CHECKS.items():
        try:
            results[name] = check(r)
        except Exception:  # one broken check must not hide the others' results
            results[name] = {"wrong": 1, "of": 0, "error": traceback.format_exc(limit=4)}
    lines, failures = bundle_check.count_lines(results, "elements not right")
    failures += [f"{k}: {v['error']}" for k, v in results.items() if "error" in v]
    results["seed"] = seed
    return results, failures


def report(results):
    """One line a kernel, then the seed of the inputs."""
    checks = {k: v for k, v in results.items() if k != "seed"}
    return bundle_check.count_lines(checks, "elements not right")[0] + [f"seed {results['seed']}"]


if __name__ == "__main__":
    sys.exit(bundle_check.main(__doc__, run, report, "semantics.json"))
