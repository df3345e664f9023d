#!/usr/bin/env python3
"""Run every compiled megac kernel against its PyTorch reference on the GPU.

    PYTHONPATH=build/python python3 test/gpu/run_gpu_tests.py --bundles build/kernels --out results/
        [--kernels shared_act_quant,vector_add] [--with-bench-shapes] [--shape B=1,HV=16] [--every-variant]
        [--max-shapes N] [--shared-memory-only] [--seed S] [--variants-as SMS,L2_MB]

For each `<kernel>.mgb` in --bundles, each kernel of its manifest that has a reference (megac.reference), and each
shape of the reference's SHAPES (with --with-bench-shapes also its benchmarked shapes not among them): fresh random
inputs, outputs poisoned, the kernel launched with arguments bound by the manifest's parameter names, outputs
compared with the reference. Every kernel runs twice with two poison
patterns (and in-place state restored in between): an element nobody wrote, or a race, shows as a difference.
A kernel compiled for early launch runs twice over its shapes: launched early (the runtime's default)
and launched plainly (entry "<name> (plain launch)"), since a variant may be chosen by the launch mode.
--variants-as 132,60 launches the variants a device of 132 SMs and 60 MiB of L2 (an H200) would, on whatever card
runs the suite (megac.load's choose_variants_as), and --every-variant then covers that device's variants.
Kernels of KERNELS.md with no bundle are recorded as "not built". Writes <out>/gpu_results.json and prints a
summary; exit status 1 if anything failed.
"""
import argparse
import json
import os
import platform
import sys
import time
import traceback

POISON_A, POISON_B = 0xFF, 0x5A


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bundles", required=True, help="directory of compiled <kernel>.mgb files")
    p.add_argument("--out", required=True, help="directory for gpu_results.json")
    p.add_argument("--kernels", default="", help="comma list of kernel names to run (default: all)")
    p.add_argument("--max-shapes", type=int, default=0,
                   help="run at most N shapes per kernel, of those --shape picks (0: all)")
    p.add_argument("--shape", default="",
                   help="only shapes with these values, e.g. HV=8,HK=4 (a part of a kernel's shapes, say for "
                        "compute-sanitizer in a fresh process)")
    p.add_argument("--with-bench-shapes", action="store_true",
                   help="the benchmarked shapes too, after the listed ones (those not among them): every shape "
                        "the benchmark times runs checked code (vector_add's vec4 runs only at benchmark shapes)")
    p.add_argument("--every-variant", action="store_true",
                   help="of the shapes --shape picks, a few that launch every variant they reach, each at the "
                        "smallest shape (bytes moved) that reaches it, in each launch mode (megac.variant_cover): "
                        "the sanitizers' selection; --max-shapes then limits those")
    p.add_argument("--shared-memory-only", action="store_true",
                   help="only the kernels that launch a kernel declaring shared memory in some variant "
                        "(megac.bundles.shared_memory_kernels: the manifests' shared_bytes): racecheck's selection")
    p.add_argument("--seed", type=int, default=None, help="base seed (default: from the clock: fresh inputs)")
    p.add_argument("--variants-as", default="", metavar="SMS,L2_MB",
                   help="launch the variants a device of SMS multiprocessors and L2_MB MiB of L2 would (e.g. "
                        "132,60: an H200's) instead of this card's; the launches still run here")
    opts = p.parse_args()
    if opts.variants_as:
        try:
            sms, l2_mb = (int(v) for v in opts.variants_as.split(","))
        except ValueError:
            p.error(f"--variants-as takes SMS,L2_MB, two integers (e.g. 132,60); got '{opts.variants_as}'")
        opts.variants_as = (sms, l2_mb)
    return opts


def outputs_of(ref_kernel):
    return [n for n in ref_kernel.checks]


def run_once(torch, testing, kernel, ref_kernel, args, pristine, byte):
    """Restore in-place tensors, poison the pure outputs, launch, synchronize; returns the outputs."""
    for name in ref_kernel.inplace:
        args[name].copy_(pristine[name])
    for name in outputs_of(ref_kernel):
        if name not in ref_kernel.inplace:
            testing.poison(args[name], byte)
    kernel(**args)
    torch.cuda.synchronize()
    return {n: args[n].clone() for n in outputs_of(ref_kernel)}


def run_shape(torch, testing, kernel, ref_kernel, shape, seed):
    from megac.reference.common import run_checks
    args = ref_kernel.inputs(**shape, device="cuda", seed=seed)
    pristine = {n: args[n].clone() for n in ref_kernel.inplace}
    ref = ref_kernel.reference({**args, **{n: t.clone() for n, t in pristine.items()}})
    first = run_once(torch, testing, kernel, ref_kernel, args, pristine, POISON_A)
    second = run_once(torch, testing, kernel, ref_kernel, args, pristine, POISON_B)
    reports = run_checks(ref_kernel.checks, {**args, **first}, ref)
    stable = []
    for name in outputs_of(ref_kernel):
        a, b = first[name], second[name]
        same = a.shape == b.shape and bool(torch.equal(a.contiguous().view(torch.uint8),
                                                       b.contiguous().view(torch.uint8)))
        if not same:
            stable.append(name)
    ok = all(r.ok for r in reports) and not stable
    return {
        "shape": shape, "seed": seed, "pass": ok,
        "max_error": max((r.max_err for r in reports), default=0.0),
        "mismatches": sum(r.mismatches for r in reports),
        "allowed_mismatches": sum(r.allowed_mismatches for r in reports),
        "outputs": {r.name: r.as_dict() for r in reports},
        "unstable_outputs": stable,  # differ between two runs: unwritten elements or a race
    }


def run_shapes(torch, testing, label, entry, kernel, ref_kernel, shapes, base_seed, results):
    """Every shape of a kernel into `entry` (printed as `label`); stops when the CUDA context is lost."""
    for i, shape in enumerate(shapes):
        seed = base_seed * 1000 + i
        try:
            row = run_shape(torch, testing, kernel, ref_kernel, shape, seed)
        except Exception as e:
            row = {"shape": shape, "seed": seed, "pass": False, "error": f"{type(e).__name__}: {e}",
                   "traceback": traceback.format_exc(limit=4)}
            try:
                torch.cuda.synchronize()
            except Exception as sticky:  # the CUDA context is gone: record and stop launching
                results["aborted"] = f"CUDA context lost in {label} {shape}: {sticky}"
        entry["shapes"].append(row)
        flag = "ok  " if row["pass"] else "FAIL"
        detail = row.get("error") or f"max_err={row['max_error']:.3g} mismatches={row['mismatches']} " \
                                      f"allowed={row['allowed_mismatches']}"
        if not row["pass"] and "outputs" in row:
            detail += " " + "; ".join(o["detail"] for o in row["outputs"].values() if not o["ok"])
            if row["unstable_outputs"]:
                detail += f" unstable={row['unstable_outputs']}"
        print(f"{flag} {label} {shape} {detail}", flush=True)
        if "aborted" in results:
            break
    entry["passed"] = sum(r["pass"] for r in entry["shapes"])
    entry["failed"] = len(entry["shapes"]) - entry["passed"]


def main():
    opts = parse_args()
    os.makedirs(opts.out, exist_ok=True)
    import torch
    import megac.bundles
    from megac import reference, testing, variant_cover

    if not torch.cuda.is_available():
        sys.exit("run_gpu_tests: no CUDA device visible to torch")
    base_seed = opts.seed if opts.seed is not None else int(time.time()) % 100000
    # What the runtime's variant conditions read of this device (`sms`, `l2_mb`): the cover is of the variants
    # this card launches.
    sms, l2_mb = opts.variants_as or variant_cover.device_facts(torch.cuda.get_device_properties(0))
    as_device = opts.variants_as or None  # megac.load's choose_variants_as
    wanted = [k for k in opts.kernels.split(",") if k] or list(reference.NAMES)
    bundles, problems = megac.bundles.index(opts.bundles)
    if opts.shared_memory_only:
        shared = megac.bundles.shared_memory_kernels(bundles)
        wanted = [n for n in wanted if n in reference.NAMES and set(reference.get(n).launches) & shared]
        if not wanted:  # racecheck on nothing would report no hazards
            sys.exit(f"run_gpu_tests: no kernel in {opts.bundles} declares shared memory")
        print(f"kernels declaring shared memory: {','.join(wanted)}", flush=True)
    results = {
        "commit": os.environ.get("MEGAC_COMMIT", "unknown"),
        "device": torch.cuda.get_device_name(),
        "capability": "sm_%d%d" % torch.cuda.get_device_capability(),
        "torch": torch.__version__, "python": platform.python_version(),
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "seed": base_seed,
        "variants_of": {"sms": sms, "l2_mb": l2_mb, "this_device": as_device is None}, "kernels": {},
    }
    modules = {}
    for name in wanted:
        entry = results["kernels"][name] = {}
        try:
            ref_kernel = reference.get(name)
        except Exception as e:
            entry.update(status="error", error=f"{type(e).__name__}: {e}")
            continue
        first = ref_kernel.launches[0]
        if first not in bundles:
            entry["status"] = "not built"
            if first in problems:
                entry["status"], entry["error"] = "error", problems[first]
            continue
        try:
            path = bundles[first]
            kernel = megac.bundles.sequence(ref_kernel, bundles, modules, choose_variants_as=as_device)
        except Exception as e:
            entry.update(status="error", error=f"{type(e).__name__}: {e}")
            continue
        try:
            listed = ref_kernel.every_shape() if opts.with_bench_shapes else ref_kernel.shapes
            shapes = testing.select_shapes(listed, opts.shape, f"listed shape of {name}")
        except ValueError as e:
            entry.update(status="error", error=str(e))
            continue
        # A kernel compiled for early launch runs launched early (the runtime's default) and, under its own
        # entry, plainly: a variant may be chosen by the launch mode (`early` in a `when`).
        runs = [(name, entry, kernel)]
        if megac.bundles.has_early_launch(kernel):
            plain = results["kernels"][name + " (plain launch)"] = {}
            runs.append((name + " (plain launch)", plain,
                         megac.bundles.sequence(ref_kernel, bundles, modules, early_launch=False,
                                                choose_variants_as=as_device)))
        for label, entry, kernel in runs:
            entry.update(status="ran", bundle=path, shapes=[])
            picked = shapes
            if opts.every_variant:
                picked = variant_cover.cover(kernel.kernels, shapes, sms, l2_mb,
                                             size=lambda s: ref_kernel.bytes_moved(**s))
            picked = picked[:opts.max_shapes or None]  # of those --shape and --every-variant picked
            if opts.every_variant:
                entry["variants"] = [variant_cover.variants(kernel.kernels, s, sms, l2_mb) for s in picked]
            run_shapes(torch, testing, label, entry, kernel, ref_kernel, picked, base_seed, results)
            if "aborted" in results:
                break
        if "aborted" in results:
            print(f"ABORTED: {results['aborted']}", flush=True)
            break

    path = os.path.join(opts.out, "gpu_results.json")
    with open(path, "w") as f:
        json.dump(results, f, indent=1, default=str)

    print(f"\n{'kernel':28s} {'status':10s} {'pass':>5s} {'fail':>5s}")
    failed = 0
    for name, e in results["kernels"].items():
        failed += e.get("failed", 0) + (1 if e["status"] == "error" else 0)
        print(f"{name:28s} {e['status']:10s} {e.get('passed', ''):>5} {e.get('failed', ''):>5}"
              + (f"  {e['error']}" if "error" in e else ""))
    chosen = "" if as_device is None else f", variants of a device of {sms} SMs and {l2_mb} MiB of L2"
    print(f"results: {path} (commit {results['commit']}, {results['device']}{chosen})")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
