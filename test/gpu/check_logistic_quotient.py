#!/usr/bin/env python3
"""Exhaustive check, on the GPU, of silu's and sigmoid's exact division as megac compiles it (DivisionLowering.cpp,
Tile/Math/ExactQuotient.h: exactQuotient for a thread's values when every argument is in range, one check; else
siluQuotientAnywhere or div.rn), for every f32 x, against x / (1 + exp(-x)) and 1 / (1 + exp(-x)) in IEEE f32 with
CUDA's expf (Triton: libdevice exp, div_rn) and against torch's silu and sigmoid.

Four sweeps over all 2^32 bit patterns, through test/gpu/logistic_all.mega (8 values a thread):
  plain      - the patterns in order (most threads take the fast path, those holding |x| > 87 the other);
  fast       - every x outside the fast path's range (|x| > 87 or NaN) replaced by 0: all others take the fast path;
  slow0/1    - every 8th x (offset 0, then 1) replaced by -1e30: every thread takes the other path, and each
               pattern is on it in one of the two sweeps.
usage (GPU machine): PYTHONPATH=build-gpu/python python3 test/gpu/check_logistic_quotient.py --bundle B.mgb [--out F]
Exits 1 when any output differs (NaN equals NaN) from either reference.
"""
import argparse
import json
import sys

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice

CHUNK = 1 << 28


@triton.jit
def _reference(x_ptr, s_ptr, g_ptr, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offs)
    d = 1.0 + libdevice.exp(-x)
    tl.store(s_ptr + offs, tl.math.div_rn(x, d))
    tl.store(g_ptr + offs, tl.math.div_rn(tl.full(x.shape, 1.0, tl.float32), d))


def differ(a, b):
    """Elements whose bits differ, NaN equal to NaN."""
    return int(((a.view(torch.int32) != b.view(torch.int32)) & ~(a.isnan() & b.isnan())).sum())


def sweep(mod, x):
    n = x.numel()
    s, g = torch.empty_like(x), torch.empty_like(x)
    mod.logistic_all(x, s, g, n)
    rs, rg = torch.empty_like(x), torch.empty_like(x)
    _reference[(n // 1024,)](x, rs, rg, BLOCK=1024)
    ts, tg = torch.nn.functional.silu(x), torch.sigmoid(x)
    return {"silu_vs_triton": differ(s, rs), "sigmoid_vs_triton": differ(g, rg),
            "silu_vs_torch": differ(s, ts), "sigmoid_vs_torch": differ(g, tg)}


def run(bundle):
    import megac
    mod = megac.load(bundle)
    totals = {}
    for c in range(1 << 32 - 28):
        bits = torch.arange(c * CHUNK, (c + 1) * CHUNK, dtype=torch.int64, device="cuda").to(torch.int32)
        base = bits.view(torch.float32)
        inputs = {"plain": base,
                  "fast": torch.where(base.abs() <= 87.0, base, torch.zeros_like(base))}
        for k in (0, 1):
            forced = base.clone()
            forced[k::8] = -1e30
            inputs[f"slow{k}"] = forced
        for name, x in inputs.items():
            for key, bad in sweep(mod, x).items():
                totals[f"{name}.{key}"] = totals.get(f"{name}.{key}", 0) + bad
    torch.cuda.synchronize()
    return totals


def main(run_check, doc):
    """The command line of an exhaustive check (this one, check_fast_logistic.py): --bundle B.mgb [--out F.json];
    prints the mismatch counts run_check(bundle) returns and exits 1 if one is not 0."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bundle", required=True)
    p.add_argument("--out", default="")
    a = p.parse_args()
    totals = run_check(a.bundle)
    result = {"patterns": 1 << 32, "mismatches": totals, "device": torch.cuda.get_device_name(),
              "torch": torch.__version__, "triton": triton.__version__}
    print(json.dumps(result, indent=1))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1)
    sys.exit(1 if any(totals.values()) else 0)


if __name__ == "__main__":
    main(run, __doc__)
