#!/usr/bin/env python3
"""Does the layout of megac's machine code move its compile times? (exploratory)

Times several megac binaries of the same sources (`NAME=PATH`; the first is the baseline), e.g. the portable
megac linked alone (`MEGAC_PORTABLE_BOLT=0 scripts/portable-megac.sh`) and laid out by BOLT (the script's
default), on every kernel of kernels-dsl/, as scripts/compile_times.py times them (`megac FILE --kernel NAME
--target sm_90a --no-ptxas`, the compile time megac reports), plus each process's wall time, user and system
CPU time and minor page faults. Round robin over kernels, the binaries' order rotating each round, so that a
slow spell of a shared machine lands on all alike.

usage: bench/compile_layout_probe.py NAME=PATH NAME=PATH... [--runs 11] [--out FILE.json]
Prints per kernel each binary's median compile ms and wall ms, and its ratio to the baseline's.
"""
import argparse
import glob
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from compile_times import kernels_of  # noqa: E402  (scripts/ is no package)
from compile_env_probe import medians, one_compile  # noqa: E402  (this directory, bench/)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binaries", nargs="+", help="NAME=PATH; the first is the baseline")
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--out")
    a = p.parse_args()
    binaries = dict(b.split("=", 1) for b in a.binaries)
    names = list(binaries)
    first = binaries[names[0]]
    todo = [(path, k) for path in sorted(glob.glob(os.path.join(ROOT, "kernels-dsl/*.mega")))
            for k in kernels_of(first, path)]
    samples = {(n, k): [] for n in names for _, k in todo}
    for run in range(a.runs):
        for path, k in todo:
            shift = run % len(names)
            for n in names[shift:] + names[:shift]:
                samples[(n, k)].append(one_compile(binaries[n], path, k))
    rows = [{"binary": n, "kernel": k, **medians(samples[(n, k)])} for n in names for _, k in todo]
    median = {(r["binary"], r["kernel"]): r for r in rows}
    print(f"{'kernel':22s}" + "".join(f"{n + ' ms / wall':>26s}" for n in names))
    for _, k in todo:
        base = median[(names[0], k)]
        cells = []
        for n in names:
            r = median[(n, k)]
            cells.append(f"{r['ms']:6.1f} / {r['wall_ms']:6.1f} ({r['ms'] / base['ms']:.3f})")
        print(f"{k:22s}" + "".join(f"{c:>26s}" for c in cells))
    for n in names[1:]:
        ratios = [median[(n, k)]["ms"] / median[(names[0], k)]["ms"] for _, k in todo]
        walls = [median[(n, k)]["wall_ms"] / median[(names[0], k)]["wall_ms"] for _, k in todo]
        print(f"{n} / {names[0]}: compile ms median ratio {statistics.median(ratios):.3f} "
              f"({min(ratios):.3f}-{max(ratios):.3f}), wall {statistics.median(walls):.3f}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"runs": a.runs, "binaries": binaries, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
