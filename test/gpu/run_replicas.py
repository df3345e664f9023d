#!/usr/bin/env python3
"""In-place updates through replicated layouts on the GPU (test/gpu/replicas.mega): each kernel adds to what it
reads, through a layout in which several threads hold each element (a small tile, a row sum's slice, a scalar).
Only one thread may store each element; had every replica stored, one that loads an element after another stored
it would store it updated twice. Each kernel runs LAUNCHES times on zeros; every element must then be exact.

    PYTHONPATH=build-gpu/python python3 test/gpu/run_replicas.py --bundle out/bundles/replicas.mgb [--out DIR]
Exit status 0 when every element is exact; writes DIR/replicas.json.
"""
import argparse
import json
import os
import sys

LAUNCHES = 20
N = 64 * 8192      # replicas_small: 8192 programs of 64 elements
ROWS = 16 * 8192   # replicas_rows: 8192 programs of 16 rows


def run(bundle_path, launches=LAUNCHES):
    """({kernel: {"wrong": elements not exact, "of": elements}}, failures)."""
    import torch
    import megac
    mod = megac.load(bundle_path)
    x = torch.zeros(N, dtype=torch.float32, device="cuda")
    rows = torch.ones(ROWS, 64, dtype=torch.float32, device="cuda")
    acc = torch.zeros(ROWS, dtype=torch.float32, device="cuda")
    c = torch.zeros(1, dtype=torch.float32, device="cuda")
    for _ in range(launches):
        mod.replicas_small(x, N)
        mod.replicas_rows(rows, acc, ROWS)
        mod.replicas_scalar(c)
    torch.cuda.synchronize()
    results = {"replicas_small": {"wrong": int((x != launches).sum()), "of": N},
               "replicas_rows": {"wrong": int((acc != 64.0 * launches).sum()), "of": ROWS},
               "replicas_scalar": {"wrong": int((c != launches).sum()), "of": 1}}
    failures = [f"{k}: {v['wrong']} of {v['of']} elements not exact after {launches} launches"
                for k, v in results.items() if v["wrong"]]
    return results, failures


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bundle", required=True)
    p.add_argument("--out", default="")
    a = p.parse_args()
    results, failures = run(a.bundle)
    print(json.dumps(results, indent=1))
    for f in failures:
        print("FAIL:", f)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "replicas.json"), "w") as f:
            json.dump({"results": results, "failures": failures}, f, indent=1)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
