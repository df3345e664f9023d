"""draft_fin: MoE finalize. out[t] = sum_k topk_w[t, k] * y[t, k, :] + sigmoid(x[t] . w_seg) * shared[t]
(+ residual[t] in the draft_fin_residual variant), fp32 math, bf16 out."""
import torch

from .common import Close, Kernel, generator, randn
from .shapes import BENCH, SHAPES


def _make(name, with_residual):
    def inputs(M, H, k, device="cuda", seed=0):
        g = generator(seed, device)
        w = torch.softmax(randn((M, k), g, device, torch.float32), -1)
        args = dict(y=randn((M, k, H), g, device), topk_w=w, x=randn((M, H), g, device),
                    w_seg=randn((H,), g, device, std=H ** -0.5), shared=randn((M, H), g, device),
                    out=torch.empty((M, H), device=device, dtype=torch.bfloat16), M=M, H=H, k=k)
        if with_residual:
            args["residual"] = randn((M, H), g, device)
        return args

    def reference(args):
        acc = (args["topk_w"].float()[..., None] * args["y"].float()).sum(1)
        gate = torch.sigmoid((args["x"].float() * args["w_seg"].float()).sum(-1, keepdim=True))
        out = acc + gate * args["shared"].float()
        if with_residual:
            out = out + args["residual"].float()
        return dict(out=out.to(torch.bfloat16))

    def bytes_moved(M, H, k):
        return M * H * 2 * (k + 3 + (1 if with_residual else 0)) + M * k * 4 + H * 2

    return Kernel(name, SHAPES[name], BENCH[name], inputs, reference, {"out": Close(1e-2, 1e-2)}, bytes_moved)


VARIANTS = {"draft_fin": _make("draft_fin", False), "draft_fin_residual": _make("draft_fin_residual", True)}
