#!/usr/bin/env python3
"""The LLVM pass runs megac skips (compiler/codegen/PassSkips.h): find them, or check them.

  find_pass_skips.py --check   compiles every kernel of kernels-dsl/ and test/gpu/ for every target with the
                               built-in lists and with the full pipelines (MEGAC_PASS_SKIPS=none,
                               MEGAC_LARGE_PASS_SKIPS=none); exit 1 if any PTX differs (then run the search again),
                               or if a key of the costly runs' list names no run on a large function
  find_pass_skips.py           the search: starting from no skips, each pass run that megac asks about (in the
                               order it asks) is skipped if every PTX stays byte-identical with the runs skipped
                               so far plus it, on the first target; the result is then checked on every target
                               and written to compiler/codegen/PassSkipList.inc (rebuild megac after)
  find_pass_skips.py --large   the same search for the list of runs skipped on large functions only
                               (PassSkipListLarge.inc): the runs megac asks about on large functions, beyond the
                               first list's, over the sources that have a large function; run it after the first
  find_pass_skips.py --prune   after a new kernel made --check fail: the same search over the built-in list's runs
                               only, comparing only the sources whose PTX the list changes (minutes, where the
                               whole search takes hours on two cores); then the same check of every source on
                               every target before the list is written (with --large: the large functions' list;
                               --out FILE writes it there instead, as ctest pass_skips_prune does)
The costly runs' list (PassSkipListCostly.inc, written by hand: runs skipped on large functions for their compile
time although they change the PTX) is off in every comparison (MEGAC_COSTLY_PASS_SKIPS=none): the two lists are
found and checked in the pipelines without it. --check also checks that list: each of its keys names a run megac
asks about on a large function, and it changes some PTX (the emitter applies it).
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
LARGE_LIST = os.path.join(ROOT, "compiler/codegen/PassSkipListLarge.inc")
COSTLY_LIST = os.path.join(ROOT, "compiler/codegen/PassSkipListCostly.inc")
LIST_VARIABLES = ("MEGAC_PASS_SKIPS", "MEGAC_LARGE_PASS_SKIPS", "MEGAC_COSTLY_PASS_SKIPS")


def sources():
    return sorted(glob.glob(os.path.join(ROOT, "kernels-dsl/*.mega"))) + sorted(
        glob.glob(os.path.join(ROOT, "test/gpu/*.mega")))


# The costly runs' list as megac builds it in (an environment entry set to None is left unset).
AS_BUILT = {"MEGAC_COSTLY_PASS_SKIPS": None}


def megac_env(**lists):
    """The process environment for megac: the caller's, less any pass-skip list of its own, the costly runs' list
    off, then `lists` (a variable set to None left unset: its built-in list)."""
    env = {k: v for k, v in os.environ.items() if k not in LIST_VARIABLES}
    env["MEGAC_COSTLY_PASS_SKIPS"] = "none"
    env.update(lists)
    return {k: v for k, v in env.items() if v is not None}


def ptx(megac, src, target, skips, extra_env=None, large=None, emit="ptx"):
    """The PTX of `src`; skips, large: the lists of MEGAC_PASS_SKIPS and MEGAC_LARGE_PASS_SKIPS (comma-separated
    keys, "none", or None for the built-in list), the costly runs' list off unless extra_env says (AS_BUILT);
    extra_env: more environment for megac (scripts/check_identity.py); emit: what megac prints (--emit)."""
    env = megac_env(**{"MEGAC_PASS_SKIPS": skips, "MEGAC_LARGE_PASS_SKIPS": large, **(extra_env or {})})
    r = subprocess.run([megac, src, "--target", target, "--emit", emit], capture_output=True, text=True, env=env)
    if r.returncode != 0:
        return "megac failed: " + r.stderr
    return r.stdout


def all_ptx(megac, targets, skips, pool, files=None, extra_env=None, large=None, emit="ptx"):
    jobs = {(s, t): pool.submit(ptx, megac, s, t, skips, extra_env, large, emit)
            for s in (files or sources()) for t in targets}
    return {k: job.result() for k, job in jobs.items()}


def differing(a, b):
    return [f"{os.path.relpath(s, ROOT)} ({t})" for (s, t) in a if a[(s, t)] != b[(s, t)]]


def pass_runs(megac, target, large=False):
    """Every pass run megac asks about, in order of first appearance, as {key: sources}; large: only the runs on
    large functions."""
    seen = {}
    with tempfile.TemporaryDirectory() as tmp:
        for src in sources():
            log = os.path.join(tmp, os.path.basename(src))
            subprocess.run([megac, src, "--target", target, "--emit", "ptx"], capture_output=True, check=True,
                           env=megac_env(MEGAC_PASS_SKIPS="none", MEGAC_LARGE_PASS_SKIPS="none",
                                         MEGAC_PASS_LOG=log, MEGAC_THREADS="1"))
            if not os.path.exists(log):
                continue
            with open(log) as f:
                for line in f:
                    key, _, where = line.rstrip("\n").partition("\t")
                    if not large or where == "large":
                        seen.setdefault(key, set()).add(src)
    return seen


def check(megac, pool):
    full = all_ptx(megac, TARGETS, "none", pool, large="none")
    lean = all_ptx(megac, TARGETS, None, pool)
    bad = differing(full, lean)
    for name in bad:
        print(f"PTX differs with the built-in skips: {name}")
    print(f"{len(full)} PTX images compared (built-in skips against the full pipelines): "
          f"{'identical' if not bad else str(len(bad)) + ' differ'}")
    return 1 if check_costly(megac, pool, lean) or bad else 0


def check_costly(megac, pool, lean):
    """The costly runs' list still names runs: each key is a run megac asks about on a large function (after an
    LLVM upgrade renames or moves a pass, a stale key would skip nothing), and the list changes the PTX of some
    source with a large function (the emitter applies it); lean: every source's PTX with the built-in lists but
    that one, as check() compiled them."""
    runs = pass_runs(megac, TARGETS[0], large=True)
    stale = sorted(builtin_runs(COSTLY_LIST) - set(runs))
    for key in stale:
        print(f"the costly runs' list names a run megac never asks about on a large function: {key}")
    files = sorted({s for srcs in runs.values() for s in srcs})
    with_costly = all_ptx(megac, TARGETS[:1], None, pool, files, extra_env=AS_BUILT)
    unused = all(with_costly[k] == lean[k] for k in with_costly)
    if unused:
        print("the costly runs' list changes no PTX: is it applied to large functions?")
    print(f"costly runs' list: {len(builtin_runs(COSTLY_LIST)) - len(stale)} keys asked on large functions, "
          f"{'no' if unused else 'some'} PTX changed over {len(files)} sources")
    return 1 if stale or unused else 0


def builtin_runs(path=LIST):
    with open(path) as f:
        return {json.loads(line.rstrip().rstrip(",")) for line in f if line.startswith('"')}


def search(megac, pool, prune=False, large=False, out=None):
    """Finds the list (large: the large functions') and writes it (to `out` if given); the other list stays the
    built-in one."""
    path = LARGE_LIST if large else LIST
    def lean(keys):  # the environment's two lists, with `keys` as the one searched
        return (None, ",".join(keys) or "none") if large else (",".join(keys) or "none", "none")
    runs = pass_runs(megac, TARGETS[0], large)
    files = sorted({s for srcs in runs.values() for s in srcs}) if large else sources()
    no_skips, no_large = lean([])  # the pipelines the search starts from
    if prune:
        # the sources whose PTX the built-in list changes, on any target
        full = all_ptx(megac, TARGETS, no_skips, pool, files, large=no_large)
        files = sorted({s for (s, t), text in all_ptx(megac, TARGETS, None, pool, files).items()
                        if text != full[(s, t)]})
        if not files:
            print("the built-in list changes no source's PTX: nothing to prune")
            return 0
        print("sources the built-in list changes: " + ", ".join(os.path.relpath(s, ROOT) for s in files))
    base = all_ptx(megac, TARGETS[:1], no_skips, pool, files, large=no_large)
    todo = [r for r in runs if r.split(":")[1] != "nvptx-isel"]
    if large:
        everywhere = builtin_runs()  # already skipped on every function
        todo = [r for r in todo if r not in everywhere]
    if prune:
        keep = builtin_runs(path)
        todo = [r for r in todo if r in keep]
    print(f"{len(todo)} pass runs to try over {len(files)} sources", flush=True)
    skips = []
    for run in todo:
        t = time.time()
        skips_env, large_env = lean(skips + [run])
        same = all_ptx(megac, TARGETS[:1], skips_env, pool, files, large=large_env) == base
        if same:
            skips.append(run)
        print(f"{'skip' if same else 'keep'} {run} ({time.time() - t:.1f} s)", flush=True)
    full = all_ptx(megac, TARGETS, no_skips, pool, large=no_large)
    skips_env, large_env = lean(skips)
    bad = differing(full, all_ptx(megac, TARGETS, skips_env, pool, large=large_env))
    if bad:
        print("the skips change the PTX on another target: " + ", ".join(bad))
        return 1
    with open(out or path, "w") as f:
        if large:
            f.write("// Generated by scripts/find_pass_skips.py --large (see PassSkips.h): pass runs that, skipped on\n"
                    "// large functions, change no kernel's PTX on any target. Do not edit by hand.\n")
        else:
            f.write("// Generated by scripts/find_pass_skips.py (see PassSkips.h): pass runs that change no\n"
                    "// kernel's PTX on any target. Do not edit by hand.\n")
        for run in skips:
            f.write(json.dumps(run) + ",\n")
    print(f"{len(skips)} of {len(todo)} pass runs skipped: {out or path}")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--megac", default=os.path.join(ROOT, "build/compiler/tools/megac"))
    p.add_argument("--check", action="store_true", help="compare the built-in skips with the full pipelines")
    p.add_argument("--prune", action="store_true", help="search the built-in list's runs only (after a new kernel)")
    p.add_argument("--large", action="store_true", help="search the list of runs skipped on large functions")
    p.add_argument("--out", help="write the list found here instead of over the built-in one (tests)")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = p.parse_args()
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        return check(a.megac, pool) if a.check else search(a.megac, pool, a.prune, a.large, a.out)


if __name__ == "__main__":
    sys.exit(main())
