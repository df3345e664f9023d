"""attn_decode_cp: split-KV paged decode attention, merge, sigmoid output gate (slots skv2_cp, draft_q1_cp).

Paged KV, page size 64: token p of request b lives at row page_table[b][p // 64] * 64 + p % 64 of
k_cache / v_cache [rows, Hkv, 256]. GQA (Hq / Hkv q heads per kv head), scale 256^-0.5.
Variants: attn_decode_q1 (q [B, Hq, 256]) and attn_decode_verify (q [B, T, Hq, 256]; query t sees positions
< seq_len - T + t + 1, i.e. causal among the T draft tokens that are the last T of the context).
Output o = attention * sigmoid(gate), bf16. The reference computes attention directly in float64;
`split_merge` is the split + merge formulation the kernel uses, and must agree with it (tested).

The megac kernels run in two launches (LAUNCHES): attn_split_* writes each split's partial output and
log-sum-exp to a float32 workspace (o_part, lse_part), attn_merge_* combines them. `split_plan` (from
attn_plan) is the host's choice of split size: enough programs to fill the GPU, at least one page per split.
"""
import math

import torch

# The split plan lives in a torch-free module (the variant-choice test reads it); named here too, where callers
# and tests of the reference find them.
from .attn_plan import MAX_SPLITS, PAGE, split_plan  # noqa: F401
from .common import Close, Kernel, cdiv, generator, randn
from .shapes import BENCH, SHAPES

D = 256


def split_merge(q, K, V, n_splits, mask=None):
    """q [H, D], K/V [L, H, D] (already expanded per q head), float64; returns o [H, D], lse [H].

    Per split s: m = max l, d = sum exp(l - m), o_s = sum exp(l - m) v / d, lse_s = m + ln d; then
    M = max lse_s, lse = M + ln sum exp(lse_s - M), o = sum exp(lse_s - lse) o_s. Empty splits are excluded.
    """
    L = K.shape[0]
    logits = torch.einsum("hd,lhd->hl", q, K) * D ** -0.5
    if mask is not None:
        logits = logits.masked_fill(~mask, -math.inf)
    size = cdiv(L, n_splits)
    outs, lses = [], []
    for s in range(0, L, size):
        l = logits[:, s:s + size]
        m = l.max(-1, keepdim=True).values
        valid = torch.isfinite(m[:, 0])
        if not valid.any():
            continue  # an empty (fully masked) split takes no part in the merge
        m = torch.where(torch.isfinite(m), m, torch.zeros_like(m))
        p = torch.exp(l - m)
        d = p.sum(-1)
        outs.append(torch.einsum("hl,lhd->hd", p, V[s:s + size]) / d[:, None])
        lses.append(torch.where(valid, m[:, 0] + torch.log(d), torch.full_like(d, -math.inf)))
    lse_s = torch.stack(lses)
    Mx = lse_s.max(0).values
    lse = Mx + torch.log(torch.exp(lse_s - Mx).sum(0))
    o = (torch.exp(lse_s - lse)[..., None] * torch.stack(outs)).sum(0)
    return o, lse


def _sm_count(device):
    if str(device).startswith("cuda") and torch.cuda.is_available():
        return torch.cuda.get_device_properties(device).multi_processor_count
    return 132  # the H200's count, for CPU-side tests


def workspace(q, Hkv, max_pages, waves=2, fill=False):
    """The split kernel's arguments beyond the reference call, for queries q ([B, Hq, D] or [B, T, Hq, D])
    and Hkv kv heads: split_pages, nsplit (split_plan on q's device, `waves` waves, rounded up unless `fill`:
    bench/attn_splits_probe.py times the others) and the float32 partials o_part, lse_part."""
    rows = tuple(q.shape[:-1])
    split_pages, nsplit = split_plan(q.shape[0], Hkv, max_pages, _sm_count(q.device), waves=waves, fill=fill)
    return dict(split_pages=split_pages, nsplit=nsplit,
                o_part=torch.empty(rows + (nsplit, D), device=q.device, dtype=torch.float32),
                lse_part=torch.empty(rows + (nsplit,), device=q.device, dtype=torch.float32))


def gather_kv(cache, page_table_row, L):
    p = torch.arange(L, device=cache.device)
    rows = page_table_row.long()[p // PAGE] * PAGE + p % PAGE
    return cache[rows]


def attend(q, K, V, Hq, Hkv, T=None):
    """Direct float64 attention for one request. q [Hq, D] or [T, Hq, D]; K/V [L, Hkv, D]."""
    rep = Hq // Hkv
    K = K.double().repeat_interleave(rep, dim=1)
    V = V.double().repeat_interleave(rep, dim=1)
    L = K.shape[0]
    if T is None:
        p = torch.softmax(torch.einsum("hd,lhd->hl", q.double(), K) * D ** -0.5, dim=-1)
        return torch.einsum("hl,lhd->hd", p, V)
    logits = torch.einsum("thd,lhd->thl", q.double(), K) * D ** -0.5
    pos = torch.arange(L, device=K.device)
    limit = L - T + torch.arange(T, device=K.device) + 1
    logits = logits.masked_fill(pos[None, None, :] >= limit[:, None, None], -math.inf)
    return torch.einsum("thl,lhd->thd", torch.softmax(logits, dim=-1), V)


def _seq_lens(B, ctx, T, g, device):
    lo = max(T or 1, ctx // 2)
    lens = torch.randint(lo, ctx + 1, (B,), generator=g, device=device)
    lens[0] = ctx  # the longest context of the shape is always present
    return lens.to(torch.int32)


def _make(name, verify):
    def inputs(B, ctx, Hq, Hkv, T=None, device="cuda", seed=0):
        g = generator(seed, device)
        lens = _seq_lens(B, ctx, T if verify else None, g, device)
        pages = [cdiv(int(n), PAGE) for n in lens.tolist()]
        max_pages = max(pages)
        total = sum(pages) + 3  # a few pages nobody uses
        perm = torch.randperm(total, generator=g, device=device).to(torch.int32)
        table = torch.zeros((B, max_pages), dtype=torch.int32, device=device)
        at = 0
        for b, n in enumerate(pages):  # scattered pages: the kernel must follow the table
            table[b, :n] = perm[at:at + n]
            at += n
        qshape = (B, T, Hq, D) if verify else (B, Hq, D)
        args = dict(q=randn(qshape, g, device), gate=randn(qshape, g, device),
                    k_cache=randn((total * PAGE, Hkv, D), g, device), v_cache=randn((total * PAGE, Hkv, D), g, device),
                    page_table=table, seq_lens=lens, o=torch.empty(qshape, device=device, dtype=torch.bfloat16),
                    B=B, Hq=Hq, Hkv=Hkv, max_pages=max_pages, page_size=PAGE)
        args.update(workspace(args["q"], Hkv, max_pages))  # the two-launch kernel's partials
        if verify:
            args["T"] = T
        return args

    def reference(args):
        outs = []
        for b in range(args["B"]):
            L = int(args["seq_lens"][b].item())
            K = gather_kv(args["k_cache"], args["page_table"][b], L)
            V = gather_kv(args["v_cache"], args["page_table"][b], L)
            outs.append(attend(args["q"][b], K, V, args["Hq"], args["Hkv"], args.get("T") if verify else None))
        o = torch.stack(outs) * torch.sigmoid(args["gate"].double())
        return dict(o=o.to(torch.bfloat16))

    def bytes_moved(B, ctx, Hq, Hkv, T=None):
        t = T or 1
        # upper bound: every request at ctx tokens (the real lengths lie in [ctx/2, ctx])
        return B * ctx * Hkv * D * 2 * 2 + B * t * Hq * D * 2 * 3

    suffix = "verify" if verify else "q1"
    return Kernel(name, SHAPES[name], BENCH[name], inputs, reference, {"o": Close(2e-2, 2e-2)}, bytes_moved,
                  launches=(f"attn_split_{suffix}", f"attn_merge_{suffix}"))


VARIANTS = {"attn_decode_q1": _make("attn_decode_q1", False),
            "attn_decode_verify": _make("attn_decode_verify", True)}
