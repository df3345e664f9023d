"""scripts/session_results.py: a GPU session's tarballs filed under the names docs/ cite, the card in the name
unless it is the H200, and what they say printed: failing shapes, sanitizer summaries, shapes below Triton."""
import gzip
import io
import json
import os
import subprocess
import sys
import tarfile

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "scripts"))

from session_results import below_triton, card_of  # noqa: E402

SCRIPT = os.path.join(ROOT, "scripts", "session_results.py")


def tarball(path, files):
    with tarfile.open(path, "w:gz") as tar:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo("./" + name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def correctness(device, passes, refused=False):
    kernels = {"k": {"status": "ran", "shapes": [{"shape": {"M": i}, "pass": ok} for i, ok in enumerate(passes)]}}
    if refused:
        kernels["r"] = {"status": "error", "error": "bundle refused"}
    return json.dumps({"device": device, "commit": "abc1234", "seed": 1, "kernels": kernels})


def row(shape, ratio, low, high):
    return {"shape": shape, "megac": {"status": "ok", "ratio": ratio, "ratio_min": low, "ratio_max": high}}


def bench(device):
    return {"device": device, "commit": "abc1234", "date": "d", "copy_gbps": 3019.0, "skipped": [], "kernels": {
        "a": {"rows": [row({"M": 1}, 1.02, 1.01, 1.03), row({"M": 2}, 0.995, 0.99, 1.001)]},
        "b": {"rows": [row({"N": 8}, 0.97, 0.96, 0.98), {"shape": {"N": 9}, "megac": {"status": "error"}}]}}}


def run(tmp_path, *args, commit="abc", check=True):
    results = tmp_path / "results"
    results.mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, SCRIPT, "--commit", commit, "--results", str(results), *args],
                          check=check, capture_output=True, text=True)
    return (done.stdout if check else done), sorted(os.listdir(results))


def test_the_card_is_in_the_name_unless_it_is_the_h200():
    assert card_of("NVIDIA H200") == ("", "h200")
    assert card_of("NVIDIA H100 80GB HBM3") == ("_h100", "h100")
    assert card_of("NVIDIA B300 SXM6 AC") == ("_b300", "b300")


def test_shapes_below_triton_worst_first_errors_left_out():
    assert [(r[1], r[2]) for r in below_triton(bench("H200"))] == [("b", {"N": 8}), ("a", {"M": 2})]


def test_part1_files_and_says_what_failed(tmp_path):
    part1 = tmp_path / "p1.tgz"
    tarball(part1, {
        "check/gpu_results.json": correctness("NVIDIA H100 80GB HBM3", [True, False, True], refused=True),
        "check/runtime_tests.log": "100% tests passed out of 109\n",
        "final/memcheck/gpu_results.json": correctness("NVIDIA H100 80GB HBM3", [True]),
        "final/memcheck.log": "========= ERROR SUMMARY: 2 errors\n",
        "pytest.txt": "1132 passed in 9.37s\n",
        "slots.txt": "kernel-path failures: 0; stock-path failures: 0\n"})
    out, files = run(tmp_path, "--part1", str(part1))
    assert files == ["gpu_correctness_abc_h100.json.gz", "sanitizers_abc_h100.json.gz"]
    assert "shapes: 2 of 3 pass; kernels not run: 1" in out and "FAIL k M=1" in out
    assert "FAIL r: error (bundle refused)" in out
    assert "memcheck: 1 shapes, 0 failed, 0 kernels not run; ERROR SUMMARY: 2 errors" in out
    assert "initcheck: not run" in out and "1132 passed" in out


def test_part2_files_under_the_h200_names_and_lists_the_shapes_below(tmp_path):
    part2 = tmp_path / "p2.tgz"
    tarball(part2, {
        "bench/bench_results.json": json.dumps(bench("NVIDIA H200")),
        "bench/benchmarks.md": "# megac benchmark\n",
        "bench/launch_overhead.json": "[]\n",
        "compile_ms_host.json": json.dumps({"a": 12.5, "b": 49.0})})
    out, files = run(tmp_path, "--part2", str(part2))
    assert files == ["bench_abc.json.gz", "benchmarks_abc.md", "compile_ms_h200host_abc.json",
                     "launch_overhead_abc.json"]
    assert "at or above Triton: 1 of 4 shapes; megac not measured: 1" in out
    assert out.index("0.9700 (0.9600-0.9800) b N=8") < out.index("0.9950 (0.9900-1.0010) a M=2")
    assert "12.5-49.0 ms (slowest b)" in out


def test_a_session_of_another_commit_is_refused_and_nothing_filed(tmp_path):
    part2 = tmp_path / "p2.tgz"
    tarball(part2, {"bench/bench_results.json": json.dumps(bench("NVIDIA H200"))})
    done, files = run(tmp_path, "--part2", str(part2), commit="abd", check=False)
    assert done.returncode != 0 and "measured commit 'abc1234', not 'abd'" in done.stderr
    assert files == []


def measured_kernels(count):
    """The first `count` kernels of a committed H200 benchmark: what run_bench.py has saved when it is stopped."""
    with gzip.open(os.path.join(ROOT, "results", "bench_1d28df5.json.gz"), "rt") as f:
        res = json.load(f)
    res["kernels"] = dict(list(res["kernels"].items())[:count])
    res["commit"] = "abc1234"
    return res


def test_a_part2_cut_short_files_the_kernels_it_measured_and_makes_their_tables(tmp_path):
    part2 = tmp_path / "p2.tgz"
    tarball(part2, {"bench/bench_results.json": json.dumps(measured_kernels(2)), "bench.txt": "== run_bench\n"})
    out, files = run(tmp_path, "--part2", str(part2))
    assert files == ["bench_abc.json.gz", "benchmarks_abc.md"]
    assert "part 2 was cut short: 2 kernels measured; their tables made here" in out
    tables = (tmp_path / "results" / "benchmarks_abc.md").read_text()
    assert tables.startswith("# megac benchmark") and "abc1234" in tables
    assert "megac compile times: none measured" in out


def test_a_part2_without_benchmark_results_is_refused_with_the_last_line_of_its_log(tmp_path):
    part2 = tmp_path / "p2.tgz"
    tarball(part2, {"bench.txt": "== run_bench\ngpu-bench: build-gpu/ missing\n"})
    done, files = run(tmp_path, "--part2", str(part2), check=False)
    assert done.returncode != 0 and "stopped before the first kernel" in done.stderr
    assert "gpu-bench: build-gpu/ missing" in done.stderr and files == []
