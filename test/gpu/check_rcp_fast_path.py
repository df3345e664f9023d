#!/usr/bin/env python3
"""Exhaustive check, on the GPU, of the reciprocal megac's FP8 quotient path computes (DivisionLowering.cpp,
Tile/Math/ExactQuotient.h's refinedReciprocal): rcp.approx.ftz.f32 and one Newton step with fused operations,
against rcp.rn.f32, for every f32 from 2^-126 to 2^126 (both signs): the range in which it must equal rcp.rn bit
for bit covers the quotient path's divisors, [2^-56, 2^53] (Tile/Quant/Fp8Quotient.h).

usage (GPU machine, Triton installed): python3 test/gpu/check_rcp_fast_path.py [--out FILE.json]
Exits 1 when any f32 in [2^-56, 2^53] differs.
"""
import argparse
import json
import sys

import torch
import triton
import triton.language as tl

# (tl.constexpr: a jitted function reads only constexpr globals)
FAST = tl.constexpr("{ .reg .f32 r, e, n; rcp.approx.ftz.f32 r, $1; neg.f32 n, $1; "
                    "fma.rn.f32 e, n, r, 0f3F800000; fma.rn.f32 $0, r, e, r; }")
EXACT = tl.constexpr("rcp.rn.f32 $0, $1;")


@triton.jit
def _mismatches(counts, first, sign, BLOCK: tl.constexpr):
    # f32 bit patterns first + i (exponent fields 1..252), with the sign bit `sign`
    bits = first + tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    s = (bits | sign).to(tl.float32, bitcast=True)
    fast = tl.inline_asm_elementwise(FAST, "=f,f", [s], dtype=tl.float32, is_pure=True, pack=1)
    exact = tl.inline_asm_elementwise(EXACT, "=f,f", [s], dtype=tl.float32, is_pure=True, pack=1)
    bad = fast.to(tl.int32, bitcast=True) != exact.to(tl.int32, bitcast=True)
    # per binade (exponent field) of s
    binade = (bits >> 23) & 0xFF
    tl.atomic_add(counts + binade, bad.to(tl.int32))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="")
    a = p.parse_args()
    BLOCK = 1024
    per_binade = 1 << 23
    counts = torch.zeros(256, dtype=torch.int32, device="cuda")
    for sign in (0, -(1 << 31)):
        for lo, hi in ((1, 127), (127, 253)):   # two launches: the bit patterns of a launch fit an int32 index
            first = lo << 23
            n = (hi - lo) * per_binade
            _mismatches[(n // BLOCK,)](counts, first, sign, BLOCK=BLOCK)
    torch.cuda.synchronize()
    c = counts.cpu().tolist()
    bad = {e - 127: c[e] for e in range(1, 253) if c[e]}
    used = sum(c[e] for e in range(127 - 56, 127 + 53 + 1))
    result = {"checked": "every f32 of either sign with exponent -126..125 (2^-126 <= |s| < 2^126)",
              "values": 2 * 252 * per_binade, "mismatches_total": sum(c),
              "mismatches_in_quotient_range_2^-56_to_2^53": used,
              "mismatches_by_exponent": bad, "device": torch.cuda.get_device_name()}
    print(json.dumps(result, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)
    sys.exit(1 if used else 0)


if __name__ == "__main__":
    main()
