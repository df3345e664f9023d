#!/usr/bin/env python3
"""The benchmark's baselines against KERNELS.md's rules at every shape: each hand-written Triton kernel
(bench/triton_kernels.py) and each torch eager path (the slots' stock paths, megac.stock) run on fresh inputs
with their outputs poisoned first, and checked with the correctness suite's checks at every listed and every
benchmarked shape. run_bench.py checks each implementation at a kernel's first shape only, before timing it;
this says whether the baselines megac is timed against meet the rules megac's kernels are held to.

usage (GPU machine, after scripts/gpu-check.sh built build-gpu/):
    PYTHONPATH=build-gpu/python python3 bench/check_baselines.py --out OUT.json [--kernels a,b] [--impls triton]
Prints one line per kernel and implementation; exit 1 when a baseline fails somewhere.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def check_shape(kernel, fn, shape, device="cuda", seed=11):
    """fn on fresh inputs of one shape against the reference: {shape, ok, mismatches, allowed, detail}."""
    from megac.reference.common import run_once
    try:
        reports, _ = run_once(kernel, fn, shape, device, seed)
        ok = all(r.ok for r in reports)
        return {"shape": shape, "ok": ok,
                "mismatches": sum(r.mismatches or 0 for r in reports),
                "allowed": sum(r.allowed_mismatches or 0 for r in reports),
                "detail": "" if ok else "; ".join(r.message() for r in reports if not r.ok)[:300]}
    except Exception as e:  # a baseline that raises fails the shape, and the others still run
        return {"shape": shape, "ok": False, "detail": f"error: {type(e).__name__}: {e}"[:300]}


def check(kernel, fn, device="cuda"):
    return [check_shape(kernel, fn, s, device) for s in kernel.every_shape()]


def line(name, impl, rows):
    bad = [r for r in rows if not r["ok"]]
    text = f"{name:24s} {impl:7s} {len(rows) - len(bad):3d}/{len(rows)} shapes pass"
    allowed = sum(r.get("allowed", 0) for r in rows)
    if allowed:
        text += f" ({allowed} bytes within the rule's band)"
    if bad:
        text += "; fails at " + ", ".join(str(r["shape"]) for r in bad[:4]) + (" ..." if len(bad) > 4 else "")
    return text


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--out", required=True, help="JSON file: every shape's result per kernel and implementation")
    p.add_argument("--kernels", default="", help="comma list (default: every kernel with a Triton baseline)")
    p.add_argument("--impls", default="triton,torch", help="comma list of triton, torch")
    o = p.parse_args()
    sys.path.insert(0, HERE)
    import triton_kernels
    from megac import reference
    from megac.stock import EAGER
    launchers = {"triton": triton_kernels.LAUNCHERS, "torch": EAGER}
    names = o.kernels.split(",") if o.kernels else list(triton_kernels.LAUNCHERS)
    result, failed = {}, False
    for name in names:
        kernel = reference.get(name)
        for impl in o.impls.split(","):
            fn = launchers[impl].get(name)
            if fn is None:
                continue
            rows = check(kernel, fn)
            result.setdefault(name, {})[impl] = rows
            failed |= not all(r["ok"] for r in rows)
            print(line(name, impl, rows), flush=True)
    with open(o.out, "w") as f:
        json.dump(result, f, indent=1, default=str)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
