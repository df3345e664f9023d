#!/usr/bin/env python3
"""Exploratory: shared_act_quant bundles whose silu divisions (div.rn.f32 by a register written as `x + 1.0`) are
rewritten in the sm_90a PTX as Markstein's fast path without div.rn's check and branch - an upper bound of what
dropping the check gains (`nochk`, wrong for gates below about -87.3 and +inf) - or with a select for gates below
-87 as a stand-in for a guard's cost (`guard`). Reassembled with ptxas -O3 (MEGAC_PTXAS or CUDA 13.0's).

usage (build machine): PYTHONPATH=build/python python3 bench/ptx_silu_fast_path.py SRC_DIR DST_DIR nochk|guard
Used in results/tuning_logistic_quotient_e15a60d.md (before the logistic quotient was written).
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptx_cache_hints import rewrite_bundle  # noqa: E402


def fast_path(q, g, d, guard):
    body = ["{ .reg .f32 t<7>;",
            f"\trcp.approx.ftz.f32 t0, {d};", f"\tneg.f32 t1, {d};", "\tfma.rn.f32 t2, t1, t0, 0f3F800000;",
            "\tfma.rn.f32 t3, t0, t2, t0;", f"\tmul.rn.f32 t4, {g}, t3;", f"\tneg.f32 t5, {g};",
            f"\tfma.rn.f32 t6, {d}, t4, t5;", "\tneg.f32 t6, t6;"]
    if guard:
        body += ["\tfma.rn.f32 t6, t6, t3, t4;", f"\t{{ .reg .pred pg; setp.lt.f32 pg, {g}, 0fC2AE0000;",
                 f"\tselp.f32 {q}, 0f80000000, t6, pg; }}", "}"]
    else:
        body += [f"\tfma.rn.f32 {q}, t6, t3, t4;", "}"]
    return "\n".join(body)


def rewrite(ptx, guard):
    ones = set(re.findall(r"add\.rn\.f32\s+(%r\d+), %r\d+, 0f3F800000;", ptx))

    def sub(m):
        q, g, d = m.groups()
        return fast_path(q, g, d, guard) if d in ones else m.group(0)

    return re.sub(r"div\.rn\.f32\s+(%r\d+), (%r\d+), (%r\d+);", sub, ptx)


def main():
    src, dst, mode = sys.argv[1:4]
    os.makedirs(dst, exist_ok=True)
    rewrite_bundle(f"{src}/shared_act_quant.mgb", f"{dst}/shared_act_quant.mgb",
                   lambda ptx: rewrite(ptx, mode == "guard"))


if __name__ == "__main__":
    main()
