#!/usr/bin/env python3
"""How does the split plan move attention's time? The split kernel's programs (request, kv head, split) are
sized by `split_plan(..., waves=2)` (about two programs a SM); this times megac's attention with the plans of
other wave counts, and its two launches apart, beside Triton's (which sizes its grid the same way), in one
process (testing.compare: CUDA graphs, rotated buffers, rounds).

Columns: `triton`; `megac` (the shipped plan, waves = 2); `megac.wN` (megac with the plan of N waves: other
split_pages / nsplit, each argument set with its own workspace, so that no partials stay in the L2 from one
launch to the next); `triton.wN` (Triton's launcher with N waves; it keeps one workspace a shape, as in the
benchmark); with --fill, `megac.fill` and `triton.fill` (two waves rounded down: split_plan's fill, at most
2 * SMs programs where the batch allows; it differs from the shipped plan where 2 * SMs / (B * Hkv) is not a whole
number: at B = 32, Hkv = 1 8 splits, 256 programs, instead of 9 and 288); `split` and `merge` (megac's split
kernel alone and its merge alone, the shipped plan), `triton.split` and `triton.merge` (Triton's, the same). Every
column but the last four is checked against the reference first.

usage (GPU machine, PYTHONPATH=build-gpu/python):
    python3 bench/attn_splits_probe.py --bundles out/bundles --out DIR [--cases "..."] [--waves 1,3,4] [--fill]
Writes DIR/attn_splits_probe.json and prints one line per case. First used in
results/tuning_attn_splits_<commit>.md.
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from order_probe import parse_cases, probe_options, time_shape  # noqa: E402

DEFAULT_CASES = ("attn_decode_verify:B=32,ctx=4096 attn_decode_verify:B=8,ctx=4096 "
                 "attn_decode_q1:B=32,ctx=4096 attn_decode_verify:B=32,ctx=32768 attn_decode_verify:B=1,ctx=32768")


def with_plan(fn, waves, fill=False):
    """fn(args) run with the split plan of `waves` waves (rounded down with `fill`): each argument set gets its
    own workspace of that plan (allocated on its first call, outside the graph capture: Timer calls fn once per
    set first)."""
    from megac.reference import attn_decode_cp as attn
    spaces = {}

    def run(a):
        key = id(a["q"])
        if key not in spaces:  # q kept alive, so that its id is not reused for another set's
            spaces[key] = (a["q"], attn.workspace(a["q"], a["Hkv"], a["max_pages"], waves=waves, fill=fill))
        fn(dict(a, **spaces[key][1]))
    return run


def triton_waves(name, waves, fill=False, launches=("split", "merge")):
    """Triton's launcher of `name` (bench/triton_kernels.py) with the plan of `waves` waves (rounded down with
    `fill`), making the `launches` named."""
    import triton_kernels
    verify = name == "attn_decode_verify"
    return lambda a: triton_kernels.attn_decode(a["q"], a["gate"], a["k_cache"], a["v_cache"], a["page_table"],
                                                a["seq_lens"], a["o"], T=a["T"] if verify else 1, waves=waves,
                                                fill=fill, launches=launches)


def one_launch(seq, index):
    """fn(args) making only launch `index` of a bundles.Sequence."""
    from megac import bundles
    k = seq.kernels[index]
    return lambda a: k(**bundles.launch_args(k, a))


def main():
    p = probe_options(DEFAULT_CASES)
    p.add_argument("--waves", default="1,3,4", help="comma list of the other wave counts to time ('' for none)")
    p.add_argument("--fill", action="store_true", help="also time the two-wave plan rounded down (fill)")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    import triton_kernels
    from run_bench import check_impl
    from megac import bundles
    found, _ = bundles.index(a.bundles)
    modules = {}
    results = []
    for name, spec, ref, shape in parse_cases(a.cases):
        seq = bundles.sequence(ref, found, modules, early_launch=False)
        megac = lambda args, seq=seq: seq(**args)  # noqa: E731
        impls = {"triton": triton_kernels.LAUNCHERS[name], "megac": megac}
        for w in (int(x) for x in a.waves.split(",") if x):
            impls[f"megac.w{w}"] = with_plan(megac, w)
            impls[f"triton.w{w}"] = triton_waves(name, w)
        if a.fill:
            impls["megac.fill"] = with_plan(megac, 2, fill=True)
            impls["triton.fill"] = triton_waves(name, 2, fill=True)
        checks = {k: check_impl(fn, ref, shape)[0] for k, fn in impls.items()}
        impls["split"], impls["merge"] = one_launch(seq, 0), one_launch(seq, 1)
        impls["triton.split"] = triton_waves(name, 2, launches=("split",))
        impls["triton.merge"] = triton_waves(name, 2, launches=("merge",))
        us, ratio, _ = time_shape(ref, shape, impls, a)
        results.append(dict(kernel=name, shape=spec, us=us, ratio=ratio, checks=checks))
        print(f"{name} {spec} us {us} ratio {ratio} checks {checks}", flush=True)
    with open(os.path.join(a.out, "attn_splits_probe.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
