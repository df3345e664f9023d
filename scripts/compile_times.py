#!/usr/bin/env python3
"""Median megac compile time (source to PTX, sm_90a, no ptxas) per kernel, as JSON for bench/run_bench.py.

Each kernel is compiled alone (`megac FILE --kernel NAME`, its variants included): the time megac reports for
that compile, which covers reading and checking the whole file, the tile passes, the lowering, LLVM and PTX.
usage: scripts/compile_times.py [--megac build/compiler/tools/megac] [--runs 5] > ms.json
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def compile_ms(megac, path, kernel, runs):
    times = []
    for _ in range(runs):
        out = subprocess.run([megac, path, "--kernel", kernel, "--target", "sm_90a", "--no-ptxas"],
                             check=True, capture_output=True, text=True).stdout
        times.append(float(re.search(r"([\d.]+)ms", out.splitlines()[1]).group(1)))
    return statistics.median(times)


def kernels_of(megac, path):
    out = subprocess.run([megac, path, "--target", "sm_90a", "--no-ptxas"], check=True, capture_output=True,
                         text=True).stdout
    return sorted({line.split()[0] for line in out.splitlines()[1:] if line.strip()})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--megac", default=os.path.join(ROOT, "build/compiler/tools/megac"))
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    result = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "kernels-dsl/*.mega"))):
        for k in kernels_of(a.megac, path):
            result[k] = round(compile_ms(a.megac, path, k, a.runs), 1)
    print(json.dumps(result, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
