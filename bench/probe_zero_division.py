#!/usr/bin/env python3
"""Probe: does an IEEE division with a zero dividend take div.rn's slow path on the GPU?

Times megac's shared_act_quant at M=16 on random inputs and on inputs whose gate/up halves are zero (every
quotient 0 / scale), in CUDA graphs of 200 launches, L2-resident (the inputs are tiny): a slow path shows as a
longer kernel. Usage: PYTHONPATH=build-gpu/python python3 bench/probe_zero_division.py out/bundles
"""
import sys

import torch

import megac


def time_us(fn, reps=200, rounds=5):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(reps):
            fn()
    times = []
    for _ in range(rounds):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        g.replay()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) * 1000 / reps)
    return sorted(times)[len(times) // 2]


def main():
    k = megac.load(sys.argv[1] + "/shared_act_quant.mgb").kernel("shared_act_quant")
    M, I = 16, 512
    scale = torch.tensor(0.01, device="cuda")
    q = torch.empty((M, I), device="cuda", dtype=torch.float8_e4m3fn)
    rand = torch.randn((M, 2 * I), device="cuda").to(torch.bfloat16)
    zero = torch.zeros_like(rand)
    for name, x in (("random", rand), ("zeros", zero), ("random", rand)):
        print(f"shared_act_quant M={M} I={I} {name}: {time_us(lambda: k(x=x, scale=scale, q=q, M=M, I=I)):.2f} us")


if __name__ == "__main__":
    main()
