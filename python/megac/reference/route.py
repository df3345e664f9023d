"""route: softmax router top-k, renormalized. p = softmax(logits) in fp32; top-k of p with ties broken by the
lower expert index; w = p_topk / sum(p_topk). Outputs ids[M, k] i32 (descending p), w[M, k] f32."""
import torch

from megac import testing

from .common import Kernel, generator, randn
from .shapes import BENCH, SHAPES

# Two experts whose reference probabilities differ by less than this (relative) may come out in either
# order (the kernel's exp/sum may differ by an ulp); exactly equal logits must keep the lower index first.
NEAR_TIE_RTOL = 1e-6


def topk_lower_index(p, k):
    """Top-k along the last dim; a stable sort of -p keeps the lower index first among equal values."""
    vals, ids = torch.sort(-p, dim=-1, stable=True)
    return -vals[..., :k], ids[..., :k]


def check_ids(out, ref, args, name):
    """ids must equal the reference except at near-ties (not exact ties) between the two chosen experts."""
    out_l, ref_l = out.long(), ref.long()
    E = args["logits"].shape[-1]
    if ((out_l < 0) | (out_l >= E)).any():
        bad = int(((out_l < 0) | (out_l >= E)).sum().item())
        return testing.Report(name, False, mismatches=bad, detail="expert id out of range (unwritten?)")
    p = torch.softmax(args["logits"].float(), dim=-1)
    logits = args["logits"].float()
    diff = out_l != ref_l
    po, pr = p.gather(-1, out_l), p.gather(-1, ref_l)
    lo, lr = logits.gather(-1, out_l), logits.gather(-1, ref_l)
    near = ((po - pr).abs() <= NEAR_TIE_RTOL * pr) & (lo != lr)
    dup = (out_l.sort(-1).values.diff(dim=-1) == 0).any(-1)
    bad = (diff & ~near) | dup[:, None]
    n_bad = int(bad.sum().item())
    detail = ""
    if n_bad:
        row = int(torch.nonzero(bad.any(-1))[0].item())
        detail = f"row {row}: ids {out_l[row].tolist()} reference {ref_l[row].tolist()}"
    return testing.Report(name, n_bad == 0, mismatches=n_bad, allowed_mismatches=int((diff & near).sum().item()),
                          detail=detail)


def check_w(out, ref, args, name):
    """Weights are compared with the renormalized reference p at the ids the kernel chose."""
    p = torch.softmax(args["logits"].float(), dim=-1)
    ids = args["ids"].long().clamp(0, p.shape[-1] - 1)
    pk = p.gather(-1, ids)
    return testing.check_close(out, pk / pk.sum(-1, keepdim=True), 1e-5, 1e-7, name=name)


def _make(name, dtype):
    def inputs(M, E, k, device="cuda", seed=0):
        g = generator(seed, device)
        # bf16 logits of router scale: exact ties between experts happen, which tests the tie rule
        logits = randn((M, E), g, device, dtype, std=2.0)
        return dict(logits=logits, ids=torch.empty((M, k), device=device, dtype=torch.int32),
                    w=torch.empty((M, k), device=device, dtype=torch.float32), M=M, E=E, k=k)

    def reference(args):
        p = torch.softmax(args["logits"].float(), dim=-1)
        vals, ids = topk_lower_index(p, args["k"])
        return dict(ids=ids.to(torch.int32), w=vals / vals.sum(-1, keepdim=True))

    def bytes_moved(M, E, k):
        return M * E * (2 if dtype == torch.bfloat16 else 4) + M * k * 8

    return Kernel(name, SHAPES[name], BENCH[name], inputs, reference, {"ids": check_ids, "w": check_w}, bytes_moved)


VARIANTS = {"route": _make("route", torch.bfloat16), "route_f32": _make("route_f32", torch.float32)}
