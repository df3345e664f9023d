"""Hand-written Triton 3.6 kernels of the megac kernel math, for the benchmark (bench/run_bench.py).

Same math as megac/reference; divisions that decide a rounding use div_rn (IEEE, as the reference), fp8
conversions use Triton's hardware cvt (round to nearest even, satfinite on sm_90), E2M1 uses an exact
software rounding (branch-free thresholds with ties to the even code).
`LAUNCHERS[name](args)` calls a kernel with a reference argument dict (megac.reference.<kernel>.inputs).
"""
import torch
import triton
import triton.language as tl

from megac.reference.attn_plan import split_plan


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
        v = tl.clamp(tl.math.div_rn(y, tl.load(scale)), -448.0, 448.0)
        tl.store(out + row * H + cols, v.to(tl.float8e4nv), mask=m)
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
def _nvfp4_quant(x, gs, q, sf, M, K, SWIZZLE: tl.constexpr, NB: tl.constexpr):
    """Row `row` of x, 16-blocks blk. SWIZZLE: sf in the 128x4 tiled layout; the grid then covers the padded
    rows and columns too, which get sf = 0 (amax of nothing)."""
    row = tl.program_id(0).to(tl.int64)
    S = K // 16
    blk = tl.program_id(1) * NB + tl.arange(0, NB)
    cols = blk[:, None] * 16 + tl.arange(0, 16)[None, :]
    m = (cols < K) & (row < M)
    xv = tl.load(x + row * K + cols, mask=m, other=0.0).to(tl.float32)
    g = tl.load(gs)
    s8 = tl.math.div_rn(g * tl.max(tl.abs(xv), axis=1), 6.0).to(tl.float8e4nv)
    s = s8.to(tl.float32)
    inv = tl.where(s == 0.0, 0.0, tl.math.div_rn(g, s))
    codes = _e2m1_code(tl.clamp(xv * inv[:, None], -6.0, 6.0))
    lo, hi = tl.split(tl.reshape(codes, [NB, 8, 2]))
    packed = (lo | (hi << 4)).to(tl.uint8)
    pcols = blk[:, None] * 8 + tl.arange(0, 8)[None, :]
    tl.store(q + row * (K // 2) + pcols, packed, mask=(pcols < K // 2) & (row < M))
    if SWIZZLE:
        SP = (S + 3) // 4 * 4
        off = ((row // 128) * (SP // 4) + blk // 4) * 512 + (row % 32) * 16 + ((row % 128) // 32) * 4 + blk % 4
        tl.store(sf + off, s8, mask=blk < SP)
    else:
        tl.store(sf + row * S + blk, s8, mask=blk < S)


def nvfp4_quant(x, gs, q, sf, swizzled=False):
    M, K = x.shape
    S = K // 16
    rows, blocks = (triton.cdiv(M, 128) * 128, triton.cdiv(S, 4) * 4) if swizzled else (M, S)
    NB = min(64, triton.next_power_of_2(blocks))
    _nvfp4_quant[(rows, triton.cdiv(blocks, NB))](x, gs, q, sf, M, K, SWIZZLE=swizzled, NB=NB, num_warps=4)


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


# ---------------------------------------------------------------------------------------------- gdn_conv
@triton.jit
def _gdn_conv(conv, x, w, slot, y, C, BLOCK: tl.constexpr):
    """One request b, channels cols: the window is [conv[slot, c, 0..2], x[b, c]] as a [BLOCK, 4] tile."""
    b = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = cols < C
    j = tl.arange(0, 4)
    s = tl.load(slot + b).to(tl.int64)
    base = conv + (s * C + cols[:, None]) * 3 + j[None, :]
    xb = tl.load(x + b * C + cols, mask=m, other=0.0)
    st = tl.load(base, mask=m[:, None] & (j[None, :] < 3), other=0.0)
    win = tl.where(j[None, :] == 3, xb[:, None], st).to(tl.float32)
    wv = tl.load(w + cols[:, None] * 4 + j[None, :], mask=m[:, None], other=0.0).to(tl.float32)
    acc = tl.sum(wv * win, axis=1)
    tl.store(y + b * C + cols, (acc * tl.sigmoid(acc)).to(tl.bfloat16), mask=m)
    # new state: win[1:] = conv[1], conv[2], x (re-read one element over; it is in L1)
    shifted = tl.load(base + 1, mask=m[:, None] & (j[None, :] < 2), other=0.0)
    tl.store(base, tl.where(j[None, :] == 2, xb[:, None], shifted), mask=m[:, None] & (j[None, :] < 3))


def gdn_conv(conv, x, w, slot, y):
    B, C = x.shape
    BLOCK = min(512, triton.next_power_of_2(C))
    _gdn_conv[(B, triton.cdiv(C, BLOCK))](conv, x, w, slot, y, C, BLOCK=BLOCK, num_warps=4)


# ----------------------------------------------------------------------------------------- gdn_norm_gate
@triton.jit
def _gdn_norm_gate(o, z, w, y, scale, rows, eps, FP8: tl.constexpr, D: tl.constexpr, BR: tl.constexpr):
    r = tl.program_id(0).to(tl.int64) * BR + tl.arange(0, BR)
    d = tl.arange(0, D)
    m = (r < rows)[:, None]
    off = r[:, None] * D + d[None, :]
    ov = tl.load(o + off, mask=m, other=0.0).to(tl.float32)
    zv = tl.load(z + off, mask=m, other=0.0).to(tl.float32)
    wv = tl.load(w + d).to(tl.float32)
    rs = tl.rsqrt(tl.sum(ov * ov, axis=1) * (1.0 / D) + eps)
    yv = wv[None, :] * (ov * rs[:, None]) * (zv * tl.sigmoid(zv))
    if FP8:
        v = tl.clamp(tl.math.div_rn(yv, tl.load(scale)), -448.0, 448.0)
        tl.store(y + off, v.to(tl.float8e4nv), mask=m)
    else:
        tl.store(y + off, yv.to(tl.bfloat16), mask=m)


def gdn_norm_gate(o, z, w, y, eps=1e-6, scale=None):
    M, HV, D = o.shape
    rows = M * HV
    BR = 8
    fp8 = scale is not None
    _gdn_norm_gate[(triton.cdiv(rows, BR),)](o, z, w, y, scale if fp8 else o, rows, eps, FP8=fp8, D=D, BR=BR,
                                             num_warps=4)


# --------------------------------------------------------------------------------------------- draft_fin
@triton.jit
def _draft_fin(y, topk_w, x, w_seg, shared, residual, out, H, K, RESIDUAL: tl.constexpr, BH: tl.constexpr):
    """Row `row`, columns of block pid1; every program recomputes the row's gate dot (x is 2H bytes, from L2)."""
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BH + tl.arange(0, BH)
    m = cols < H
    dot = tl.zeros([BH], dtype=tl.float32)
    for h0 in range(0, H, BH):
        hc = h0 + tl.arange(0, BH)
        hm = hc < H
        dot += tl.load(x + row * H + hc, mask=hm, other=0.0).to(tl.float32) * \
            tl.load(w_seg + hc, mask=hm, other=0.0).to(tl.float32)
    gate = tl.sigmoid(tl.sum(dot, axis=0))
    acc = tl.zeros([BH], dtype=tl.float32)
    for kk in range(K):
        wk = tl.load(topk_w + row * K + kk)
        acc += wk * tl.load(y + (row * K + kk) * H + cols, mask=m, other=0.0).to(tl.float32)
    acc += gate * tl.load(shared + row * H + cols, mask=m, other=0.0).to(tl.float32)
    if RESIDUAL:
        acc += tl.load(residual + row * H + cols, mask=m, other=0.0).to(tl.float32)
    tl.store(out + row * H + cols, acc.to(tl.bfloat16), mask=m)


def draft_fin(y, topk_w, x, w_seg, shared, out, residual=None):
    M, K, H = y.shape
    BH = min(1024, triton.next_power_of_2(H))
    res = residual is not None
    _draft_fin[(M, triton.cdiv(H, BH))](y, topk_w, x, w_seg, shared, residual if res else x, out, H, K,
                                        RESIDUAL=res, BH=BH, num_warps=4)


# -------------------------------------------------------------------------------------------- gdn_verify
@triton.jit
def _gdn_verify(S, slot, q, k, v, a, b, A_log, dt_bias, inter, o, T, HV, HK, D: tl.constexpr, BV: tl.constexpr):
    """gdn_core's step over T tokens; the state block stays in registers, every step goes to inter."""
    bh = tl.program_id(0)
    bi, h = bh // HV, bh % HV
    hk = h // (HV // HK)
    vb = tl.program_id(1) * BV + tl.arange(0, BV)
    kd = tl.arange(0, D)
    sl = tl.load(slot + bi).to(tl.int64)
    st = tl.load(S + ((sl * HV + h) * D + vb[:, None]) * D + kd[None, :])
    A = -tl.exp(tl.load(A_log + h).to(tl.float32))
    dtb = tl.load(dt_bias + h).to(tl.float32)
    for t in range(T):
        bt = bi.to(tl.int64) * T + t
        qv = tl.load(q + (bt * HK + hk) * D + kd).to(tl.float32)
        kv = tl.load(k + (bt * HK + hk) * D + kd).to(tl.float32)
        qn = qv / tl.sqrt(tl.sum(qv * qv, axis=0) + 1e-6) * (1.0 / tl.sqrt(D * 1.0))
        kn = kv / tl.sqrt(tl.sum(kv * kv, axis=0) + 1e-6)
        av = tl.load(a + bt * HV + h).to(tl.float32) + dtb
        softplus = tl.where(av > 20.0, av, tl.log(1.0 + tl.exp(av)))
        beta = tl.sigmoid(tl.load(b + bt * HV + h).to(tl.float32))
        st = st * tl.exp(A * softplus)
        vv = tl.load(v + (bt * HV + h) * D + vb).to(tl.float32)
        u = beta * (vv - tl.sum(st * kn[None, :], axis=1))
        st = st + u[:, None] * kn[None, :]
        tl.store(inter + ((bt * HV + h) * D + vb[:, None]) * D + kd[None, :], st)
        tl.store(o + (bt * HV + h) * D + vb, tl.sum(st * qn[None, :], axis=1).to(tl.bfloat16))


def gdn_verify(S, slot, q, k, v, a, b, A_log, dt_bias, inter, o):
    B, T, HV, D = v.shape
    HK = q.shape[2]
    BV = 32
    _gdn_verify[(B * HV, D // BV)](S, slot, q, k, v, a, b, A_log, dt_bias, inter, o, T, HV, HK, D=D, BV=BV,
                                   num_warps=4)


# ---------------------------------------------------------------------------------------- attn_decode_cp
@triton.jit
def _attn_split(q, k_cache, v_cache, page_table, seq_lens, o_part, lse_part, T, Hq, Hkv, max_pages, pages_per_split,
                NSPLIT, sm_scale, G: tl.constexpr, R: tl.constexpr, D: tl.constexpr, PAGE: tl.constexpr):
    """Flash-decoding split: request b, kv head kvh, pages [sp * pages_per_split, ...). The R rows of the q tile
    are (t, g) pairs, t = row // G (draft token), g = row % G (q head of the group): token t sees positions
    < L - T + t + 1. Writes the split's normalized output and log-sum-exp per row."""
    b = tl.program_id(0).to(tl.int64)
    kvh = tl.program_id(1)
    sp = tl.program_id(2)
    L = tl.load(seq_lens + b)
    rows = tl.arange(0, R)
    t = rows // G
    hq = kvh * G + rows % G
    rmask = rows < T * G
    d = tl.arange(0, D)
    qrow = (b * T + t) * Hq + hq
    qv = tl.load(q + qrow[:, None] * D + d[None, :], mask=rmask[:, None], other=0.0)
    limit = L - T + t + 1
    n_pages = (L + PAGE - 1) // PAGE
    p0 = sp * pages_per_split
    p1 = tl.minimum(p0 + pages_per_split, n_pages)
    m_i = tl.full([R], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([R], dtype=tl.float32)
    acc = tl.zeros([R, D], dtype=tl.float32)
    j = tl.arange(0, PAGE)
    for p in range(p0, p1):
        page = tl.load(page_table + b * max_pages + p).to(tl.int64)
        kvrow = ((page * PAGE + j) * Hkv + kvh) * D
        kt = tl.load(k_cache + kvrow[:, None] + d[None, :])
        s = tl.dot(qv, tl.trans(kt)) * sm_scale
        s = tl.where((p * PAGE + j)[None, :] < limit[:, None], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, axis=1))
        m_use = tl.where(m_new == float("-inf"), 0.0, m_new)
        alpha = tl.exp(m_i - m_use)
        pr = tl.exp(s - m_use[:, None])
        l_i = l_i * alpha + tl.sum(pr, axis=1)
        vt = tl.load(v_cache + kvrow[:, None] + d[None, :])
        acc = acc * alpha[:, None] + tl.dot(pr.to(tl.bfloat16), vt)
        m_i = m_new
    ok = l_i > 0.0
    out = acc / tl.where(ok, l_i, 1.0)[:, None]
    lse = tl.where(ok, m_i + tl.log(tl.where(ok, l_i, 1.0)), float("-inf"))
    part = qrow * NSPLIT + sp
    tl.store(o_part + part[:, None] * D + d[None, :], out, mask=rmask[:, None])
    tl.store(lse_part + part, lse, mask=rmask)


@triton.jit
def _attn_merge(o_part, lse_part, gate, o, NSPLIT, D: tl.constexpr, NS: tl.constexpr, BS: tl.constexpr):
    """One (b, t, h) row: o = sum_s exp(lse_s - lse) o_s, times sigmoid(gate). Empty splits have lse = -inf."""
    r = tl.program_id(0).to(tl.int64)
    d = tl.arange(0, D)
    sall = tl.arange(0, NS)
    lse = tl.load(lse_part + r * NSPLIT + sall, mask=sall < NSPLIT, other=float("-inf"))
    mx = tl.max(lse, axis=0)
    total = tl.sum(tl.exp(lse - mx), axis=0)
    acc = tl.zeros([D], dtype=tl.float32)
    for s0 in range(0, NSPLIT, BS):
        sc = s0 + tl.arange(0, BS)
        sm = sc < NSPLIT
        ls = tl.load(lse_part + r * NSPLIT + sc, mask=sm, other=float("-inf"))
        wgt = tl.exp(ls - mx)
        op = tl.load(o_part + (r * NSPLIT + sc)[:, None] * D + d[None, :], mask=sm[:, None], other=0.0)
        acc += tl.sum(wgt[:, None] * op, axis=0)
    gv = tl.load(gate + r * D + d).to(tl.float32)
    tl.store(o + r * D + d, (acc / total * tl.sigmoid(gv)).to(tl.bfloat16))


_ATTN_WORKSPACE = {}


def attn_decode(q, gate, k_cache, v_cache, page_table, seq_lens, o, T=1, waves=2, fill=False,
                launches=("split", "merge")):
    """q [B, Hq, D] (T = 1) or [B, T, Hq, D]; the split count fills the GPU from the page table's width (the
    launcher never reads lengths back from the device, so it can be captured in a CUDA graph): about `waves`
    programs a SM: megac's split_plan, called here so that the two launchers cannot drift apart (`fill`: its
    plan rounded down). `launches` names the kernels launched: one of them alone times it apart
    (bench/attn_splits_probe.py)."""
    B, Hq, D = q.shape[0], q.shape[-2], q.shape[-1]
    Hkv = k_cache.shape[1]
    G = Hq // Hkv
    max_pages = page_table.shape[1]
    sms = torch.cuda.get_device_properties(q.device).multi_processor_count
    pages_per_split, nsplit = split_plan(B, Hkv, max_pages, sms, waves=waves, fill=fill)
    key = (B, T, Hq, nsplit, D, q.device)
    if key not in _ATTN_WORKSPACE:
        _ATTN_WORKSPACE[key] = (torch.empty((B * T * Hq * nsplit, D), device=q.device, dtype=torch.float32),
                                torch.empty((B * T * Hq * nsplit,), device=q.device, dtype=torch.float32))
    o_part, lse_part = _ATTN_WORKSPACE[key]
    R = max(16, triton.next_power_of_2(T * G))
    if "split" in launches:
        _attn_split[(B, Hkv, nsplit)](q, k_cache, v_cache, page_table, seq_lens, o_part, lse_part, T, Hq, Hkv,
                                      max_pages, pages_per_split, nsplit, D ** -0.5, G=G, R=R, D=D, PAGE=64,
                                      num_warps=4, num_stages=2)
    if "merge" in launches:
        _attn_merge[(B * T * Hq,)](o_part, lse_part, gate, o, nsplit, D=D, NS=triton.next_power_of_2(nsplit),
                                   BS=8, num_warps=4)


# ----------------------------------------------------------------------------------------------- softmax
@triton.jit
def _softmax(x, y, N, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    m = cols < N
    v = tl.load(x + row * N + cols, mask=m, other=-float("inf")).to(tl.float32)
    e = tl.where(m, tl.exp(v - tl.max(v, axis=0)), 0.0)
    tl.store(y + row * N + cols, (e * (1.0 / tl.sum(e, axis=0))).to(tl.bfloat16), mask=m)


def softmax(x, y):
    M, N = x.shape
    BLOCK = triton.next_power_of_2(N)
    _softmax[(M,)](x, y, N, BLOCK=BLOCK, num_warps=8 if BLOCK >= 2048 else 4)


# ------------------------------------------------------------------------------------ reduce_rows / _cols
@triton.jit
def _reduce_tile(x, out, AXIS: tl.constexpr, TILE: tl.constexpr):
    t = tl.program_id(0).to(tl.int64)
    r = tl.arange(0, TILE)
    v = tl.load(x + (t * TILE + r[:, None]) * TILE + r[None, :])
    tl.store(out + t * TILE + r, tl.sum(v, axis=AXIS))


def reduce_tiles(x, out, axis):
    """Sums of each 128x128 tile of x [T * 128, 128] along `axis` (1: per row, 0: per column)."""
    _reduce_tile[(x.shape[0] // 128,)](x, out, AXIS=axis, TILE=128, num_warps=8)


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
    "nvfp4_quant_swizzled": lambda a: nvfp4_quant(a["x"], a["gs"], a["q"], a["sf"], swizzled=True),
    "group_quant": lambda a: group_quant(a["x"], a["q"], a["s"]),
    "group_quant_ue8m0": lambda a: group_quant(a["x"], a["q"], a["s"], ue8m0=True),
    "gdn_core": lambda a: gdn_core(a["S"], a["slot"], a["q"], a["k"], a["v"], a["a"], a["b"], a["A_log"],
                                   a["dt_bias"], a["o"]),
    "gdn_conv": lambda a: gdn_conv(a["conv"], a["x"], a["w"], a["slot"], a["y"]),
    "gdn_norm_gate": lambda a: gdn_norm_gate(a["o"], a["z"], a["w"], a["y"], eps=a["eps"]),
    "gdn_norm_gate_fp8": lambda a: gdn_norm_gate(a["o"], a["z"], a["w"], a["y"], eps=a["eps"], scale=a["scale"]),
    "draft_fin": lambda a: draft_fin(a["y"], a["topk_w"], a["x"], a["w_seg"], a["shared"], a["out"]),
    "draft_fin_residual": lambda a: draft_fin(a["y"], a["topk_w"], a["x"], a["w_seg"], a["shared"], a["out"],
                                              residual=a["residual"]),
    "gdn_verify": lambda a: gdn_verify(a["S"], a["slot"], a["q"], a["k"], a["v"], a["a"], a["b"], a["A_log"],
                                       a["dt_bias"], a["inter"], a["o"]),
    "attn_decode_q1": lambda a: attn_decode(a["q"], a["gate"], a["k_cache"], a["v_cache"], a["page_table"],
                                            a["seq_lens"], a["o"]),
    "attn_decode_verify": lambda a: attn_decode(a["q"], a["gate"], a["k_cache"], a["v_cache"], a["page_table"],
                                                a["seq_lens"], a["o"], T=a["T"]),
    "softmax": lambda a: softmax(a["x"], a["y"]),
    "softmax_small": lambda a: softmax(a["x"], a["y"]),
    "reduce_rows": lambda a: reduce_tiles(a["x"], a["rows"], axis=1),
    "reduce_cols": lambda a: reduce_tiles(a["x"], a["cols"], axis=0),
}
