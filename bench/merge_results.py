#!/usr/bin/env python3
"""Merges the bench_results.json of run_bench.py calls that measured the same commit and bundles on one GPU
machine (a full run does not fit one 10-minute call) into one bench_results.json and benchmarks.md.

The kernels keep the order of the parts; the header (device, versions, copy bandwidth, method) is the first
part's, and every part's date and copy bandwidth are kept under "parts". Parts of different commits are
refused. A kernel may be in two parts only when the earlier one skipped some of its shapes (its time budget ran
out): the later part, which measured the kernel again at every shape, replaces it, and the earlier part's
skipped shapes of that kernel are dropped.
usage: bench/merge_results.py --out DIR PART1.json PART2.json ...
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_bench import markdown  # noqa: E402 (run_bench imports torch only when it measures)


def merge(parts):
    commits = {p["commit"] for p in parts}
    if len(commits) != 1:
        raise SystemExit(f"merge_results: parts of different commits: {sorted(commits)}")
    merged = {k: v for k, v in parts[0].items() if k not in ("kernels", "skipped")}
    merged["kernels"], merged["skipped"] = {}, []
    merged["parts"] = [{"date": p["date"], "copy_gbps": p["copy_gbps"], "kernels": list(p["kernels"])}
                       for p in parts]
    for p in parts:
        for name, entry in p["kernels"].items():
            if name in merged["kernels"]:
                incomplete = [s for s in merged["skipped"] if s.split(" ", 1)[0] == name]
                if not incomplete:
                    raise SystemExit(f"merge_results: kernel {name} is in two parts")
                merged["skipped"] = [s for s in merged["skipped"] if s not in incomplete]
            merged["kernels"][name] = entry
        merged["skipped"] += p.get("skipped", [])
    return merged


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("parts", nargs="+")
    a = ap.parse_args()
    parts = [json.load(open(p)) for p in a.parts]
    merged = merge(parts)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "bench_results.json"), "w") as f:
        json.dump(merged, f, indent=1, default=str)
    with open(os.path.join(a.out, "benchmarks.md"), "w") as f:
        f.write(markdown(merged) + "\n")
    print(f"merged {len(parts)} parts, {len(merged['kernels'])} kernels, {len(merged['skipped'])} skipped shapes")


if __name__ == "__main__":
    main()
