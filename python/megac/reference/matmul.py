"""matmul, matmul_nt, matmul_f16: c = a @ b (b [K, N]) or a @ b^T (b [N, K]) in f32 from bf16 (f16 for
matmul_f16): the test of the language's `dot` (tensor cores) on its own, at shapes with partial tiles. Not a
Qwen3.5 kernel: nothing to benchmark."""
import torch

from .common import Close, Kernel, generator, randn
from .shapes import SHAPES

def _make(name, transposed, dtype=torch.bfloat16):
    def inputs(M, N, K, device="cuda", seed=0):
        g = generator(seed, device)
        return dict(a=randn((M, K), g, device, dtype), b=randn((N, K) if transposed else (K, N), g, device, dtype),
                    c=torch.empty((M, N), device=device, dtype=torch.float32), M=M, N=N, K=K)

    def reference(args):
        b = args["b"].double()
        return dict(c=args["a"].double() @ (b.T if transposed else b))

    def bytes_moved(M, N, K):
        return 2 * (M * K + K * N) + 4 * M * N

    # products of bf16 values are exact in f32; only the f32 sums round
    return Kernel(name, SHAPES[name], [], inputs, reference, {"c": Close(1e-4, 1e-4)}, bytes_moved)


# matmul_f16: f16 operands, K = 64 (one step), N a multiple of 8 (shapes.py).
VARIANTS = {"matmul": _make("matmul", False), "matmul_nt": _make("matmul_nt", True),
            "matmul_f16": _make("matmul_f16", False, torch.float16)}
