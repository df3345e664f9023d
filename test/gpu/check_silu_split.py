#!/usr/bin/env python3
"""Exhaustive measurement, on the GPU, of gdn_norm_gate_fp8's silu (silu_split in kernels-dsl/gdn_norm_gate.mega:
exp(-x) as 2^t * (1 + lo ln 2), t = -x log2(e) rounded and lo its error, under @fast_math) against float64, beside
@fast_math's builtin silu (one ex2.approx of the rounded product), for every finite f32 x.

Error in ulps of the float64 silu rounded to f32 where x > LOW (1 + 2^t below 2^126, where div.approx stops giving
0) and that is a normal number (|silu(x)| >= 2^-126); elsewhere the absolute error (silu_split returns -0 below LOW,
where |silu(x)| < 1.03e-36). A NaN for a finite x counts as a failure. Through test/gpu/silu_split_all.mega.
With --kernels DIR (a bundle directory), gdn_norm_gate_fp8 itself also runs on z drawn from [-120, 120] (the shapes'
inputs draw it from a normal distribution, never past 6), against its reference and its byte rule.
usage (GPU machine): PYTHONPATH=build-gpu/python python3 test/gpu/check_silu_split.py --bundle B.mgb [--kernels DIR]
    [--out F]
Exits 1 when silu_split errs by more than MAX_ULPS, by more than MAX_ABS elsewhere, or returns NaN for a finite x:
the bounds the kernel's comment states and gdn_norm_gate_fp8's 16-ulp band relies on.
"""
import argparse
import json
import sys

import torch

CHUNK = 1 << 28
MAX_ULPS = 6.0      # 5.54 measured (results/silu_split_26ca45c.json)
MAX_ABS = 1.03e-36   # |silu(x)| at x = -126 ln 2
TINY = 2.0 ** -126
LOW = -87.33         # just above -126 ln 2: below, 1 + 2^(-x log2(e)) passes 2^126


def errors(y, x):
    """(largest error in ulps where x > LOW and silu(x) is normal, largest absolute error elsewhere, the x of
    the first, NaN outputs) over finite x."""
    xd = x.double()
    ref = xd * torch.sigmoid(xd)
    r32 = ref.float()
    ulp = (torch.nextafter(r32.abs(), torch.tensor(float("inf"), device=x.device)) - r32.abs()).double()
    err = (y.double() - ref).abs()
    finite = x.isfinite()
    nans = int((finite & y.isnan()).sum())
    err = torch.where(y.isnan(), torch.zeros_like(err), err)
    normal = finite & (x > LOW) & (r32.abs() >= TINY)
    rest = finite & ~normal
    ulps = torch.where(normal, err / ulp, torch.zeros_like(err))
    small = torch.where(rest, err, torch.zeros_like(err))
    worst = int(ulps.argmax())
    return float(ulps.max()), float(small.max()), float(x[worst]), nans


def run(bundle):
    import megac
    mod = megac.load(bundle)
    out = {"split": [0.0, 0.0, 0.0, 0], "builtin": [0.0, 0.0, 0.0, 0]}
    for c in range(1 << 32 - 28):
        bits = torch.arange(c * CHUNK, (c + 1) * CHUNK, dtype=torch.int64, device="cuda").to(torch.int32)
        x = bits.view(torch.float32)
        split, builtin = torch.empty_like(x), torch.empty_like(x)
        mod.silu_split_all(x, split, builtin, CHUNK)
        for name, y in (("split", split), ("builtin", builtin)):
            u, a, at, nans = errors(y, x)
            if u > out[name][0]:
                out[name][0], out[name][2] = u, at
            out[name][1] = max(out[name][1], a)
            out[name][3] += nans
    torch.cuda.synchronize()
    return {name: {"max_ulps": u, "max_abs_error_elsewhere": a, "worst_x": at, "nan_outputs": nans}
            for name, (u, a, at, nans) in out.items()}


def wide_z(directory, seed=11):
    """gdn_norm_gate_fp8 at M = 4096, HV = 8 with z uniform in [-120, 120], output poisoned first: its report."""
    from megac import bundles, reference, testing
    from megac.reference.common import run_checks
    kernel = reference.get("gdn_norm_gate_fp8")
    found, _ = bundles.index(directory)
    args = kernel.inputs(M=4096, HV=8, seed=seed)
    g = torch.Generator(device="cuda").manual_seed(seed)
    args["z"] = (torch.rand(args["z"].shape, generator=g, device="cuda") * 240 - 120).to(torch.bfloat16)
    ref = kernel.reference(args)
    testing.poison(args["y"])
    bundles.sequence(kernel, found)(**args)
    torch.cuda.synchronize()
    (report,) = run_checks(kernel.checks, args, ref)
    return {"ok": report.ok, "mismatches": report.mismatches, "allowed_mismatches": report.allowed_mismatches,
            "detail": report.detail}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bundle", required=True)
    p.add_argument("--kernels", default="")
    p.add_argument("--out", default="")
    a = p.parse_args()
    result = run(a.bundle)
    if a.kernels:
        result["gdn_norm_gate_fp8_wide_z"] = wide_z(a.kernels)
    result.update(patterns=1 << 32, bound_ulps=MAX_ULPS, bound_abs=MAX_ABS, device=torch.cuda.get_device_name())
    text = json.dumps(result, indent=1)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    s = result["split"]
    ok = s["max_ulps"] <= MAX_ULPS and s["max_abs_error_elsewhere"] <= MAX_ABS and s["nan_outputs"] == 0
    ok = ok and result.get("gdn_norm_gate_fp8_wide_z", {"ok": True})["ok"]
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
