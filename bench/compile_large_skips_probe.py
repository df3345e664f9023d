#!/usr/bin/env python3
"""Do the pass runs skipped on large functions (compiler/codegen/PassSkipListLarge.inc) take time off a compile
on this machine? (exploratory)

One megac, several environments: its built-in lists ("list"), `MEGAC_LARGE_PASS_SKIPS=none` ("none": the large
functions' list off, the rest alike: the same binary, the same code layout), `MEGAC_COSTLY_PASS_SKIPS=none`
("no_costly": the runs skipped on large functions for their cost made), and with `--alt NAME=FILE` each other
large functions' list to try (FILE: its keys, comma-separated, as MEGAC_LARGE_PASS_SKIPS takes them; the costly
runs' list stays). Times `megac FILE --kernel NAME --target sm_90a
--no-ptxas` (the compile time megac reports, as scripts/compile_times.py times it) for the kernels with a large
function and a few without (controls: their pipeline is the same under both), round robin over kernels, the two
environments alternating which goes first, so that a slow spell of a shared machine lands on both alike.

usage: bench/compile_large_skips_probe.py --megac PATH [--runs 31] [--alt NAME=FILE]... [--out FILE.json]
Prints per kernel and environment the median compile ms and its ratio to "list"'s, with the pairwise ratios'
quartiles (each compile against the "list" compile of the same round).
"""
import argparse
import json
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from compile_times import compile_ms  # noqa: E402  (scripts/ is no package)

LARGE = ["attn_split_verify", "attn_split_q1", "draft_fin", "draft_fin_residual"]
CONTROLS = ["attn_merge_q1", "gdn_core", "hop"]
FILES = {"attn_split_verify": "attn_decode_cp", "attn_split_q1": "attn_decode_cp", "attn_merge_q1": "attn_decode_cp",
         "draft_fin": "draft_fin", "draft_fin_residual": "draft_fin", "gdn_core": "gdn_core", "hop": "hop"}
ENVS = {"list": {}, "none": {"MEGAC_LARGE_PASS_SKIPS": "none"}, "no_costly": {"MEGAC_COSTLY_PASS_SKIPS": "none"}}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--megac", required=True)
    p.add_argument("--runs", type=int, default=31)
    p.add_argument("--alt", action="append", default=[], metavar="NAME=FILE",
                   help="also time with the large functions' list in FILE; repeatable")
    p.add_argument("--out")
    a = p.parse_args()
    envs = dict(ENVS)
    for alt in a.alt:
        name, path = alt.split("=", 1)
        with open(path) as f:
            envs[name] = {"MEGAC_LARGE_PASS_SKIPS": f.read().strip()}
    base = {k: v for k, v in os.environ.items() if k not in ("MEGAC_LARGE_PASS_SKIPS", "MEGAC_COSTLY_PASS_SKIPS")}
    ms = {(e, k): [] for e in envs for k in LARGE + CONTROLS}
    for run in range(a.runs):
        for k in LARGE + CONTROLS:
            path = os.path.join(ROOT, "kernels-dsl", FILES[k] + ".mega")
            for e in (list(envs) if run % 2 == 0 else list(reversed(envs))):
                ms[(e, k)].append(compile_ms(a.megac, path, k, dict(base, **envs[e])))
    rows = {}
    for k in LARGE + CONTROLS:
        rows[k] = {"large": k in LARGE}
        for e in envs:
            ratios = sorted(x / y for x, y in zip(ms[(e, k)], ms[("list", k)]))
            q = statistics.quantiles(ratios, n=4)
            med = statistics.median(ms[(e, k)])
            rows[k][e] = {"ms": med, "ratio_quartiles": q}
            print(f"{k:20s} {'large' if k in LARGE else 'control':8s} {e:8s} {med:6.1f} ms, "
                  f"ratio to list {med / statistics.median(ms[('list', k)]):.3f} "
                  f"(pairwise quartiles {q[0]:.3f} {q[1]:.3f} {q[2]:.3f})")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"runs": a.runs, "envs": envs, "samples": {f"{e}:{k}": v for (e, k), v in ms.items()},
                       "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
