#!/usr/bin/env python3
"""Exhaustive check, on the GPU, that @fast_math's silu and sigmoid (DivisionLowering.cpp, lowerFastDivide: the
quotient by 1 + exp(-x), a divisor at least 1 or NaN, is x * rcp.approx.ftz(d)) give the bits of the division they
replaced, div.approx.f32 (libdevice's __nv_fast_fdividef), for every f32 x.

The reference is a Triton kernel whose inline PTX is the replaced sequence, instruction for instruction:
    t = x * -log2(e); e = ex2.approx.ftz(t); d = e + 1; silu = div.approx(x, d); sigmoid = div.approx(1, d)
megac's side is test/gpu/fast_logistic_all.mega (8 values a thread). All 2^32 bit patterns, in order.
usage (GPU machine): PYTHONPATH=build-gpu/python python3 test/gpu/check_fast_logistic.py --bundle B.mgb [--out F]
Exits 1 when any output differs (NaN equals NaN).
"""
import torch
import triton
import triton.language as tl

from check_logistic_quotient import differ, main

CHUNK = 1 << 28
REPLACED = """{
  .reg .f32 t, d;
  mul.rn.f32 t, $2, 0fBFB8AA3B;
  ex2.approx.ftz.f32 t, t;
  add.rn.f32 d, t, 0f3F800000;
  div.approx.f32 $0, $2, d;
  div.approx.f32 $1, 0f3F800000, d;
}"""


@triton.jit
def _replaced(x_ptr, s_ptr, g_ptr, ASM: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    s, g = tl.inline_asm_elementwise(ASM, "=r,=r,r", [x], dtype=(tl.float32, tl.float32), is_pure=True, pack=1)
    tl.store(s_ptr + offs, s)
    tl.store(g_ptr + offs, g)


def run(bundle):
    import megac
    mod = megac.load(bundle)
    totals = {"silu": 0, "sigmoid": 0}
    for c in range(1 << 32 - 28):
        x = torch.arange(c * CHUNK, (c + 1) * CHUNK, dtype=torch.int64, device="cuda").to(torch.int32)
        x = x.view(torch.float32)
        s, g, rs, rg = (torch.empty_like(x) for _ in range(4))
        mod.fast_logistic_all(x, s, g, CHUNK)
        _replaced[(CHUNK // 1024,)](x, rs, rg, ASM=REPLACED, BLOCK=1024)
        totals["silu"] += differ(s, rs)
        totals["sigmoid"] += differ(g, rg)
    torch.cuda.synchronize()
    return totals


if __name__ == "__main__":
    main(run, __doc__)
