#!/usr/bin/env python3
"""The LLVM pass runs megac skips (compiler/codegen/PassSkips.h): find them, or check them.

  find_pass_skips.py --check   compiles every kernel of kernels-dsl/ and test/gpu/ for every target with the
                               built-in list and with the full pipelines (MEGAC_PASS_SKIPS=none); exit 1 if any
                               PTX differs (then run the search again)
  find_pass_skips.py           the search: starting from no skips, each pass run that megac asks about (in the
                               order it asks) is skipped if every PTX stays byte-identical with the runs skipped
                               so far plus it, on the first target; the result is then checked on every target
                               and written to compiler/codegen/PassSkipList.inc (rebuild megac after)
  find_pass_skips.py --prune   after a new kernel made --check fail: the same search over the built-in list's runs
                               only, comparing only the sources whose PTX the list changes (minutes, where the
                               whole search takes hours on two cores); then the same check of every source on
                               every target before the list is written
"""
import argparse
import concurrent.futures
import glob
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TARGETS = ("sm_90a", "sm_100a", "sm_103a")
LIST = os.path.join(ROOT, "compiler/codegen/PassSkipList.inc")


def sources():
    return sorted(glob.glob(os.path.join(ROOT, "kernels-dsl/*.mega"))) + sorted(
        glob.glob(os.path.join(ROOT, "test/gpu/*.mega")))


def ptx(megac, src, target, skips, extra_env=None):
    """The PTX of `src`; skips: comma-separated keys, "none", or None for the built-in list; extra_env: more
    environment for megac (scripts/check_own_libdevice.py)."""
    env = {k: v for k, v in os.environ.items() if k != "MEGAC_PASS_SKIPS"}
    if skips is not None:
        env["MEGAC_PASS_SKIPS"] = skips
    env.update(extra_env or {})
    r = subprocess.run([megac, src, "--target", target, "--emit", "ptx"], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return "megac failed: " + r.stderr
    return r.stdout


def all_ptx(megac, targets, skips, pool, files=None, extra_env=None):
    jobs = {(s, t): pool.submit(ptx, megac, s, t, skips, extra_env) for s in (files or sources()) for t in targets}
    return {k: job.result() for k, job in jobs.items()}


def differing(a, b):
    return [f"{os.path.relpath(s, ROOT)} ({t})" for (s, t) in a if a[(s, t)] != b[(s, t)]]


def pass_runs(megac, target):
    """Every pass run megac asks about, in order of first appearance."""
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "runs")
        for src in sources():
            subprocess.run([megac, src, "--target", target, "--emit", "ptx"], capture_output=True, check=True,
                           env=dict(os.environ, MEGAC_PASS_SKIPS="none", MEGAC_PASS_LOG=log, MEGAC_THREADS="1"))
        seen = {}
        with open(log) as f:
            for line in f:
                seen.setdefault(line.strip(), None)
    return list(seen)


def check(megac, pool):
    full = all_ptx(megac, TARGETS, "none", pool)
    lean = all_ptx(megac, TARGETS, None, pool)
    bad = differing(full, lean)
    for name in bad:
        print(f"PTX differs with the built-in skips: {name}")
    print(f"{len(full)} PTX images compared (built-in skips against the full pipelines): "
          f"{'identical' if not bad else str(len(bad)) + ' differ'}")
    return 1 if bad else 0


def builtin_runs():
    with open(LIST) as f:
        return {json.loads(line.rstrip().rstrip(",")) for line in f if line.startswith('"')}


def search(megac, pool, prune=False):
    files = sources()
    if prune:
        # the sources whose PTX the built-in list changes, on any target
        full = all_ptx(megac, TARGETS, "none", pool)
        files = sorted({s for (s, t), text in all_ptx(megac, TARGETS, None, pool).items() if text != full[(s, t)]})
        if not files:
            print("the built-in list changes no source's PTX: nothing to prune")
            return 0
        print("sources the built-in list changes: " + ", ".join(os.path.relpath(s, ROOT) for s in files))
    base = all_ptx(megac, TARGETS[:1], "none", pool, files)
    runs = [r for r in pass_runs(megac, TARGETS[0]) if r.split(":")[1] != "nvptx-isel"]
    if prune:
        keep = builtin_runs()
        runs = [r for r in runs if r in keep]
    print(f"{len(runs)} pass runs to try", flush=True)
    skips = []
    for run in runs:
        t = time.time()
        same = all_ptx(megac, TARGETS[:1], ",".join(skips + [run]), pool, files) == base
        if same:
            skips.append(run)
        print(f"{'skip' if same else 'keep'} {run} ({time.time() - t:.1f} s)", flush=True)
    full = all_ptx(megac, TARGETS, "none", pool)
    bad = differing(full, all_ptx(megac, TARGETS, ",".join(skips), pool))
    if bad:
        print("the skips change the PTX on another target: " + ", ".join(bad))
        return 1
    with open(LIST, "w") as f:
        f.write("// Generated by scripts/find_pass_skips.py (see PassSkips.h): pass runs that change no\n"
                "// kernel's PTX on any target. Do not edit by hand.\n")
        for run in skips:
            f.write(json.dumps(run) + ",\n")
    print(f"{len(skips)} of {len(runs)} pass runs skipped: {LIST}")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--megac", default=os.path.join(ROOT, "build/compiler/tools/megac"))
    p.add_argument("--check", action="store_true", help="compare the built-in skips with the full pipelines")
    p.add_argument("--prune", action="store_true", help="search the built-in list's runs only (after a new kernel)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = p.parse_args()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        return check(a.megac, pool) if a.check else search(a.megac, pool, a.prune)


if __name__ == "__main__":
    sys.exit(main())
