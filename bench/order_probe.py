#!/usr/bin/env python3
"""Does the position of an implementation in a round move its time? An A/A test of the benchmark's method.

testing.compare() times a shape's implementations in turn, in rounds. At the small shapes (1.7-2 us a launch)
megac and Triton differ by 20-60 ns, even where their SASS is nearly the same (vector_add). This times each shape with every implementation twice (megac, triton, megac#2,
triton#2), once in that order and once reversed: if the position matters, megac/megac#2 and triton/triton#2
differ, and the megac/Triton ratio moves with the order.

usage (GPU machine, PYTHONPATH=build-gpu/python):
    python3 bench/order_probe.py --bundles out/bundles --out DIR [--cases "vector_add:n=65536 group_quant:M=1,K=2048"]
        [--alt NAME=DIR ...] [--no-twins] [--early] [--rounds 5] [--repeats 10]
--alt adds a column per bundle directory (each checked against the reference at the shape first), for A/B of
compiled alternatives in the same process; --early adds each megac column launched early as well (NAME.early:
its @early_launch kernels by programmatic dependent launch, as run_bench.py's megac.early). Writes DIR/order_probe.json and prints one line per case and order.
First used in results/tuning_order_saq_882a290.md.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

DEFAULT_CASES = ("vector_add:n=65536 vector_add:n=1048576 group_quant:M=1,K=2048 softmax_small:M=1,N=1024 "
                 "shared_act_quant:M=4096,I=512 hop_mid:M=512,H=2048 gdn_norm_gate:M=4096,HV=8")


def probe_options(default_cases):
    """The options every probe script takes: the bundles, the output directory, the cases, rounds, repeats."""
    p = argparse.ArgumentParser()
    p.add_argument("--bundles", default="out/bundles")
    p.add_argument("--out", required=True)
    p.add_argument("--cases", default=default_cases, help="space-separated kernel:NAME=INT,... cases")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--repeats", type=int, default=10)
    return p


def parse_cases(cases):
    """(kernel name, the shape spec as written, its reference, the benchmark shape) of each 'kernel:NAME=INT,...'."""
    from megac import reference, testing
    for case in cases.split():
        name, spec = case.split(":")
        ref = reference.get(name)
        yield name, spec, ref, testing.select_shapes(ref.bench_shapes, spec)[0]


def time_shape(ref, shape, impls, a):
    """One testing.compare of `impls` at `shape` (ratios against "triton"): ({impl: us}, {impl: ratio}, the row)."""
    from megac import testing
    row = testing.compare([shape], lambda s: ref.inputs(**s, device="cuda", seed=5), impls,
                          lambda s: ref.bytes_moved(**s), copy_bw=1.0, repeats=a.repeats, rounds=a.rounds,
                          baseline="triton", log=None)[0]
    ok = [k for k in impls if row[k].get("status") == "ok"]
    return ({k: round(row[k]["us"], 4) for k in ok},
            {k: round(row[k]["ratio"], 4) for k in ok if "ratio" in row[k]}, row)


def main():
    p = probe_options(DEFAULT_CASES)
    p.add_argument("--no-twins", action="store_true", help="time megac and Triton once each (no megac#2, "
                   "triton#2): for comparing the --alt columns only")
    p.add_argument("--alt", action="append", default=[], metavar="NAME=DIR",
                   help="also time the kernels of the bundles in DIR (column NAME), e.g. the same PTX assembled "
                   "by another ptxas; repeatable")
    p.add_argument("--early", action="store_true", help="also each megac column launched early (NAME.early)")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    import triton_kernels
    from run_bench import check_impl, megac_impl
    from megac import bundles
    found, _ = bundles.index(a.bundles)
    modules = {}
    alts = {n: (bundles.index(d)[0], {}) for n, d in (x.split("=", 1) for x in a.alt)}
    results = []
    for name, spec, ref, shape in parse_cases(a.cases):
        m, t = megac_impl(name, found, modules), triton_kernels.LAUNCHERS[name]
        # The columns beyond megac and Triton, each alternative checked once against the reference.
        extra = {}
        if a.early and (fn := megac_impl(name, found, modules, early_launch=True)) is not None:
            extra["megac.early"] = fn
        for alt, (alt_found, alt_modules) in alts.items():
            for suffix in ("", ".early") if a.early else ("",):
                fn = megac_impl(name, alt_found, alt_modules, early_launch=bool(suffix))
                if fn is not None:
                    print(f"{name} {spec} {alt}{suffix}: check {check_impl(fn, ref, shape)[0]}")
                    extra[alt + suffix] = fn
        for order in ("forward", "reverse"):
            impls = {"megac": m, "triton": t} if a.no_twins else {"megac": m, "triton": t, "megac#2": m, "triton#2": t}
            impls.update(extra)
            if order == "reverse":
                impls = dict(reversed(list(impls.items())))
            us, ratios, row = time_shape(ref, shape, impls, a)
            for k in set(impls) - set(us):
                print(f"{name} {spec} {k}: {row[k]}")
            results.append({"kernel": name, "shape": shape, "order": order, "us": us, "ratio_vs_triton": ratios})
            print(f"{name} {spec} {order:8s} us {us} ratios {ratios}", flush=True)
    with open(os.path.join(a.out, "order_probe.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
