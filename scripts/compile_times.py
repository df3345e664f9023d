#!/usr/bin/env python3
"""Median megac compile time (source to PTX, sm_90a, no ptxas) per kernel, as JSON for bench/run_bench.py.

Each kernel is compiled alone (`megac FILE --kernel NAME`, its variants included): the time megac reports for
that compile, which covers reading and checking the whole file, the tile passes, the lowering, LLVM and PTX.
The runs go round robin over the kernels (one compile of each, then again), so that a slow spell of a shared
machine, which lasts seconds, lands on every kernel's runs alike instead of on a few kernels' medians.
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


def compile_ms(megac, path, kernel):
    out = subprocess.run([megac, path, "--kernel", kernel, "--target", "sm_90a", "--no-ptxas"],
                         check=True, capture_output=True, text=True).stdout
    return float(re.search(r"([\d.]+)ms", out.splitlines()[1]).group(1))


def kernels_of(megac, path):
    out = subprocess.run([megac, path, "--target", "sm_90a", "--no-ptxas"], check=True, capture_output=True,
                         text=True).stdout
    return sorted({line.split()[0] for line in out.splitlines()[1:] if line.strip()})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--megac", default=os.path.join(ROOT, "build/compiler/tools/megac"))
    p.add_argument("--runs", type=int, default=5)
    a = p.parse_args()
    todo = [(path, k) for path in sorted(glob.glob(os.path.join(ROOT, "kernels-dsl/*.mega")))
            for k in kernels_of(a.megac, path)]
    times = {k: [] for _, k in todo}
    for _ in range(a.runs):
        for path, k in todo:
            times[k].append(compile_ms(a.megac, path, k))
    result = {k: round(statistics.median(t), 1) for k, t in times.items()}
    print(json.dumps(result, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
