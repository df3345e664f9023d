#!/usr/bin/env python3
"""Benchmark megac kernels against Triton, torch eager and torch.compile on the same shapes, in one run.

    PYTHONPATH=build/python:bench python3 bench/run_bench.py --bundles build/kernels --out results/
        [--kernels shared_act_quant,hop] [--repeats 30] [--no-compile] [--max-shapes N]

Shapes come from each reference's BENCH_SHAPES; inputs are fresh random tensors (megac.reference), timing is
megac.testing.bench (CUDA graphs, buffers rotated past L2, median with p10/p90). GB/s counts the fewest bytes
the kernel must move (reference bytes_moved) and is also given as a percentage of the measured device copy
bandwidth. Before timing, each implementation's output at the first shape is checked against the reference
(recorded as "checked": true/false/error), so a fast wrong kernel is visible. Writes <out>/bench_results.json
and <out>/bench_results.md. A megac kernel without a bundle, or a kernel without a Triton or torch version,
shows as "unavailable".
"""
import argparse
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

IMPLS = ("megac", "triton", "torch", "torch.compile")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bundles", default="", help="directory of compiled <kernel>.mgb files")
    p.add_argument("--out", required=True, help="directory for bench_results.json / .md")
    p.add_argument("--kernels", default="", help="comma list (default: every kernel with a Triton version)")
    p.add_argument("--repeats", type=int, default=30)
    p.add_argument("--max-shapes", type=int, default=0)
    p.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    return p.parse_args()


def megac_impl(name, bundles):
    """fn(args) launching the megac kernel, or None when it is not built."""
    if not bundles:
        return None
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "test", "gpu"))
    import megac
    from run_gpu_tests import find_bundles, launch_args
    found, _ = find_bundles(bundles)
    if name not in found:
        return None
    kernel = megac.load(found[name]).kernel(name)
    return lambda a: kernel(**launch_args(kernel, a))


def check_impl(fn, ref_kernel, shape):
    """Run fn once on fresh inputs and compare with the reference; True / False / error text."""
    import torch
    from megac import testing
    from megac.reference.common import run_checks
    try:
        args = ref_kernel.inputs(**shape, device="cuda", seed=7)
        ref = ref_kernel.reference({**args, **{n: args[n].clone() for n in ref_kernel.inplace}})
        for n in ref_kernel.checks:
            if n not in ref_kernel.inplace:
                testing.poison(args[n])
        fn(args)
        torch.cuda.synchronize()
        reports = run_checks(ref_kernel.checks, args, ref)
        return all(r.ok for r in reports) or "; ".join(r.message() for r in reports if not r.ok)
    except Exception as e:
        return f"error: {type(e).__name__}: {e}"


def markdown(results):
    lines = [f"# megac benchmark ({results['device']}, commit {results['commit']})", "",
             f"Copy bandwidth: {results['copy_gbps']:.0f} GB/s. Times are medians in microseconds per launch "
             "(CUDA graph, inputs rotated past L2); % is of the copy bandwidth; x is megac's speedup.", ""]
    for name, k in results["kernels"].items():
        lines += [f"## {name}", ""]
        if "error" in k:
            lines += [f"error: {k['error']}", ""]
            continue
        lines.append("| shape | " + " | ".join(IMPLS) + " |")
        lines.append("|---|" + "---|" * len(IMPLS))
        for row in k["rows"]:
            cells = []
            for impl in IMPLS:
                r = row.get(impl, {"status": "unavailable"})
                if r.get("status") == "ok":
                    x = row["megac"]["us"] / r["us"] if row.get("megac", {}).get("status") == "ok" else None
                    cells.append(f"{r['us']:.2f} ({r['pct_copy']:.0f}%)" + (f" x{1 / x:.2f}" if x and impl != "megac" else ""))
                else:
                    cells.append(r.get("status", "?"))
            lines.append("| " + ", ".join(f"{a}={b}" for a, b in row["shape"].items()) + " | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def main():
    opts = parse_args()
    os.makedirs(opts.out, exist_ok=True)
    import torch
    from megac import reference, testing
    if not torch.cuda.is_available():
        sys.exit("run_bench: no CUDA device visible to torch")
    try:
        import triton_kernels
        triton_launchers = triton_kernels.LAUNCHERS
    except Exception as e:  # no triton: the column says why
        print(f"run_bench: Triton kernels unavailable: {e}")
        triton_launchers = {}
    import torch_impls
    if not opts.no_compile:
        torch._dynamo.config.cache_size_limit = 1024  # one graph per shape; never fall back to eager silently

    names = [k for k in opts.kernels.split(",") if k] or list(triton_launchers) or list(torch_impls.EAGER)
    copy_gbps = testing.copy_bandwidth()
    results = {"commit": os.environ.get("MEGAC_COMMIT", "unknown"), "device": torch.cuda.get_device_name(),
               "torch": torch.__version__, "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
               "copy_gbps": copy_gbps, "kernels": {}}
    print(f"copy bandwidth {copy_gbps:.0f} GB/s")
    for name in names:
        entry = results["kernels"][name] = {}
        try:
            ref_kernel = reference.get(name)
            eager = torch_impls.EAGER.get(name)
            impls = {
                "megac": megac_impl(name, opts.bundles),
                "triton": triton_launchers.get(name),
                "torch": eager,
                "torch.compile": None if (opts.no_compile or eager is None) else torch.compile(eager),
            }
            shapes = ref_kernel.bench_shapes[:opts.max_shapes] if opts.max_shapes else ref_kernel.bench_shapes
            entry["checked"] = {impl: check_impl(fn, ref_kernel, shapes[0]) for impl, fn in impls.items() if fn}
            print(f"{name}: checks {entry['checked']}")
            entry["rows"] = testing.compare(
                shapes, lambda s: ref_kernel.inputs(**s, device="cuda", seed=int(time.time() * 1e3) % 100000),
                impls, lambda s: ref_kernel.bytes_moved(**s), copy_bw=copy_gbps, repeats=opts.repeats,
                log=lambda line: print(f"{name}: {line}", flush=True))
        except Exception as e:
            entry["error"] = f"{type(e).__name__}: {e}"
            entry["traceback"] = traceback.format_exc(limit=5)
            print(f"{name}: ERROR {entry['error']}", flush=True)

    with open(os.path.join(opts.out, "bench_results.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)
    md = markdown(results)
    with open(os.path.join(opts.out, "bench_results.md"), "w") as f:
        f.write(md + "\n")
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
