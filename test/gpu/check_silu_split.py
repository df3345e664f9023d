#!/usr/bin/env python3
"""Exhaustive measurement, on the GPU, of gdn_norm_gate_fp8's silu (silu_split in kernels-dsl/gdn_norm_gate.mega:
exp(-x) as 2^t * (1 + lo ln 2), t = -x log2(e) rounded and lo its error, under @fast_math) against float64, beside
@fast_math's builtin silu (one ex2.approx of the rounded product), for every finite f32 x.

Error in ulps of the float64 silu rounded to f32, where that is a normal number (|silu(x)| >= 2^-126); below, the
absolute error. Through test/gpu/silu_split_all.mega.
usage (GPU machine): PYTHONPATH=build-gpu/python python3 test/gpu/check_silu_split.py --bundle B.mgb [--out F]
Exits 1 when silu_split errs by more than MAX_ULPS anywhere, or by more than 2^-126 below the normal range: the
bound docs/kernels.md states and gdn_norm_gate_fp8's 16-ulp band relies on.
"""
import argparse
import json
import sys

import torch

CHUNK = 1 << 28
MAX_ULPS = 4.0
TINY = 2.0 ** -126


def errors(y, x):
    """(largest error in ulps where silu(x) is normal, largest absolute error where it is not) over finite x."""
    xd = x.double()
    ref = xd * torch.sigmoid(xd)
    r32 = ref.float()
    ulp = (torch.nextafter(r32.abs(), torch.tensor(float("inf"), device=x.device)) - r32.abs()).double()
    err = (y.double() - ref).abs()
    finite = x.isfinite()
    normal = finite & (r32.abs() >= TINY)
    tiny = finite & ~normal
    ulps = torch.where(normal, err / ulp, torch.zeros_like(err))
    small = torch.where(tiny, err, torch.zeros_like(err))
    worst = int(ulps.argmax())
    return float(ulps.max()), float(small.max()), float(x[worst])


def run(bundle):
    import megac
    mod = megac.load(bundle)
    out = {"split": [0.0, 0.0, 0.0], "builtin": [0.0, 0.0, 0.0]}
    for c in range(1 << 32 - 28):
        bits = torch.arange(c * CHUNK, (c + 1) * CHUNK, dtype=torch.int64, device="cuda").to(torch.int32)
        x = bits.view(torch.float32)
        split, builtin = torch.empty_like(x), torch.empty_like(x)
        mod.silu_split_all(x, split, builtin, CHUNK)
        for name, y in (("split", split), ("builtin", builtin)):
            u, a, at = errors(y, x)
            if u > out[name][0]:
                out[name][0], out[name][2] = u, at
            out[name][1] = max(out[name][1], a)
    torch.cuda.synchronize()
    return {name: {"max_ulps_normal": u, "max_abs_error_below_normal": a, "worst_x": at}
            for name, (u, a, at) in out.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bundle", required=True)
    p.add_argument("--out", default="")
    a = p.parse_args()
    result = run(a.bundle)
    result.update(patterns=1 << 32, bound_ulps=MAX_ULPS, device=torch.cuda.get_device_name())
    text = json.dumps(result, indent=1)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    s = result["split"]
    sys.exit(0 if s["max_ulps_normal"] <= MAX_ULPS and s["max_abs_error_below_normal"] <= TINY else 1)


if __name__ == "__main__":
    main()
