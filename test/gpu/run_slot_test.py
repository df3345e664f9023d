"""The slot contract on the GPU: a slot runs its megac kernel or falls back to its stock (PyTorch) path
exactly as its plan says, inside a captured CUDA graph, with equal results.

Slot shared_act_quant, validated to batch 32: batch 32 runs the kernel, batch 33 runs stock (a per-call
bound: the slot stays active), a default plan whose check refuses for runtime state runs stock with one
INFO line, and an explicit request contradicted by the configuration raises SlotError. Every output is
compared byte by byte with the exact reference (bytes may differ only where the reference marks a value
within one fp32 ulp of a rounding boundary).

    PYTHONPATH=build-gpu/python python3 test/gpu/run_slot_test.py --bundles out/bundles --out DIR
"""
import argparse
import json
import os
import sys

import torch

import megac
from megac import slots
from megac.reference import shared_act_quant as ref


def compare(q, args):
    expected = ref.reference(args)
    diff = q.view(torch.uint8) != expected["q"].view(torch.uint8)
    bad = int((diff & ~expected["q_near_boundary"]).sum().item())
    return bad, int(diff.sum().item())


def run_in_graph(plan, args):
    """Captures one plan.run in a CUDA graph, replays it on fresh poison, returns the path taken."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        path, _ = plan.dispatch("shared_act_quant", **args)  # warm-up outside the graph
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        path, _ = plan.dispatch("shared_act_quant", **args)
    args["q"].view(torch.uint8).fill_(0x7F)  # poison: NaN in e4m3
    graph.replay()
    torch.cuda.synchronize()
    return path


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bundles", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    kernel = megac.load(os.path.join(a.bundles, "shared_act_quant.mgb")).shared_act_quant

    def megac_path(x, scale, q, M, I):
        kernel(x=x, scale=scale, q=q, M=M, I=I)

    def stock_path(x, scale, q, M, I):
        q.copy_(ref.quant_e4m3(ref.act(x), scale)[0])

    results, log = [], []

    def registry(check=None):
        r = slots.Registry()
        r.add("shared_act_quant", megac_path, stock_path, check=check, max_batch=32,
              batch_of=lambda **c: c["M"])
        return r

    plan = slots.build_plan(registry(), slots=["shared_act_quant"], log=log.append)
    for M, want in ((32, "kernel"), (33, "stock"), (32, "kernel")):
        args = ref.inputs(M, 1024, seed=M)
        path = run_in_graph(plan, args)
        bad, differing = compare(args["q"], args)
        results.append(dict(case=f"explicit, batch {M}", path=path, expected_path=want, bad_bytes=bad,
                            boundary_bytes=differing - bad, ok=path == want and bad == 0))

    state = registry(check=lambda ctx: slots.state("weights are not quantized for this slot"))
    plan = slots.build_plan(state, slots=None, default_recipe="", log=log.append)
    args = ref.inputs(16, 1024, seed=7)
    path = run_in_graph(plan, args)
    bad, differing = compare(args["q"], args)
    results.append(dict(case="default plan, state refusal", path=path, expected_path="stock", bad_bytes=bad,
                        boundary_bytes=differing - bad, ok=path == "stock" and bad == 0))

    conflict = registry(check=lambda ctx: slots.configuration("the scale is per-channel", "pass a per-tensor scale"))
    try:
        slots.build_plan(conflict, slots=["shared_act_quant"], log=log.append)
        results.append(dict(case="explicit, configuration refusal", ok=False, error="no SlotError"))
    except slots.SlotError as e:
        results.append(dict(case="explicit, configuration refusal", ok=True, error=str(e)))

    report = dict(commit=os.environ.get("MEGAC_COMMIT", "unknown"), device=torch.cuda.get_device_name(),
                  results=results, log=log, passed=all(r["ok"] for r in results))
    with open(os.path.join(a.out, "slots_gpu.json"), "w") as f:
        json.dump(report, f, indent=1)
    for r in results:
        print(("ok  " if r["ok"] else "FAIL") + " " + json.dumps(r))
    for line in log:
        print("log:", line)
    return 0 if report["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
