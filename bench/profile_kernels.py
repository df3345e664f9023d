#!/usr/bin/env python3
"""Launch kernels once each inside an NVTX range named `profile`, for Nsight Compute to read their counters.

    ncu --clock-control none --nvtx --nvtx-include "profile/" --metrics ... \
        python3 bench/profile_kernels.py --bundles out/bundles nvfp4_quant:M=8192,K=4096 softmax:M=4096,N=8192

Each argument is KERNEL:SHAPE (a reference kernel of megac.reference and one of its shapes, as NAME=INT pairs).
For each, megac (from --bundles) and the hand-written Triton kernel (bench/triton_kernels.py) run twice
outside the range (compilation and warm-up) and once inside it, on fresh random inputs. --impls picks which.
Nothing is checked here: the benchmark and the correctness suite do that.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def parse_case(text):
    name, _, shape = text.partition(":")
    return name, {k: int(v) for k, v in (p.split("=") for p in shape.split(",") if p)}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bundles", default="out/bundles", help="directory of compiled <kernel>.mgb files")
    p.add_argument("--impls", default="megac,triton", help="comma list of megac, triton")
    p.add_argument("cases", nargs="+", help="KERNEL:NAME=INT,... ")
    opts = p.parse_args()
    import torch
    from megac import bundles, reference
    from run_bench import megac_impl  # the benchmark's own megac launcher
    found, _ = bundles.index(opts.bundles)
    modules = {}
    impls = opts.impls.split(",")
    for text in opts.cases:
        name, shape = parse_case(text)
        ref_kernel = reference.get(name)
        fns = {}
        if "megac" in impls:
            fn = megac_impl(name, found, modules)
            if fn is None:
                print(f"profile_kernels: no bundle in {opts.bundles} has {name}", file=sys.stderr)
                return 2
            fns["megac"] = fn
        if "triton" in impls:
            import triton_kernels
            if name in triton_kernels.LAUNCHERS:
                fns["triton"] = triton_kernels.LAUNCHERS[name]
        for impl, fn in fns.items():
            args = ref_kernel.inputs(**shape, device="cuda", seed=3)
            fn(args)
            fn(args)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push("profile")
            fn(args)
            torch.cuda.nvtx.range_pop()
            torch.cuda.synchronize()
            print(f"profiled {impl} {text}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
