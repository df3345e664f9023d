"""Hand-written Triton 3.6 kernels of the megac kernel math, for the benchmark (bench/run_bench.py).

Same math as megac/reference; divisions that decide a rounding use div_rn (IEEE, as the reference), fp8
conversions use Triton's hardware cvt (round to nearest even, satfinite on sm_90), E2M1 uses an exact
software rounding (branch-free thresholds with ties to the even code).
`LAUNCHERS[name](args)` calls a kernel with a reference argument dict (megac.reference.<kernel>.inputs).
"""
import torch
import triton
import triton.language as tl


# ---------------------------------------------------------------------------------------------- vector_add
@triton.jit
def _vector_add(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=m) + tl.load(y + offs, mask=m), mask=m)


def vector_add(x, y, out):
    n = x.numel()
    _vector_add[(triton.cdiv(n, 1024),)](x, y, out, n, BLOCK=1024)


# -------------------------------------------------------------------------------------- shared_act_quant
@triton.jit
def _shared_act_quant(x, scale, q, I, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = cols < I
    gate = tl.load(x + row * 2 * I + cols, mask=m).to(tl.float32)
    up = tl.load(x + row * 2 * I + I + cols, mask=m).to(tl.float32)
    a = gate * tl.sigmoid(gate) * up
    v = tl.clamp(tl.math.div_rn(a, tl.load(scale)), -448.0, 448.0)
    tl.store(q + row * I + cols, v.to(tl.float8e4nv), mask=m)


def shared_act_quant(x, scale, q):
    M, I = q.shape
    BLOCK = min(1024, triton.next_power_of_2(I))
    _shared_act_quant[(M, triton.cdiv(I, BLOCK))](x, scale, q, I, BLOCK=BLOCK, num_warps=4)


# --------------------------------------------------------------------------------------------------- hop
@triton.jit
def _hop(x, residual, w, out, scale, H, eps, PLAIN: tl.constexpr, FP8: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = cols < H
    r = tl.load(x + row * H + cols, mask=m, other=0.0).to(tl.float32) + \
        tl.load(residual + row * H + cols, mask=m, other=0.0).to(tl.float32)
    tl.store(residual + row * H + cols, r.to(tl.bfloat16), mask=m)
    wf = tl.load(w + cols, mask=m, other=0.0).to(tl.float32)
    if not PLAIN:
        wf = wf + 1.0
    y = r * tl.rsqrt(tl.sum(r * r, axis=0) / H + eps) * wf
    if FP8:
        tl.store(out + row * H + cols, tl.clamp(y / tl.load(scale), -448.0, 448.0).to(tl.float8e4nv), mask=m)
    else:
        tl.store(out + row * H + cols, y.to(tl.bfloat16), mask=m)


def hop(x, residual, w, out, eps=1e-6, plain=False, scale=None):
    M, H = x.shape
    fp8 = scale is not None
    _hop[(M,)](x, residual, w, out, scale if fp8 else x, H, eps, PLAIN=plain, FP8=fp8,
               BLOCK=triton.next_power_of_2(H), num_warps=8)


# ------------------------------------------------------------------------------------------------- route
@triton.jit
def _route(logits, ids, w, E, K: tl.constexpr, BLOCK_E: tl.constexpr, BLOCK_K: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    e = tl.arange(0, BLOCK_E)
    l = tl.load(logits + row * E + e, mask=e < E, other=-float("inf")).to(tl.float32)
    p = tl.exp(l - tl.max(l, axis=0))
    p = p / tl.sum(p, axis=0)
    kk = tl.arange(0, BLOCK_K)
    out_ids = tl.zeros([BLOCK_K], dtype=tl.int32)
    out_w = tl.zeros([BLOCK_K], dtype=tl.float32)
    for j in tl.static_range(K):
        best = tl.max(p, axis=0)
        idx = tl.min(tl.where(p == best, e, BLOCK_E), axis=0)  # lowest index among equal maxima
        out_ids = tl.where(kk == j, idx, out_ids)
        out_w = tl.where(kk == j, best, out_w)
        p = tl.where(e == idx, -1.0, p)
    out_w = out_w / tl.sum(out_w, axis=0)
    tl.store(ids + row * K + kk, out_ids, mask=kk < K)
    tl.store(w + row * K + kk, out_w, mask=kk < K)


def route(logits, ids, w):
    M, E = logits.shape
    K = ids.shape[1]
    _route[(M,)](logits, ids, w, E, K=K, BLOCK_E=triton.next_power_of_2(E), BLOCK_K=triton.next_power_of_2(K),
                 num_warps=4)


# ------------------------------------------------------------------------------------------- nvfp4_quant
@triton.jit
def _e2m1_code(v):
    """|v| <= 6 -> E2M1 nibble, round to nearest with ties to the even code (thresholds at the midpoints)."""
    a = tl.abs(v)
    code = (a > 0.25).to(tl.int32) + (a >= 0.75).to(tl.int32) + (a > 1.25).to(tl.int32) + \
        (a >= 1.75).to(tl.int32) + (a > 2.5).to(tl.int32) + (a >= 3.5).to(tl.int32) + (a > 5.0).to(tl.int32)
    sign = (v.to(tl.int32, bitcast=True) >> 31) & 1
    return code | (sign << 3)


@triton.jit
def _nvfp4_quant(x, gs, q, sf, K, NB: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    blk = tl.program_id(1) * NB + tl.arange(0, NB)
    cols = blk[:, None] * 16 + tl.arange(0, 16)[None, :]
    m = cols < K
    xv = tl.load(x + row * K + cols, mask=m, other=0.0).to(tl.float32)
    g = tl.load(gs)
    s8 = tl.math.div_rn(g * tl.max(tl.abs(xv), axis=1), 6.0).to(tl.float8e4nv)
    s = s8.to(tl.float32)
    inv = tl.where(s == 0.0, 0.0, tl.math.div_rn(g, s))
    codes = _e2m1_code(tl.clamp(xv * inv[:, None], -6.0, 6.0))
    lo, hi = tl.split(tl.reshape(codes, [NB, 8, 2]))
    packed = (lo | (hi << 4)).to(tl.uint8)
    pcols = blk[:, None] * 8 + tl.arange(0, 8)[None, :]
    tl.store(q + row * (K // 2) + pcols, packed, mask=pcols < K // 2)
    tl.store(sf + row * (K // 16) + blk, s8, mask=blk < K // 16)


def nvfp4_quant(x, gs, q, sf):
    M, K = x.shape
    NB = 16
    _nvfp4_quant[(M, triton.cdiv(K // 16, NB))](x, gs, q, sf, K, NB=NB, num_warps=4)


# ------------------------------------------------------------------------------------------- group_quant
@triton.jit
def _group_quant(x, q, s, K, UE8M0: tl.constexpr, NG: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    grp = tl.program_id(1) * NG + tl.arange(0, NG)
    cols = grp[:, None] * 128 + tl.arange(0, 128)[None, :]
    m = cols < K
    xv = tl.load(x + row * K + cols, mask=m, other=0.0).to(tl.float32)
    sc = tl.math.div_rn(tl.maximum(tl.max(tl.abs(xv), axis=1), 1e-10), 448.0)
    if UE8M0:
        b = sc.to(tl.int32, bitcast=True)
        e = ((b >> 23) & 0xFF) + ((b & 0x7FFFFF) != 0).to(tl.int32)
        sc = (e << 23).to(tl.float32, bitcast=True)
    v = tl.clamp(tl.math.div_rn(xv, sc[:, None]), -448.0, 448.0)
    tl.store(q + row * K + cols, v.to(tl.float8e4nv), mask=m)
    tl.store(s + row * (K // 128) + grp, sc, mask=grp < K // 128)


def group_quant(x, q, s, ue8m0=False):
    M, K = x.shape
    NG = 4
    _group_quant[(M, triton.cdiv(K // 128, NG))](x, q, s, K, UE8M0=ue8m0, NG=NG, num_warps=4)


# ---------------------------------------------------------------------------------------------- gdn_core
@triton.jit
def _gdn_core(S, slot, q, k, v, a, b, A_log, dt_bias, o, HV, HK, D: tl.constexpr, BV: tl.constexpr):
    bh = tl.program_id(0)
    bi, h = bh // HV, bh % HV
    hk = h // (HV // HK)
    vb = tl.program_id(1) * BV + tl.arange(0, BV)
    kd = tl.arange(0, D)
    sl = tl.load(slot + bi).to(tl.int64)
    qv = tl.load(q + (bi * HK + hk) * D + kd).to(tl.float32)
    kv = tl.load(k + (bi * HK + hk) * D + kd).to(tl.float32)
    qn = qv / tl.sqrt(tl.sum(qv * qv, axis=0) + 1e-6) * (1.0 / tl.sqrt(D * 1.0))
    kn = kv / tl.sqrt(tl.sum(kv * kv, axis=0) + 1e-6)
    av = tl.load(a + bi * HV + h).to(tl.float32) + tl.load(dt_bias + h).to(tl.float32)
    softplus = tl.where(av > 20.0, av, tl.log(1.0 + tl.exp(av)))
    g = -tl.exp(tl.load(A_log + h).to(tl.float32)) * softplus
    beta = tl.sigmoid(tl.load(b + bi * HV + h).to(tl.float32))
    ptr = S + ((sl * HV + h) * D + vb[:, None]) * D + kd[None, :]
    st = tl.load(ptr) * tl.exp(g)
    vv = tl.load(v + (bi * HV + h) * D + vb).to(tl.float32)
    u = beta * (vv - tl.sum(st * kn[None, :], axis=1))
    st = st + u[:, None] * kn[None, :]
    tl.store(ptr, st)
    tl.store(o + (bi * HV + h) * D + vb, tl.sum(st * qn[None, :], axis=1).to(tl.bfloat16))


def gdn_core(S, slot, q, k, v, a, b, A_log, dt_bias, o):
    B, HV, D = v.shape
    HK = q.shape[1]
    BV = 32
    _gdn_core[(B * HV, D // BV)](S, slot, q, k, v, a, b, A_log, dt_bias, o, HV, HK, D=D, BV=BV, num_warps=4)


# ------------------------------------------------------------------------------------ by reference name
LAUNCHERS = {
    "vector_add": lambda a: vector_add(a["x"], a["y"], a["out"]),
    "shared_act_quant": lambda a: shared_act_quant(a["x"], a["scale"], a["q"]),
    "hop": lambda a: hop(a["x"], a["residual"], a["w"], a["out"]),
    "hop_mid": lambda a: hop(a["x"], a["residual"], a["w"], a["out"]),
    "hop_plain": lambda a: hop(a["x"], a["residual"], a["w"], a["out"], plain=True),
    "hop_fp8": lambda a: hop(a["x"], a["residual"], a["w"], a["out"], scale=a["scale"]),
    "route": lambda a: route(a["logits"], a["ids"], a["w"]),
    "route_f32": lambda a: route(a["logits"], a["ids"], a["w"]),
    "nvfp4_quant": lambda a: nvfp4_quant(a["x"], a["gs"], a["q"], a["sf"]),
    "group_quant": lambda a: group_quant(a["x"], a["q"], a["s"]),
    "group_quant_ue8m0": lambda a: group_quant(a["x"], a["q"], a["s"], ue8m0=True),
    "gdn_core": lambda a: gdn_core(a["S"], a["slot"], a["q"], a["k"], a["v"], a["a"], a["b"], a["A_log"],
                                   a["dt_bias"], a["o"]),
}
