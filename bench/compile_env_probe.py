#!/usr/bin/env python3
"""Does the process environment move megac's compile time on this machine? (exploratory)

Times `megac FILE --kernel NAME --target sm_90a --no-ptxas` (what scripts/compile_times.py times: the compile
time megac reports) under several environments, round robin over kernels and environments so that a slow spell
of a shared machine lands on all alike, and records each compile's user and system CPU time and minor page
faults (getrusage of the child). The environments: glibc's malloc asked to back its heaps with transparent huge
pages (`glibc.malloc.hugetlb=1`: fewer page faults where the kernel grants them), and fewer compile threads.

usage: bench/compile_env_probe.py --megac PATH [--runs 11] [--out FILE.json]
Prints one line per (environment, kernel): median compile ms, user ms, system ms, minor faults.
"""
import argparse
import glob
import json
import os
import resource
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from compile_times import compile_ms, kernels_of  # noqa: E402  (scripts/ is no package)
KERNELS = ["attn_split_verify", "attn_merge_q1", "attn_merge_verify", "attn_split_q1", "gdn_core", "hop",
           "vector_add"]
ENVS = {
    "default": {},
    "hugetlb": {"GLIBC_TUNABLES": "glibc.malloc.hugetlb=1"},
    "threads4": {"MEGAC_THREADS": "4"},
    "threads2": {"MEGAC_THREADS": "2"},
}


def sources(megac):
    """{kernel: its file in kernels-dsl/}, as scripts/compile_times.py lists them."""
    by_kernel = {k: path for path in sorted(glob.glob(os.path.join(ROOT, "kernels-dsl/*.mega")))
                 for k in kernels_of(megac, path)}
    missing = [k for k in KERNELS if k not in by_kernel]
    if missing:
        raise SystemExit(f"not in kernels-dsl/: {', '.join(missing)}")
    return by_kernel


def one_compile(megac, path, kernel, env=None):
    """One compile: the time megac reports, the process's wall time, its CPU times and minor page faults."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    ms = compile_ms(megac, path, kernel, env={**os.environ, **(env or {})})
    wall = 1000 * (time.perf_counter() - start)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"ms": ms, "wall_ms": wall,
            "user_ms": 1000 * (after.ru_utime - before.ru_utime),
            "sys_ms": 1000 * (after.ru_stime - before.ru_stime),
            "minflt": after.ru_minflt - before.ru_minflt}


def medians(compiles):
    """The median of each of one_compile's measurements over `compiles`."""
    return {f: round(statistics.median(c[f] for c in compiles), 2) for f in compiles[0]}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--megac", required=True)
    p.add_argument("--runs", type=int, default=11)
    p.add_argument("--out")
    a = p.parse_args()
    paths = sources(a.megac)
    samples = {(e, k): [] for e in ENVS for k in KERNELS}
    for run in range(a.runs):
        for k in KERNELS:
            envs = list(ENVS) if run % 2 == 0 else list(reversed(ENVS))
            for e in envs:
                samples[(e, k)].append(one_compile(a.megac, paths[k], k, ENVS[e]))
    rows = []
    for (e, k), s in samples.items():
        row = {"env": e, "kernel": k, **medians(s)}
        rows.append(row)
        print(f"{e:10s} {k:20s} {row['ms']:7.1f} ms  user {row['user_ms']:6.1f}  sys {row['sys_ms']:6.1f}  "
              f"faults {row['minflt']:.0f}")
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"runs": a.runs, "envs": ENVS, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
