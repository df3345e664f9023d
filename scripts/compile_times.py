#!/usr/bin/env python3
"""Median megac compile time (source to PTX, sm_90a, no ptxas) per kernel, as JSON for bench/run_bench.py.

Each kernel is compiled alone (`megac FILE --kernel NAME`, its variants included): the time megac reports for
that compile, which covers reading and checking the whole file, the tile passes, the lowering, LLVM and PTX.
The runs go round robin over the kernels (one compile of each, then again), so that a slow spell of a shared
machine, which lasts seconds, lands on every kernel's runs alike instead of on a few kernels' medians.
usage: scripts/compile_times.py [--megac build/compiler/tools/megac] [--runs 5] > ms.json
With --baseline OTHER_MEGAC each kernel's compile alternates between the two compilers (a slow spell lands on
both alike) and the JSON gives, per kernel, {"megac": ms, "baseline": ms}.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def compile_ms(megac, path, kernel, env=None):
    """The compile time megac reports for `kernel` of `path` (sm_90a, no ptxas); env: the process environment."""
    out = subprocess.run([megac, path, "--kernel", kernel, "--target", "sm_90a", "--no-ptxas"],
                         check=True, capture_output=True, text=True, env=env).stdout
    return float(re.search(r"([\d.]+)ms", out.splitlines()[1]).group(1))


def kernels_of(megac, path):
    out = subprocess.run([megac, path, "--target", "sm_90a", "--no-ptxas"], check=True, capture_output=True,
                         text=True).stdout
    return sorted({line.split()[0] for line in out.splitlines()[1:] if line.strip()})


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--megac", default=os.path.join(ROOT, "build/compiler/tools/megac"))
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--baseline", help="another megac, alternated with --megac")
    a = p.parse_args()
    todo = [(path, k) for path in sorted(glob.glob(os.path.join(ROOT, "kernels-dsl/*.mega")))
            for k in kernels_of(a.megac, path)]
    compilers = {"megac": a.megac, **({"baseline": a.baseline} if a.baseline else {})}
    times = {(k, name): [] for _, k in todo for name in compilers}
    for run in range(a.runs):
        for path, k in todo:
            # Alternate which compiler goes first, so that neither always warms the file cache.
            for name in (list(compilers) if run % 2 == 0 else list(reversed(compilers))):
                times[(k, name)].append(compile_ms(compilers[name], path, k))
    median = {key: round(statistics.median(t), 1) for key, t in times.items()}
    if a.baseline:
        result = {k: {name: median[(k, name)] for name in compilers} for _, k in todo}
    else:
        result = {k: median[(k, "megac")] for _, k in todo}
    print(json.dumps(result, indent=1, sort_keys=True))


if __name__ == "__main__":
    main()
