#!/usr/bin/env python3
"""Benchmark megac kernels against hand-written Triton, torch eager and torch.compile, in one process.

    PYTHONPATH=build-gpu/python python3 bench/run_bench.py --bundles out/bundles --out OUTDIR
        [--kernels a,b] [--quick] [--rounds 3] [--repeats 10] [--budget-s 450] [--no-compile]
        [--shape M=8192,K=4096]
        [--megac-compile-ms FILE]

For every kernel (every reference in megac.reference, those with a megac bundle first) and every shape of its
BENCH_SHAPES: megac (every kernel launched plainly, as Triton's are), megac.early (the same bundle with its
@early_launch kernels launched early; only where it has one), Triton (bench/triton_kernels.py), torch eager and
torch.compile (bench/torch_impls.py).
Method (megac.testing.Timer): CUDA graphs; argument sets made before timing and shared by the
implementations; every launch reads cold inputs (sets rotated past 3x L2, or an L2 scrub between passes that
is timed separately and subtracted); every implementation of a shape runs the same launches a graph replay
(but one ten times slower than the others, whose replays then stop at about 10 ms) and they are timed in turn,
`--rounds` rounds of `--repeats` replays each; a time is the median over all replays, and the megac/Triton speed
ratio (Triton time / megac time, > 1: megac faster) is the median of the per-round ratios with their min-max.
GB/s counts the fewest bytes the kernel must move (reference bytes_moved), also as % of the copy bandwidth
measured once at the start (testing.copy_bandwidth).

Before timing, each implementation runs once at the first shape and is compared with the reference
("checked": true / failure text). That first call is also the cold compile time of Triton and torch.compile
(their cache directories point at a fresh temporary directory). megac's compile time comes from
--megac-compile-ms, a JSON file {kernel: ms} (the bundle does not record it).

Writes OUTDIR/bench_results.json (raw numbers; rewritten after every kernel, so an interrupted run keeps what
it measured) and OUTDIR/benchmarks.md (the tables for docs/benchmarks.md). Past --budget-s seconds the
remaining shapes are skipped and listed as such. Exit status: 0 when every kernel ran, 1 when something
errored, failed its check or was skipped, 2 on bad usage.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

# megac.early: the same bundle with its @early_launch kernels launched early (programmatic dependent launch,
# each launch overlapping the one before it in the graph); only for kernels that have such a kernel.
IMPLS = ("megac", "megac.early", "triton", "torch", "torch.compile")
T0 = time.time()


def log(msg):
    print(f"[{time.time() - T0:6.1f}s] {msg}", flush=True)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bundles", default="", help="directory of compiled <kernel>.mgb files (none: no megac column)")
    p.add_argument("--out", required=True, help="directory for bench_results.json and benchmarks.md")
    p.add_argument("--kernels", default="", help="comma list (default: every reference kernel)")
    p.add_argument("--quick", action="store_true", help="smoke run: first and last shape, 2 rounds of 5 replays")
    p.add_argument("--rounds", type=int, default=3, help="rounds per (impl, shape) (default 3)")
    p.add_argument("--repeats", type=int, default=10, help="graph replays per round (default 10)")
    p.add_argument("--max-shapes", type=int, default=0,
                   help="at most this many shapes per kernel, of those --shape picks")
    p.add_argument("--shape", default="", help="only shapes with these values, e.g. M=8192,K=4096")
    p.add_argument("--budget-s", type=float, default=450.0,
                   help="skip the remaining shapes after this many seconds (default 450)")
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    p.add_argument("--megac-compile-ms", default="", help="JSON file {kernel: megac compile ms}")
    p.add_argument("--no-size-copy", action="store_true",
                   help="skip timing a copy of each shape's bytes (the %% of same-size copy column)")
    p.add_argument("--warm-l2", action="store_true",
                   help="inputs stay in the L2: one argument set, no rotation or scrub (how a launch on data "
                        "another kernel just wrote runs; not the default method, and marked in the output)")
    p.add_argument("--commit", default=os.environ.get("MEGAC_COMMIT", ""), help="commit measured (default: git)")
    o = p.parse_args()
    if o.quick:
        o.rounds, o.repeats = min(o.rounds, 2), min(o.repeats, 5)
    if o.rounds < 1 or o.repeats < 1:
        p.error("--rounds and --repeats must be >= 1")
    return o


def commit_of(opts):
    if opts.commit:
        return opts.commit
    try:
        return subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except Exception:
        return "unknown"


def megac_impl(name, found, modules, early_launch=False):
    """fn(args) launching the megac kernel(s) of reference `name` from `found` ({kernel: bundle path},
    megac.bundles.index), or None when it is not built (or, with early_launch, when none of its kernels is
    @early_launch); `modules` caches loaded bundles. Without early_launch every kernel launches as Triton's
    do, after the prior kernel has ended: the like-for-like column."""
    from megac import bundles, reference
    ref_kernel = reference.get(name)
    if ref_kernel.launches[0] not in found:
        return None
    # Whether there is an early column is the plain sequence's to say (loaded for the megac column, cached in
    # `modules`): a bundle without an @early_launch kernel is not loaded a second time.
    if early_launch and not bundles.has_early_launch(bundles.sequence(ref_kernel, found, modules,
                                                                      early_launch=False)):
        return None
    run = bundles.sequence(ref_kernel, found, modules, early_launch=early_launch)
    return lambda a: run(**a)


def check_impl(fn, ref_kernel, shape):
    """Run fn once on fresh inputs and compare with the reference: (True or failure text, ms of that call, the
    first: JIT compilation included; None when it raised)."""
    from megac.reference.common import run_once
    try:
        reports, ms = run_once(ref_kernel, fn, shape, seed=7)
        return (all(r.ok for r in reports) or "; ".join(r.message() for r in reports if not r.ok)), ms
    except Exception as e:
        return f"error: {type(e).__name__}: {e}", None


def shape_str(shape):
    return ", ".join(f"{k}={v}" for k, v in shape.items())


def cell(r, with_pct=False):
    if not r or r.get("status") != "ok":
        return (r or {}).get("status", "-")
    s = f"{r['us']:.2f}"
    if with_pct:
        s += f" ({r['pct_copy']:.0f}%)"
    if not r.get("graph", True):
        s += " (no graph)"
    return s


def summarize(entry):
    """Worst megac/Triton ratio over the shapes and % of copy at the largest shape."""
    rows = [r for r in entry.get("rows", []) if "bytes" in r]
    ratios = [r["megac"]["ratio"] for r in rows if "ratio" in r.get("megac", {})]
    s = {"worst_ratio": min(ratios) if ratios else None,
         "ratio_ok": (min(ratios) >= 1.0) if ratios else None,
         "shapes_timed": len(rows)}
    early = [r["megac.early"]["ratio"] for r in rows if "ratio" in r.get("megac.early", {})]
    if early:
        s["early_worst_ratio"] = min(early)
    if rows:
        big = max(rows, key=lambda r: r["bytes"])
        s["largest_shape"] = big["shape"]
        for impl in ("megac", "megac.early", "triton"):
            if big.get(impl, {}).get("status") == "ok":
                s[f"{impl}_pct_copy_largest"] = big[impl]["pct_copy"]
                if "pct_size_copy" in big[impl]:
                    s[f"{impl}_pct_size_copy_largest"] = big[impl]["pct_size_copy"]
    return s


def markdown(res):
    L = ["# megac benchmark", "",
         f"Commit `{res['commit']}`, {res['date']}, {res['device']}; torch {res['torch']}, triton {res['triton']}. "
         f"Measured copy bandwidth {res['copy_gbps']:.0f} GB/s (read + write).", "",
         "Times are microseconds per launch: the median over all replays of a CUDA graph of many launches, " +
         ("**warm L2 (--warm-l2)**: one argument set, launched again and again, its inputs in the L2; "
          if res["method"].get("warm_l2") else
          "every launch reading cold inputs (argument sets rotated past 3x L2, or an L2 scrub between passes timed "
          "separately and subtracted); ") +
         f"{res['method']['rounds']} rounds of {res['method']['repeats']} replays, "
         "the implementations of a shape timed in turn, each at the same launches a replay (one ten times slower "
         "than the fastest at replays of about 10 ms). "
         "% is of the copy bandwidth, counting the fewest bytes the kernel must move. "
         "Ratio = Triton time / megac time (> 1: megac faster), the median of the per-round ratios, "
         "with their min-max. Copy at size: the time of a device copy of the same bytes "
         "(half read, half written), timed the same way; megac's % of it says how near megac is to what a "
         "copy achieves at that size (small transfers pay launch and DRAM latency, which the "
         "bandwidth-sized copy does not). Compile times are cold: Triton's is its first call with an "
         "empty cache (JIT and launcher build included); megac's is the median of scripts/compile_times.py's "
         f"compiles, from `{res.get('megac_compile_ms_file') or 'none given'}`.", "",
         "## Summary", "",
         "| kernel | worst ratio megac/Triton | >= 1.00 | megac % copy (largest shape) | Triton % copy "
         "(largest shape) | megac % of copy at size (largest shape) | megac compile ms | Triton compile ms | "
         "torch.compile ms | checks |",
         "|---|---|---|---|---|---|---|---|---|---|"]
    for name, k in res["kernels"].items():
        s = k.get("summary", {})
        c = k.get("compile_ms", {})
        wr = s.get("worst_ratio")
        checks = k.get("checked", {})
        bad = [i for i, v in checks.items() if v is not True]
        fmt = lambda v, f="{:.0f}": "-" if v is None else f.format(v)
        L.append(f"| {name} | {fmt(wr, '{:.2f}')} | {'-' if wr is None else ('yes' if wr >= 1.0 else 'no')} | "
                 f"{fmt(s.get('megac_pct_copy_largest'))}{'' if s.get('megac_pct_copy_largest') is None else '%'} | "
                 f"{fmt(s.get('triton_pct_copy_largest'))}{'' if s.get('triton_pct_copy_largest') is None else '%'} | "
                 f"{fmt(s.get('megac_pct_size_copy_largest'))}"
                 f"{'' if s.get('megac_pct_size_copy_largest') is None else '%'} | "
                 f"{fmt(c.get('megac'))} | {fmt(c.get('triton'))} | {fmt(c.get('torch.compile'))} | "
                 f"{'ok' if not bad else 'FAIL: ' + ', '.join(bad)}{' (error)' if 'error' in k else ''} |")
    L.append("")
    early = {n: k["summary"] for n, k in res["kernels"].items() if "early_worst_ratio" in k.get("summary", {})}
    if early:
        L += ["Kernels compiled with `@early_launch`, launched early as well (column `megac.early`: programmatic "
              "dependent launch, each launch in the graph overlapping the one before it; the columns above launch "
              "them as Triton's kernels are launched):", ""]
        for n, s in early.items():
            pct = s.get("megac.early_pct_copy_largest")
            L.append(f"- {n}: worst ratio {s['early_worst_ratio']:.2f}"
                     + ("" if pct is None else f", {pct:.0f}% of copy at the largest shape"))
        L.append("")
    for name, k in res["kernels"].items():
        L += [f"## {name}", ""]
        if "error" in k:
            L += [f"error: {k['error']}", ""]
        bad = {i: v for i, v in k.get("checked", {}).items() if v is not True}
        for i, v in bad.items():
            L.append(f"- check failed for {i}: {str(v)[:300]}")
        if bad:
            L.append("")
        if not k.get("rows"):
            continue
        with_early = any(r.get("megac.early", {}).get("status") == "ok" for r in k["rows"])
        early_head = " megac.early us (% copy, ratio) |" if with_early else ""
        L += ["| shape | megac us (% copy) | Triton us (% copy) | ratio megac/Triton (min-max) | copy at size us "
              "(megac %) | torch us | torch.compile us |" + early_head,
              "|---|---|---|---|---|---|---|" + ("---|" if with_early else "")]
        for row in k["rows"]:
            if "skipped" in row:
                L.append(f"| {shape_str(row['shape'])} | skipped: {row['skipped']} | | | | | |" +
                         (" |" if with_early else ""))
                continue
            early_cell = ""
            if with_early:
                e = row.get("megac.early", {})
                early_cell = f" {cell(e, True)}" + (f", {e['ratio']:.2f}" if "ratio" in e else "") + " |"
            m = row.get("megac", {})
            ratio = f"{m['ratio']:.2f} ({m['ratio_min']:.2f}-{m['ratio_max']:.2f})" if "ratio" in m else "-"
            size = "-"
            if "copy_us" in row:
                size = f"{row['copy_us']:.2f}"
                if "pct_size_copy" in m:
                    size += f" ({m['pct_size_copy']:.0f}%)"
            L.append(f"| {shape_str(row['shape'])} | {cell(m, True)} | {cell(row.get('triton'), True)} | {ratio} | "
                     f"{size} | {cell(row.get('torch'))} | {cell(row.get('torch.compile'))} |{early_cell}")
        L.append("")
    return "\n".join(L)


def main():
    opts = parse_args()
    os.makedirs(opts.out, exist_ok=True)
    # Cold compile times: fresh, empty caches for Triton and Inductor, set before either is imported.
    cache = tempfile.mkdtemp(prefix="megac-bench-cache-")
    os.environ["TRITON_CACHE_DIR"] = os.path.join(cache, "triton")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(cache, "inductor")
    import torch
    from megac import reference, testing
    if not torch.cuda.is_available():
        print("run_bench: no CUDA device visible to torch", file=sys.stderr)
        return 2
    try:
        import triton
        import triton_kernels
        triton_launchers, triton_version = triton_kernels.LAUNCHERS, triton.__version__
    except Exception as e:  # no triton: the column says why
        log(f"Triton kernels unavailable: {type(e).__name__}: {e}")
        triton_launchers, triton_version = {}, f"unavailable ({e})"
    import torch_impls
    megac_ms = {}
    if opts.megac_compile_ms:
        with open(opts.megac_compile_ms) as f:
            megac_ms = json.load(f)

    names = [k for k in opts.kernels.split(",") if k] or list(reference.NAMES)
    unknown = [n for n in names if n not in reference.NAMES]
    if unknown:
        print(f"run_bench: unknown kernel(s) {unknown}; known: {', '.join(reference.NAMES)}", file=sys.stderr)
        return 2
    # Test kernels (matmul) have no benchmark shapes: left out of a full run, refused when named.
    no_shapes = [n for n in names if not reference.get(n).bench_shapes]
    if no_shapes and opts.kernels:
        print(f"run_bench: {', '.join(no_shapes)} ha{'s' if len(no_shapes) == 1 else 've'} no benchmark "
              f"shapes (a test kernel)", file=sys.stderr)
        return 2
    names = [n for n in names if n not in no_shapes]
    megac_fns, modules = {}, {}
    from megac import bundles
    found, _ = bundles.index(opts.bundles)
    early_fns = {}
    for n in names:
        try:
            megac_fns[n] = megac_impl(n, found, modules)
            early_fns[n] = megac_impl(n, found, modules, early_launch=True)
        except Exception as e:
            megac_fns[n] = e
    names.sort(key=lambda n: megac_fns[n] is None)  # kernels megac has first: they matter most under the budget
    log(f"kernels: {', '.join(names)}")

    copy_gbps = testing.copy_bandwidth()
    log(f"copy bandwidth {copy_gbps:.0f} GB/s")
    res = {"commit": commit_of(opts), "date": time.strftime("%Y-%m-%d %H:%M:%S %z"),
           "device": torch.cuda.get_device_name(), "torch": torch.__version__, "triton": triton_version,
           "python": sys.version.split()[0], "copy_gbps": copy_gbps,
           "method": {"rounds": opts.rounds, "repeats": opts.repeats, "quick": opts.quick,
                      "rotate_min_bytes": testing.ROTATE_MIN_BYTES, "l2_bytes": testing.L2_BYTES,
                      "budget_s": opts.budget_s, "warm_l2": opts.warm_l2},
           "megac_compile_ms_file": opts.megac_compile_ms, "kernels": {}, "skipped": []}
    out_json = os.path.join(opts.out, "bench_results.json")

    def save():
        with open(out_json, "w") as f:
            json.dump(res, f, indent=1, default=str)

    failed = False
    for name in names:
        entry = res["kernels"][name] = {}
        try:
            ref_kernel = reference.get(name)
            if isinstance(megac_fns[name], Exception):
                raise megac_fns[name]
            eager = torch_impls.EAGER.get(name)
            impls = {"megac": megac_fns[name], "megac.early": early_fns.get(name),
                     "triton": triton_launchers.get(name), "torch": eager,
                     "torch.compile": None if (opts.no_compile or eager is None) else torch.compile(eager)}
            shapes = list(ref_kernel.bench_shapes)
            if opts.quick and len(shapes) > 2:
                shapes = [shapes[0], shapes[-1]]
            shapes = testing.select_shapes(shapes, opts.shape, f"benchmark shape of {name}", opts.max_shapes)
            # a reference launched as several kernels costs the sum of their compile times
            parts = [megac_ms.get(k) for k in ref_kernel.launches]
            entry["checked"] = {}
            entry["compile_ms"] = {"megac": None if None in parts else round(sum(parts), 2)}
            for impl, fn in impls.items():
                if fn is None:
                    continue
                ok, ms = check_impl(fn, ref_kernel, shapes[0])
                entry["checked"][impl] = ok
                if impl in ("triton", "torch.compile"):
                    entry["compile_ms"][impl] = ms
                if ok is not True:
                    failed = True
            log(f"{name}: checks {entry['checked']} first-call ms "
                f"{ {k: round(v) for k, v in entry['compile_ms'].items() if v is not None} }")
            entry["rows"] = []
            for i, shape in enumerate(shapes):
                if time.time() - T0 > opts.budget_s:
                    entry["rows"].append({"shape": dict(shape), "skipped": "time budget"})
                    res["skipped"].append(f"{name} {shape_str(shape)}")
                    failed = True
                    continue
                rows = testing.compare(
                    [shape], lambda s: ref_kernel.inputs(**s, device="cuda", seed=1000 + i),
                    impls, lambda s: ref_kernel.bytes_moved(**s), copy_bw=copy_gbps, repeats=opts.repeats,
                    rounds=opts.rounds, baseline="triton", size_copy=not opts.no_size_copy,
                    min_bytes=0 if opts.warm_l2 else testing.ROTATE_MIN_BYTES,
                    log=lambda line: log(f"{name} [{i + 1}/{len(shapes)}] {line}"))
                entry["rows"] += rows
                for r in rows:
                    if any(r.get(x, {}).get("status") == "error" for x in IMPLS):
                        failed = True
                        log(f"{name}: errors " + "; ".join(f"{x}: {r[x]['error']}" for x in IMPLS
                                                           if r.get(x, {}).get("status") == "error"))
            entry["summary"] = summarize(entry)
        except Exception as e:
            failed = True
            entry["error"] = f"{type(e).__name__}: {e}"
            entry["traceback"] = traceback.format_exc(limit=6)
            log(f"{name}: ERROR {entry['error']}")
        torch._dynamo.reset()  # keep compiled graphs of finished kernels from piling up
        save()

    md = markdown(res)
    with open(os.path.join(opts.out, "benchmarks.md"), "w") as f:
        f.write(md + "\n")
    save()
    print(md, flush=True)
    if res["skipped"]:
        log(f"SKIPPED (time budget): {len(res['skipped'])} shapes; raise --budget-s or pass --kernels")
    log(f"done: {out_json}" + (" (with errors, failed checks or skips: exit 1)" if failed else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
