#!/usr/bin/env python3
"""In-place updates through replicated layouts on the GPU (test/gpu/replicas.mega): each kernel adds to what it
reads, through a layout in which several threads hold each element (a small tile, a row sum's slice, a scalar,
hop's residual add at 16 warps). Only one thread may store each element; had every replica stored, one that loads
an element after another stored it would store it updated twice. The first three run LAUNCHES times on zeros and
every element must then be exact; they show the stores are right but rarely lose the race even without ownership.
replicas_hop is hop_fp8 at 16 warps, where it was lost (the compiler before ownership wrote thousands of
residuals wrong at M >= 1024, H = 2048): HOP_TRIALS launches on fresh random rows, each residual compared with x + residual rounded to bf16.

    PYTHONPATH=build-gpu/python python3 test/gpu/run_replicas.py --bundle out/bundles/replicas.mgb [--out DIR]
Exit status 0 when every element is exact; writes DIR/replicas.json.
"""
import sys

import bundle_check

LAUNCHES = 20
N = 64 * 8192      # replicas_small: 8192 programs of 64 elements
ROWS = 16 * 8192   # replicas_rows: 8192 programs of 16 rows
HOP_M, HOP_TRIALS = 4096, 5


def run(bundle_path, launches=LAUNCHES):
    """({kernel: {"wrong": elements not exact, "of": elements}}, failures)."""
    import torch
    import megac
    mod = megac.load(bundle_path)
    x = torch.zeros(N, dtype=torch.float32, device="cuda")
    rows = torch.ones(ROWS, 64, dtype=torch.float32, device="cuda")
    acc = torch.zeros(ROWS, dtype=torch.float32, device="cuda")
    c = torch.zeros((), dtype=torch.float32, device="cuda")
    for _ in range(launches):
        mod.replicas_small(x, N)
        mod.replicas_rows(rows, acc, ROWS)
        mod.replicas_scalar(c)
    torch.cuda.synchronize()
    results = {"replicas_small": {"wrong": int((x != launches).sum()), "of": N},
               "replicas_rows": {"wrong": int((acc != 64.0 * launches).sum()), "of": ROWS},
               "replicas_scalar": {"wrong": int((c != launches).sum()), "of": 1}}
    wrong = 0
    for trial in range(HOP_TRIALS):
        g = torch.Generator(device="cuda").manual_seed(trial)
        hx = torch.randn(HOP_M, 2048, device="cuda", generator=g).bfloat16()
        res = torch.randn(HOP_M, 2048, device="cuda", generator=g).bfloat16()
        want = (hx.float() + res.float()).bfloat16()
        w = torch.randn(2048, device="cuda", generator=g).bfloat16()
        scale = torch.ones((), device="cuda")
        out = torch.empty(HOP_M, 2048, dtype=torch.float8_e4m3fn, device="cuda")
        mod.replicas_hop(hx, res, w, out, scale, HOP_M, 2048, 1e-6)
        torch.cuda.synchronize()
        wrong += int((res.view(torch.int16) != want.view(torch.int16)).sum())
    results["replicas_hop"] = {"wrong": wrong, "of": HOP_M * 2048 * HOP_TRIALS}
    return results, bundle_check.count_lines(results, "elements not exact")[1]


def report(results):
    """One line a kernel: how many of its elements are not exact."""
    return bundle_check.count_lines(results, "elements not exact")[0]


if __name__ == "__main__":
    sys.exit(bundle_check.main(__doc__, run, report, "replicas.json"))
