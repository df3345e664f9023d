"""The stock (PyTorch) path of every kernel, written as a serving stack would in eager mode (fp32 math, torch's
own fp8 casts): the slots' fallback (megac.qwen35) and the benchmark's torch and torch.compile columns
(bench/run_bench.py). Each takes a reference argument dict (names as in megac.reference) and writes into its
output tensors. `EAGER` maps reference kernel names to them."""
import torch
import torch.nn.functional as F


def vector_add(a):
    torch.add(a["x"], a["y"], out=a["out"])


def shared_act_quant(a):
    gate, up = a["x"].float().chunk(2, dim=-1)
    a["q"].copy_(torch.clamp(F.silu(gate) * up / a["scale"], -448.0, 448.0).to(torch.float8_e4m3fn))


def _hop(a, plain=False, fp8=False):
    r = a["x"].float() + a["residual"].float()
    a["residual"].copy_(r.to(torch.bfloat16))
    w = a["w"].float() if plain else 1.0 + a["w"].float()
    y = r * torch.rsqrt(r.pow(2).mean(-1, keepdim=True) + 1e-6) * w
    if fp8:
        a["out"].copy_(torch.clamp(y / a["scale"], -448.0, 448.0).to(torch.float8_e4m3fn))
    else:
        a["out"].copy_(y.to(torch.bfloat16))


def route(a):
    # Not torch.topk: among equal probabilities (common with bf16 logits) its order is unspecified, and the
    # spec breaks ties by the lower expert index, as the megac kernel does; a stable sort of -p keeps it.
    p = torch.softmax(a["logits"].float(), dim=-1)
    k = a["ids"].shape[1]
    neg, ids = torch.sort(-p, dim=-1, stable=True)
    w = -neg[..., :k]
    a["ids"].copy_(ids[..., :k].to(torch.int32))
    a["w"].copy_(w / w.sum(-1, keepdim=True))


def group_quant(a, ue8m0=False):
    M, K = a["x"].shape
    xg = a["x"].float().view(M, K // 128, 128)
    amax = xg.abs().amax(-1).clamp_min(1e-10)
    s = amax / torch.full_like(amax, 448.0)  # a true division: `/ 448.0` multiplies by the reciprocal
    if ue8m0:
        s = torch.exp2(torch.ceil(torch.log2(s)))
    a["q"].copy_(torch.clamp(xg / s[..., None], -448.0, 448.0).view(M, K).to(torch.float8_e4m3fn))
    a["s"].copy_(s)


def nvfp4_quant(a, swizzled=False):
    from .reference.nvfp4_quant import quantize, swizzle_128x4
    q, sf = quantize(a["x"], a["gs"])
    a["q"].copy_(q)
    a["sf"].copy_(swizzle_128x4(sf) if swizzled else sf)


def gdn_core(a):
    slot = a["slot"].long()
    HV, HK = a["v"].shape[1], a["q"].shape[1]
    rep = HV // HK
    q = a["q"].float().repeat_interleave(rep, 1)
    k = a["k"].float().repeat_interleave(rep, 1)
    qn = q / torch.sqrt(q.pow(2).sum(-1, keepdim=True) + 1e-6) * q.shape[-1] ** -0.5
    kn = k / torch.sqrt(k.pow(2).sum(-1, keepdim=True) + 1e-6)
    g = -torch.exp(a["A_log"]) * F.softplus(a["a"].float() + a["dt_bias"])
    beta = torch.sigmoid(a["b"].float())
    S = a["S"][slot] * torch.exp(g)[..., None, None]
    u = beta[..., None] * (a["v"].float() - (S @ kn[..., None])[..., 0])
    S = S + u[..., :, None] * kn[..., None, :]
    a["o"].copy_((S @ qn[..., None])[..., 0].to(torch.bfloat16))
    a["S"][slot] = S


def gdn_conv(a):
    slot = a["slot"].long()
    win = torch.cat([a["conv"][slot].float(), a["x"].float()[..., None]], dim=-1)
    a["y"].copy_(F.silu((a["w"].float() * win).sum(-1)).to(torch.bfloat16))
    a["conv"][slot] = win[..., 1:].to(a["conv"].dtype)


def gdn_norm_gate(a, fp8=False):
    o = a["o"].float()
    y = a["w"].float() * (o * torch.rsqrt(o.pow(2).mean(-1, keepdim=True) + a["eps"])) * F.silu(a["z"].float())
    if fp8:
        a["y"].copy_(torch.clamp(y / a["scale"], -448.0, 448.0).to(torch.float8_e4m3fn))
    else:
        a["y"].copy_(y.to(torch.bfloat16))


def draft_fin(a, residual=False):
    out = torch.bmm(a["topk_w"].unsqueeze(1), a["y"].float()).squeeze(1)
    out = out + torch.sigmoid(a["x"].float() @ a["w_seg"].float())[:, None] * a["shared"].float()
    if residual:
        out = out + a["residual"].float()
    a["out"].copy_(out.to(torch.bfloat16))


def _gdn_step(S, q, k, v, a_, b_, A_log, dt_bias):
    rep = v.shape[1] // q.shape[1]
    q = q.float().repeat_interleave(rep, 1)
    k = k.float().repeat_interleave(rep, 1)
    qn = q / torch.sqrt(q.pow(2).sum(-1, keepdim=True) + 1e-6) * q.shape[-1] ** -0.5
    kn = k / torch.sqrt(k.pow(2).sum(-1, keepdim=True) + 1e-6)
    g = -torch.exp(A_log) * F.softplus(a_.float() + dt_bias)
    beta = torch.sigmoid(b_.float())
    S = S * torch.exp(g)[..., None, None]
    u = beta[..., None] * (v.float() - (S @ kn[..., None])[..., 0])
    S = S + u[..., :, None] * kn[..., None, :]
    return S, (S @ qn[..., None])[..., 0]


def gdn_verify(a):
    S = a["S"][a["slot"].long()]
    for t in range(a["q"].shape[1]):
        S, o = _gdn_step(S, a["q"][:, t], a["k"][:, t], a["v"][:, t], a["a"][:, t], a["b"][:, t], a["A_log"],
                         a["dt_bias"])
        a["inter"][:, t].copy_(S)
        a["o"][:, t].copy_(o.to(torch.bfloat16))


def attn_decode(a, verify=False):
    """Paged KV gathered to [B, max_pages * 64, Hkv, D], masked by length (and causally among the T draft
    tokens), softmax attention in fp32, times sigmoid(gate)."""
    q = a["q"] if verify else a["q"][:, None]          # [B, T, Hq, D]
    B, T, Hq, D = q.shape
    Hkv = a["k_cache"].shape[1]
    table = a["page_table"].long()
    Lmax = table.shape[1] * 64
    pos = torch.arange(Lmax, device=q.device)
    rows = table[:, pos // 64] * 64 + pos % 64          # [B, Lmax]
    K = a["k_cache"][rows].float().repeat_interleave(Hq // Hkv, dim=2)   # [B, Lmax, Hq, D]
    V = a["v_cache"][rows].float().repeat_interleave(Hq // Hkv, dim=2)
    logits = torch.einsum("bthd,blhd->bthl", q.float(), K) * D ** -0.5
    limit = a["seq_lens"].long()[:, None] - T + torch.arange(T, device=q.device)[None, :] + 1   # [B, T]
    logits = logits.masked_fill(pos[None, None, None, :] >= limit[:, :, None, None], float("-inf"))
    o = torch.einsum("bthl,blhd->bthd", torch.softmax(logits, dim=-1), V) * torch.sigmoid(a["gate"].float()
                                                                                            .reshape(B, T, Hq, D))
    a["o"].copy_(o.reshape(a["o"].shape).to(torch.bfloat16))


def softmax(a):
    a["y"].copy_(torch.softmax(a["x"].float(), dim=-1).to(torch.bfloat16))


def reduce_tiles(a, axis):
    out = a["rows"] if axis == 1 else a["cols"]
    out.copy_(a["x"].view(-1, 128, 128).sum(dim=axis + 1).reshape(out.shape))


EAGER = {
    "vector_add": vector_add,
    "shared_act_quant": shared_act_quant,
    "hop": _hop,
    "hop_mid": _hop,
    "hop_plain": lambda a: _hop(a, plain=True),
    "hop_fp8": lambda a: _hop(a, fp8=True),
    "route": route,
    "route_f32": route,
    "group_quant": group_quant,
    "group_quant_ue8m0": lambda a: group_quant(a, ue8m0=True),
    "nvfp4_quant": nvfp4_quant,
    "gdn_core": gdn_core,
    "nvfp4_quant_swizzled": lambda a: nvfp4_quant(a, swizzled=True),
    "gdn_conv": gdn_conv,
    "gdn_norm_gate": gdn_norm_gate,
    "gdn_norm_gate_fp8": lambda a: gdn_norm_gate(a, fp8=True),
    "draft_fin": draft_fin,
    "draft_fin_residual": lambda a: draft_fin(a, residual=True),
    "gdn_verify": gdn_verify,
    "attn_decode_q1": attn_decode,
    "attn_decode_verify": lambda a: attn_decode(a, verify=True),
    "softmax": softmax,
    "softmax_small": softmax,
    "reduce_rows": lambda a: reduce_tiles(a, axis=1),
    "reduce_cols": lambda a: reduce_tiles(a, axis=0),
}
