"""PyTorch implementations for the benchmark, written as a serving stack would in eager mode (fp32 math,
torch's own fp8 casts); the same functions go through torch.compile. They take a reference argument dict and
write into its output tensors. Kernels missing here have no torch column."""
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
    w, ids = torch.topk(torch.softmax(a["logits"].float(), dim=-1), a["ids"].shape[1], dim=-1)
    a["ids"].copy_(ids.to(torch.int32))
    a["w"].copy_(w / w.sum(-1, keepdim=True))


def group_quant(a, ue8m0=False):
    M, K = a["x"].shape
    xg = a["x"].float().view(M, K // 128, 128)
    s = xg.abs().amax(-1).clamp_min(1e-10) / 448.0
    if ue8m0:
        s = torch.exp2(torch.ceil(torch.log2(s)))
    a["q"].copy_(torch.clamp(xg / s[..., None], -448.0, 448.0).view(M, K).to(torch.float8_e4m3fn))
    a["s"].copy_(s)


def nvfp4_quant(a):
    from megac.reference.nvfp4_quant import quantize
    q, sf = quantize(a["x"], a["gs"])
    a["q"].copy_(q)
    a["sf"].copy_(sf)


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
}
