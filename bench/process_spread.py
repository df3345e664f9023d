#!/usr/bin/env python3
"""The spread of the megac/Triton ratio across processes: run_bench.py run N times, each in a fresh process, on
the same bundles and kernels, then one table of every shape's ratio (median and min-max over the processes) and
megac's and Triton's times (min-max).

Within one run_bench.py call the ratio's min-max is over rounds of one process. Between processes it moves more:
the same shared_act_quant PTX took 4.93 us in one process and 5.18 us in another (Triton 4.92 and 4.91;
results/benchmarks_partial_8a89374.README.md), so a ratio near 1.00 says little until it holds across processes.

usage (GPU machine, after scripts/gpu-check.sh built build-gpu/):
    PYTHONPATH=build-gpu/python python3 bench/process_spread.py --processes 3 --out OUTDIR \\
        [--bundles out/bundles] [--kernels a,b] [run_bench.py options, e.g. --shape M=4096 --no-compile]
Writes OUTDIR/p<i>/ (each process's own files), OUTDIR/spread.json and OUTDIR/spread.md.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def spread(parts):
    """{kernel: [{shape, ratios, megac_us, triton_us}]} over the bench_results of several processes, shapes in
    the first process's order; a shape a process did not time (skipped, failed) is left out of its lists."""
    out = {}
    for part in parts:
        for name, entry in part["kernels"].items():
            rows = out.setdefault(name, [])
            for r in entry["rows"]:
                key = json.dumps(r["shape"], sort_keys=True)
                row = next((x for x in rows if x["key"] == key), None)
                if row is None:
                    row = {"key": key, "shape": r["shape"], "ratios": [], "megac_us": [], "triton_us": []}
                    rows.append(row)
                m, t = r.get("megac", {}), r.get("triton", {})
                if m.get("status") == "ok" and t.get("status") == "ok":
                    row["ratios"].append(m["ratio"])
                    row["megac_us"].append(m["us"])
                    row["triton_us"].append(t["us"])
    for rows in out.values():
        for row in rows:
            del row["key"]
    return out


def _range(values, fmt):
    return f"{fmt.format(min(values))}-{fmt.format(max(values))}" if values else ""


def markdown(table, processes):
    lines = [f"# megac/Triton across {processes} processes", "",
             "Ratio = Triton time / megac time (> 1: megac faster), one per process (run_bench.py's median of "
             "its rounds); here their median and min-max, and each implementation's time (us) min-max.", ""]
    for name, rows in table.items():
        lines += [f"## {name}", "", "| shape | ratio median (min-max) | processes >= 1.00 | megac us | Triton us |",
                  "|---|---|---|---|---|"]
        for row in rows:
            shape = ", ".join(f"{k}={v}" for k, v in row["shape"].items())
            ratios = row["ratios"]
            if not ratios:
                lines.append(f"| {shape} | not timed | | | |")
                continue
            at_least = sum(1 for x in ratios if x >= 1.0)
            lines.append(f"| {shape} | {statistics.median(ratios):.3f} ({_range(ratios, '{:.3f}')}) | "
                         f"{at_least} of {len(ratios)} | {_range(row['megac_us'], '{:.2f}')} | "
                         f"{_range(row['triton_us'], '{:.2f}')} |")
        lines.append("")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--processes", type=int, default=3)
    ap.add_argument("--out", required=True)
    ap.add_argument("--bundles", default="out/bundles")
    a, rest = ap.parse_known_args()
    if a.processes < 2:
        ap.error("--processes must be at least 2")
    parts = []
    for i in range(a.processes):
        part_dir = os.path.join(a.out, f"p{i}")
        cmd = [sys.executable, os.path.join(HERE, "run_bench.py"), "--bundles", a.bundles, "--out", part_dir] + rest
        code = subprocess.call(cmd)
        path = os.path.join(part_dir, "bench_results.json")
        if not os.path.exists(path):
            raise SystemExit(f"process_spread: process {i} wrote no results (run_bench exit {code})")
        parts.append(json.load(open(path)))
    table = spread(parts)
    with open(os.path.join(a.out, "spread.json"), "w") as f:
        json.dump({"commit": parts[0].get("commit"), "processes": a.processes, "kernels": table}, f, indent=1)
    with open(os.path.join(a.out, "spread.md"), "w") as f:
        f.write(markdown(table, a.processes) + "\n")
    print(f"process_spread: {a.processes} processes -> {os.path.join(a.out, 'spread.md')}")


if __name__ == "__main__":
    main()
