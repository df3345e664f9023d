#!/usr/bin/env python3
"""Median megac compile time (source to PTX, sm_90a, no ptxas) per kernel, as JSON for bench/run_bench.py.

A module's time is shared evenly by the kernels it defines (variants included), since megac compiles a
module at once.  usage: scripts/compile_times.py [--megac build/compiler/tools/megac] [--runs 5] > ms.json
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_ms(megac, path, runs):
    times, kernels = [], []
    for _ in range(runs):
        out = subprocess.run([megac, path, "--target", "sm_90a", "--no-ptxas"], check=True,
                             capture_output=True, text=True).stdout
        rows = [line.split() for line in out.splitlines()[1:] if line.strip()]
        kernels = sorted({r[0] for r in rows})
        times.append(float(re.search(r"([\d.]+)ms", out.splitlines()[1]).group(1)))
    return statistics.median(times), kernels


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--megac", default=os.path.join(ROOT, "build/compiler/tools/megac"))
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    result = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "kernels-dsl/*.mega"))):
        ms, kernels = module_ms(a.megac, path, a.runs)
        for k in kernels:
            result[k] = round(ms / len(kernels), 2)
    print(json.dumps(result, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
