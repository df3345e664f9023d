#!/usr/bin/env python3
"""Files the tarballs of scripts/gpu-session.sh into results/ under the names docs/ cite, and prints what they
say, so that the account of a GPU session (results/checks_<sha>.md, docs/benchmarks.md) starts from the numbers
rather than from reading logs by hand.

Files are named by commit and card: the H200 (the card the issue's targets are set on) gets no suffix, any
other card its model (`_h100`), so that an H100 number is never read as an H200 one.
  part 1 -> gpu_correctness_<sha><card>.json.gz, sanitizers_<sha><card>.json.gz (the four tools' shapes)
  part 2 -> benchmarks_<sha><card>.md, bench_<sha><card>.json.gz, launch_overhead_<sha><card>.json,
            compile_ms_<model>host_<sha>.json; for a part 2 cut short, the tables of the kernels it finished
usage: scripts/session_results.py --commit SHA [--part1 session_part1.tgz] [--part2 session_part2.tgz]
                                  [--results DIR]
"""
import argparse
import gzip
import json
import os
import re
import shutil
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from run_bench import markdown, shape_str  # noqa: E402 (run_bench imports torch only when it measures)
# memcheck_other: memcheck at the variants the pool's other card launches (scripts/gpu-final.sh, --variants-as)
SANITIZERS = ("memcheck", "memcheck_other", "initcheck", "synccheck", "racecheck")


def card_of(device):
    """('', 'h200') for an H200; ('_h100', 'h100') for an H100; the model's name likewise for any other card."""
    match = re.search(r"\b([A-Z]+\d+[A-Z]?)\b", device)
    model = match.group(1).lower() if match else "unknown"
    return ("" if model == "h200" else "_" + model), model


def shape_counts(correctness):
    """(shapes run, the failed shapes as 'kernel M=.., N=..', the kernels that did not run as 'kernel: status
    (error)') of a run_gpu_tests.py result. A kernel whose bundle was missing or refused has no shapes to fail."""
    total, failed, not_run = 0, [], []
    for name, kernel in correctness["kernels"].items():
        if kernel["status"] != "ran":
            not_run.append(f"{name}: {kernel['status']} ({kernel.get('error', 'no error recorded')})")
        for shape in kernel.get("shapes", []):
            total += 1
            if not shape["pass"]:
                failed.append(f"{name} {shape_str(shape['shape'])}")
    return total, failed, not_run


def below_triton(bench):
    """Every benchmarked shape where megac is slower than Triton: (ratio, kernel, shape, round min, round max),
    worst first."""
    rows = []
    for name, kernel in bench["kernels"].items():
        for row in kernel["rows"]:
            megac = row["megac"]
            if megac.get("status") == "ok" and megac["ratio"] < 1.0:
                rows.append((megac["ratio"], name, row["shape"], megac["ratio_min"], megac["ratio_max"]))
    return sorted(rows, key=lambda r: r[0])


def last_line(path, pattern):
    """The last line of a log matching `pattern`, or a note that none does (a part that did not get so far)."""
    if not os.path.exists(path):
        return f"({os.path.basename(path)} missing)"
    lines = [line.strip() for line in open(path, errors="replace") if re.search(pattern, line)]
    return lines[-1] if lines else f"(no line of {os.path.basename(path)} matches {pattern!r})"


def read_json(path):
    with open(path) as f:
        return json.load(f)


def same_commit(given, recorded):
    """Files named after one commit must hold that commit's numbers: MEGAC_COMMIT, which the session's scripts
    record, may be a full or a short SHA, and so may --commit."""
    if not recorded or not (recorded.startswith(given) or given.startswith(recorded)):
        raise SystemExit(f"session_results: the session measured commit {recorded!r}, not {given!r}; "
                         f"give --commit the commit it ran (MEGAC_COMMIT)")


def save_json_gz(data, path):
    with gzip.open(path, "wt") as f:
        json.dump(data, f)


def file_part1(work, commit, results):
    correctness = read_json(os.path.join(work, "check", "gpu_results.json"))
    same_commit(commit, correctness.get("commit"))
    card, _ = card_of(correctness["device"])
    save_json_gz(correctness, os.path.join(results, f"gpu_correctness_{commit}{card}.json.gz"))
    total, failed, not_run = shape_counts(correctness)
    print(f"part 1 on {correctness['device']} (commit {correctness.get('commit')}, seed {correctness.get('seed')})")
    print(f"  shapes: {total - len(failed)} of {total} pass; kernels not run: {len(not_run)}"
          + "".join(f"\n    FAIL {f}" for f in failed + not_run))
    sanitizers = {}
    for tool in SANITIZERS:
        path = os.path.join(work, "final", tool, "gpu_results.json")
        if os.path.exists(path):
            sanitizers[tool] = read_json(path)
            shapes, tool_failed, tool_not_run = shape_counts(sanitizers[tool])
            summary = last_line(os.path.join(work, "final", f"{tool}.log"), r"(ERROR|RACECHECK) SUMMARY")
            print(f"  {tool}: {shapes} shapes, {len(tool_failed)} failed, {len(tool_not_run)} kernels not run; "
                  f"{summary.lstrip('= ')}")
        else:
            print(f"  {tool}: not run")
    if sanitizers:
        save_json_gz(sanitizers, os.path.join(results, f"sanitizers_{commit}{card}.json.gz"))
    runtime_log = os.path.join(work, "check", "runtime_tests.log")
    print("  runtime tests: " + last_line(runtime_log, r"tests passed|tests failed"))
    print("  pytest: " + last_line(os.path.join(work, "pytest.txt"), r"passed|failed|error"))
    print("  slots: " + last_line(os.path.join(work, "slots.txt"), r"failures"))


def file_part2(work, commit, results):
    bench_dir = os.path.join(work, "bench")
    results_path = os.path.join(bench_dir, "bench_results.json")
    if not os.path.exists(results_path):
        sys.exit(f"session_results: part 2 holds no bench/bench_results.json: its benchmark stopped before the "
                 f"first kernel (bench.txt ends: {last_line(os.path.join(work, 'bench.txt'), r'.')!r})")
    bench = read_json(results_path)
    same_commit(commit, bench.get("commit"))
    card, model = card_of(bench["device"])
    save_json_gz(bench, os.path.join(results, f"bench_{commit}{card}.json.gz"))
    tables = os.path.join(results, f"benchmarks_{commit}{card}.md")
    if os.path.exists(os.path.join(bench_dir, "benchmarks.md")):
        shutil.copy(os.path.join(bench_dir, "benchmarks.md"), tables)
    else:
        # A part 2 stopped by `timeout` (scripts/gpu-session.sh) packs the raw numbers of the kernels it finished,
        # which run_bench.py rewrites after each kernel, but not the tables it writes at the end: make them here.
        with open(tables, "w") as f:
            f.write(markdown(bench) + "\n")
        print(f"part 2 was cut short: {len(bench['kernels'])} kernels measured; their tables made here")
    if os.path.exists(os.path.join(bench_dir, "launch_overhead.json")):
        shutil.copy(os.path.join(bench_dir, "launch_overhead.json"),
                    os.path.join(results, f"launch_overhead_{commit}{card}.json"))
    rows = [row for k in bench["kernels"].values() for row in k["rows"]]
    measured = sum(1 for row in rows if row["megac"].get("status") == "ok")
    below = below_triton(bench)
    print(f"part 2 on {bench['device']} (commit {bench['commit']}, {bench['date']}), "
          f"copy {bench['copy_gbps']:.0f} GB/s")
    print(f"  at or above Triton: {measured - len(below)} of {len(rows)} shapes; megac not measured: "
          f"{len(rows) - measured}; skipped for time: {len(bench.get('skipped', []))}")
    for ratio, name, shape, low, high in below:
        print(f"    {ratio:.4f} ({low:.4f}-{high:.4f}) {name} {shape_str(shape)}")
    compile_path = os.path.join(work, "compile_ms_host.json")
    if os.path.exists(compile_path):
        shutil.copy(compile_path, os.path.join(results, f"compile_ms_{model}host_{commit}.json"))
        ms = read_json(compile_path)
        worst = max(ms, key=ms.get)
        print(f"  megac compile on that host: {min(ms.values())}-{ms[worst]} ms (slowest {worst})")
    else:
        print("  megac compile times: none measured on that host (no portable megac was carried)")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--commit", required=True, help="the commit the bundles were built at, as it names the files")
    p.add_argument("--part1", help="session_part1.tgz")
    p.add_argument("--part2", help="session_part2.tgz")
    p.add_argument("--results", default=os.path.join(ROOT, "results"))
    a = p.parse_args()
    if not (a.part1 or a.part2):
        p.error("give --part1, --part2 or both")
    for path, file_part in ((a.part1, file_part1), (a.part2, file_part2)):
        if path:
            with tempfile.TemporaryDirectory() as work:
                with tarfile.open(path) as tar:
                    # Our own tarballs; Debian 12's Python 3.11.2 predates extraction filters.
                    tar.extractall(work)
                file_part(work, a.commit, a.results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
