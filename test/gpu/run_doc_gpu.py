"""Runs the ```python gpu blocks of docs/python.md on a GPU machine that has only the runtime half (no
compiler): the bundles the CPU part would have produced come compiled, `path` names saxpy's.

    PYTHONPATH=build-gpu/python python3 test/gpu/run_doc_gpu.py --saxpy out/bundles/saxpy.mgb --out DIR
"""
import argparse
import json
import os
import sys
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python", "tests"))
import test_docs  # noqa: E402  (block extraction shared with the CPU test)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--saxpy", required=True)
    p.add_argument("--out", required=True)
    a = p.parse_args()
    ns = {"__name__": "docs_python_md", "path": a.saxpy}
    ran, error = 0, None
    try:
        for line, code in test_docs.blocks("gpu"):
            exec(compile("\n" * (line - 1) + code, test_docs.DOC, "exec"), ns)
            ran += 1
    except Exception:
        error = traceback.format_exc()
    report = dict(commit=os.environ.get("MEGAC_COMMIT", "unknown"), gpu_blocks=len(test_docs.blocks("gpu")),
                  ran=ran, passed=error is None, error=error)
    os.makedirs(a.out, exist_ok=True)
    with open(os.path.join(a.out, "doc_gpu.json"), "w") as f:
        json.dump(report, f, indent=1)
    print(json.dumps(report, indent=1))
    return 0 if error is None else 1


if __name__ == "__main__":
    sys.exit(main())
