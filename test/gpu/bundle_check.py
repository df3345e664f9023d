"""The command line the GPU checks of one bundle share (run_replicas.py, run_early_launch.py, run_streaming.py):
--bundle and --out, the check's own report, each failure, DIR/<name>.json with the results and failures, exit
status 1 on a failure."""
import argparse
import json
import os


def main(doc, run, report, json_name):
    """Parse the options, `run(bundle)` -> (results, failures), print `report(results)`'s lines and the failures;
    returns the exit status."""
    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--bundle", required=True)
    p.add_argument("--out", default="")
    a = p.parse_args()
    results, failures = run(a.bundle)
    for line in report(results):
        print(line)
    for f in failures:
        print("FAIL:", f)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, json_name), "w") as f:
            json.dump({"results": results, "failures": failures}, f, indent=1)
    print("ok" if not failures else f"{len(failures)} failure(s)")
    return 1 if failures else 0


def count_lines(results, what):
    """For results {check: {"wrong": n, "of": total}}: one line a check ("K: n of total WHAT"), and the lines of the
    checks with anything wrong (the failures)."""
    lines = {k: f"{k}: {v['wrong']} of {v['of']} {what}" for k, v in results.items()}
    return list(lines.values()), [lines[k] for k, v in results.items() if v["wrong"]]
