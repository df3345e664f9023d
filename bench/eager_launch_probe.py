#!/usr/bin/env python3
"""How long does one eager launch take on the host? megac's Python launch path against Triton's launcher.

Eager launches (no CUDA graph) of small kernels are paced by the host: a loop of N launches takes N times what
one launch costs the CPU. Per case and implementation, rounds of N launches timed with perf_counter (the GPU
synchronized before each round, not inside it), the implementations alternating within a round; the median per
launch, in us:

  megac         the kernel through megac's Python API (megac.load(...).KERNEL(**args), the benchmark's path)
  megac.old     the same through another copy of python/megac/module.py (--old-module FILE), loaded beside the
                current one on the same bundle: an A/B of a change to the launch path in one process
  megac.native  the runtime's launch alone, its arguments bound once before the loop (C++ checks, variant
                choice, cuLaunchKernel): the floor of megac's path
  megac.bind    Kernel.bind alone, no launch: module.py's own path, which binds what the native fast path
                (megac._runtime.ArgBinder, taken by a launch) hands it and every call of bind()
  triton        Triton's launcher for its kernel of the same math (bench/triton_kernels.py)

usage (GPU machine, PYTHONPATH=build-gpu/python):
    python3 bench/eager_launch_probe.py --bundles out/bundles --out DIR [--cases "vector_add:n=65536 ..."]
        [--old-module FILE] [--launches 2000] [--rounds 9]
Writes DIR/eager_launch_probe.json and prints one line per case.
"""
import argparse
import importlib.util
import json
import os
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

DEFAULT_CASES = "vector_add:n=65536 hop_mid:M=512,H=4096 gdn_core:B=1,HV=16,HK=4 shared_act_quant:M=1,I=512"


def load_old_module(path):
    """A second copy of megac/module.py, importable beside the current one (its relative imports resolve in the
    megac package)."""
    import megac  # noqa: F401  (the package its relative imports need)
    spec = importlib.util.spec_from_file_location("megac._old_module", path)
    old = importlib.util.module_from_spec(spec)
    old.__package__ = "megac"
    spec.loader.exec_module(old)
    return old


def kernel_impls(name, found, args, old):
    """{impl: fn()} for megac's launches of reference `name` (one kernel launched: its only entry in
    `launches`)."""
    import megac
    from megac import bundles, reference
    ref = reference.get(name)
    if len(ref.launches) != 1:
        raise ValueError(f"{name}: {len(ref.launches)} launches; the probe times kernels launched once")
    module = megac.load(found[ref.launches[0]], early_launch=False)
    kernel = module.kernel(ref.launches[0])
    kw = bundles.launch_args(kernel, args)
    impls = {"megac": lambda: kernel(**kw)}
    if old is not None:
        old_kernel = old.Module(module._rt, module.bundle, early_launch=False).kernel(kernel.name)
        impls["megac.old"] = lambda: old_kernel(**kw)
    native, bound = module._native_module(), kernel.bind(**kw)
    import torch
    stream = torch.cuda.current_stream().cuda_stream
    impls["megac.native"] = lambda: native.launch(kernel.name, bound, stream, None)
    impls["megac.bind"] = lambda: kernel.bind(**kw)
    return impls


def per_launch_us(fn, launches):
    import torch
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(launches):
        fn()
    elapsed = time.perf_counter() - t
    torch.cuda.synchronize()
    return elapsed / launches * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bundles", default="out/bundles")
    p.add_argument("--out", required=True)
    p.add_argument("--cases", default=DEFAULT_CASES)
    p.add_argument("--old-module", help="another copy of python/megac/module.py: column megac.old")
    p.add_argument("--launches", type=int, default=2000)
    p.add_argument("--rounds", type=int, default=9)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    import torch
    import triton_kernels
    from order_probe import parse_cases
    from megac import bundles
    found, _ = bundles.index(a.bundles)
    old = load_old_module(a.old_module) if a.old_module else None
    results = []
    for name, spec, ref, shape in parse_cases(a.cases):
        args = ref.inputs(**shape, device="cuda", seed=5)
        impls = kernel_impls(name, found, args, old)
        launcher = triton_kernels.LAUNCHERS[name]
        impls["triton"] = lambda: launcher(args)
        for fn in impls.values():  # JIT, module loads, caches
            for _ in range(50):
                fn()
        torch.cuda.synchronize()
        times = {k: [] for k in impls}
        for r in range(a.rounds):
            order = list(impls) if r % 2 == 0 else list(reversed(impls))
            for k in order:
                times[k].append(per_launch_us(impls[k], a.launches))
        us = {k: round(statistics.median(v), 3) for k, v in times.items()}
        spread = {k: [round(min(v), 3), round(max(v), 3)] for k, v in times.items()}
        results.append({"kernel": name, "shape": shape, "us_per_launch": us, "min_max": spread,
                        "launches": a.launches, "rounds": a.rounds})
        print(f"{name} {spec}: " + ", ".join(f"{k} {v} us" for k, v in us.items()), flush=True)
    with open(os.path.join(a.out, "eager_launch_probe.json"), "w") as f:
        json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "results": results}, f,
                  indent=1)


if __name__ == "__main__":
    main()
