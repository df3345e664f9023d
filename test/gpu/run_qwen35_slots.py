#!/usr/bin/env python3
"""Every Qwen3.5 slot (megac.qwen35) on the GPU: its kernel path and its stock path against the reference.

For each slot and each kernel variant it may run, on two shapes of the reference (the first listed and one of
the middle): a plan requesting every slot explicitly runs the call (expected path: kernel, or stock when the
call is beyond the slot's bounds), outputs poisoned first and checked with the reference's checks; then a
plan with no slots runs the stock path on fresh inputs, checked the same way (a stock failure is reported, not
fatal: torch orders equal top-k weights and rounds some divisions its own way). The attention slots also run
once inside a captured CUDA graph (after a warm-up call of that shape) and at batch 33, beyond their bound.

    PYTHONPATH=build-gpu/python python3 test/gpu/run_qwen35_slots.py --bundles out/bundles --out DIR
Exit status 1 when a kernel path fails its check or takes the wrong path.
"""
import argparse
import json
import os
import sys
import time

import torch

from megac import qwen35, reference, slots, testing
from megac.reference.common import run_checks


def poison_outputs(k, args):
    for name in k.checks:
        if name not in k.inplace:
            testing.poison(args[name], 0xFF)


def run(plan, slot, k, shape, seed, graph=False):
    args = k.inputs(**shape, device="cuda", seed=seed)
    pristine = {n: args[n].clone() for n in k.inplace}
    ref = k.reference({**args, **{n: t.clone() for n, t in pristine.items()}})
    poison_outputs(k, args)
    if graph:  # warm-up (allocates the shape's workspace), restore state, then capture and replay
        plan.dispatch(slot, **args)
        torch.cuda.synchronize()
        for n in k.inplace:
            args[n].copy_(pristine[n])
        poison_outputs(k, args)
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s), torch.cuda.graph(g, stream=s):
            path, _ = plan.dispatch(slot, **args)
        g.replay()
    else:
        path, _ = plan.dispatch(slot, **args)
    torch.cuda.synchronize()
    reports = run_checks(k.checks, args, ref)
    return path, all(r.ok for r in reports), "; ".join(r.message() for r in reports if not r.ok)[:300]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bundles", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    major, minor = torch.cuda.get_device_capability()
    ctx = slots.PlanContext(arch=f"sm_{major}{minor}")
    reg = qwen35.registry(a.bundles)
    kernels = slots.build_plan(reg, slots=[s.name for s in qwen35.SLOTS], context=ctx)
    stock = slots.build_plan(qwen35.registry(a.bundles), slots="none", context=ctx, log=lambda line: None)
    rows, failed = [], 0
    for s in qwen35.SLOTS:
        for name in s.variants:
            k = reference.get(name)
            shapes = [k.shapes[0], k.shapes[len(k.shapes) // 2]]
            for i, shape in enumerate(shapes):
                # shapes hold the batch's parameters (M, B, T): batch_of reads them
                want = "kernel" if s.max_batch < 0 or s.batch_of(shape) <= s.max_batch else "stock"
                path, ok, why = run(kernels, s.name, k, shape, seed=1000 + i)
                good = ok and path == want
                failed += not good
                rows.append(dict(slot=s.name, kernel=name, shape=shape, plan="all slots", path=path,
                                 expected=want, ok=good, detail=why))
                spath, sok, swhy = run(stock, s.name, k, shape, seed=2000 + i)
                rows.append(dict(slot=s.name, kernel=name, shape=shape, plan="none", path=spath,
                                 expected="stock", ok=sok and spath == "stock", detail=swhy))
            if s.max_batch > 0:  # beyond the bound, and inside a CUDA graph
                big = dict(shapes[0], B=s.max_batch + 1)
                path, ok, why = run(kernels, s.name, k, big, seed=3000)
                good = ok and path == "stock"
                failed += not good
                rows.append(dict(slot=s.name, kernel=name, shape=big, plan="all slots", path=path,
                                 expected="stock", ok=good, detail=why))
                path, ok, why = run(kernels, s.name, k, shapes[1], seed=4000, graph=True)
                good = ok and path == "kernel"
                failed += not good
                rows.append(dict(slot=s.name, kernel=name, shape=shapes[1], plan="all slots, CUDA graph",
                                 path=path, expected="kernel", ok=good, detail=why))
    for r in rows:
        print(f"{'ok  ' if r['ok'] else 'FAIL'} {r['slot']:16s} {r['kernel']:22s} {r['plan']:22s} "
              f"{r['path']:6s} {r['shape']} {r['detail']}", flush=True)
    result = dict(commit=os.environ.get("MEGAC_COMMIT", "unknown"), device=torch.cuda.get_device_name(),
                  time=time.strftime("%Y-%m-%dT%H:%M:%S%z"), plan=str(kernels), rows=rows,
                  kernel_path_failures=failed)
    with open(os.path.join(a.out, "qwen35_slots.json"), "w") as f:
        json.dump(result, f, indent=1, default=str)
    print(f"kernel-path failures: {failed}; stock-path failures: "
          f"{sum(1 for r in rows if r['plan'] == 'none' and not r['ok'])}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
