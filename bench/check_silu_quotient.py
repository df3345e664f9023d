#!/usr/bin/env python3
"""Exploratory (shared_act_quant, next step): is silu's division x / (1 + exp(-x)) for a bf16 gate x computed
exactly by Markstein's quotient without div.rn's check, for every one of the 65,536 bf16 values? On the GPU:
d = 1 + expf(-x) with libdevice's accurate expf (what megac's `silu` computes), the reference RN(x / d) by
div.rn.f32, and y = rcp.rn's fast path (rcp.approx.ftz, one fused Newton step), q0 = x * y, r = fma(-q0, d, x),
q = fma(r, y, q0). Counts the gates whose q differs from div.rn's in any bit, by the range of d.

usage (GPU machine, Triton installed): python3 bench/check_silu_quotient.py [--out FILE.json]
"""
import argparse
import json
import os
import sys

import torch
import triton
import triton.language as tl
try:
    from triton.language.extra.cuda import libdevice
except ImportError:  # older layouts
    from triton.language.extra import libdevice

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "gpu"))
from check_rcp_fast_path import FAST as RCP  # noqa: E402  (the compiler's reciprocal, as that check runs it)

QUOTIENT = tl.constexpr("{ .reg .f32 q0, r, nq; mul.rn.f32 q0, $1, $3; neg.f32 nq, q0; "
                        "fma.rn.f32 r, nq, $2, $1; fma.rn.f32 $0, r, $3, q0; }")
DIV_RN = tl.constexpr("div.rn.f32 $0, $1, $2;")


@triton.jit
def _silu_quotients(out_ref, out_fast, out_d, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = (i << 16).to(tl.float32, bitcast=True)          # every bf16 bit pattern, widened exactly
    d = 1.0 + libdevice.exp(-x)
    ref = tl.inline_asm_elementwise(DIV_RN, "=f,f,f", [x, d], dtype=tl.float32, is_pure=True, pack=1)
    y = tl.inline_asm_elementwise(RCP, "=f,f", [d], dtype=tl.float32, is_pure=True, pack=1)
    fast = tl.inline_asm_elementwise(QUOTIENT, "=f,f,f,f", [x, d, y], dtype=tl.float32, is_pure=True, pack=1)
    tl.store(out_ref + i, ref)
    tl.store(out_fast + i, fast)
    tl.store(out_d + i, d)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="")
    a = p.parse_args()
    n = 1 << 16
    ref, fast, d = (torch.empty(n, dtype=torch.float32, device="cuda") for _ in range(3))
    _silu_quotients[(n // 1024,)](ref, fast, d, BLOCK=1024)
    torch.cuda.synchronize()
    x = (torch.arange(n, dtype=torch.int32, device="cuda") << 16).view(torch.float32)
    differ = (ref.view(torch.int32) != fast.view(torch.int32)) & ~(ref.isnan() & fast.isnan())
    finite_x = torch.isfinite(x)
    groups = {
        "d < 2^126": finite_x & (d < 2.0 ** 126),
        "2^126 <= d < inf": finite_x & (d >= 2.0 ** 126) & torch.isfinite(d),
        "d = inf": finite_x & torch.isinf(d),
        "x not finite": ~finite_x,
    }
    result = {"values": n, "device": torch.cuda.get_device_name(),
              "by_range": {k: {"gates": int(m.sum()), "differ": int((differ & m).sum())} for k, m in groups.items()}}
    bad = differ & groups["d < 2^126"]
    if bad.any():
        idx = bad.nonzero().flatten()[:8].tolist()
        result["first_differing_in_range"] = [{"x": float(x[j]), "d": float(d[j]), "div_rn": float(ref[j]),
                                               "markstein": float(fast[j])} for j in idx]
    print(json.dumps(result, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
