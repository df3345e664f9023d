"""The benchmark report (bench/run_bench.py's summarize and markdown), on a made-up result: no GPU needed."""

import pytest


@pytest.fixture(scope="module")
def run_bench(bench_script):
    return bench_script("run_bench")


def timed(us, pct, size_pct=None, ratio=None):
    r = {"status": "ok", "us": us, "pct_copy": pct}
    if size_pct is not None:
        r["pct_size_copy"] = size_pct
    if ratio is not None:
        r.update(ratio=ratio, ratio_min=ratio - 0.01, ratio_max=ratio + 0.01)
    return r


def result(rows):
    entry = {"rows": rows, "checked": {"megac": True, "triton": True}, "compile_ms": {"megac": 12.0}}
    return {"commit": "abc1234", "date": "today", "device": "H200", "torch": "2", "triton": "3",
            "copy_gbps": 4260.0, "method": {"rounds": 3, "repeats": 10}, "kernels": {"k": entry}}


def report(run_bench, rows):
    """The markdown of a one-kernel result, its summary made as run_bench makes it."""
    res = result(rows)
    res["kernels"]["k"]["summary"] = run_bench.summarize(res["kernels"]["k"])
    return run_bench.markdown(res)


def test_summary_takes_the_largest_shape_and_the_worst_ratio(run_bench):
    rows = [{"shape": {"M": 1}, "bytes": 10, "copy_us": 1.5,
             "megac": timed(2.0, 1.0, 75.0, ratio=0.9), "triton": timed(1.8, 1.1)},
            {"shape": {"M": 4096}, "bytes": 10_000, "copy_us": 8.0,
             "megac": timed(10.0, 70.0, 80.0, ratio=1.2), "triton": timed(12.0, 60.0, 66.0)}]
    s = run_bench.summarize({"rows": rows})
    assert s["worst_ratio"] == 0.9 and s["ratio_ok"] is False
    assert s["largest_shape"] == {"M": 4096}
    assert s["megac_pct_copy_largest"] == 70.0 and s["megac_pct_size_copy_largest"] == 80.0
    assert s["triton_pct_size_copy_largest"] == 66.0


def test_markdown_shows_the_copy_at_size_column(run_bench):
    rows = [{"shape": {"M": 4096}, "bytes": 10_000, "copy_us": 8.0,
             "megac": timed(10.0, 70.0, 80.0, ratio=1.2), "triton": timed(12.0, 60.0)}]
    md = report(run_bench, rows)
    assert "| M=4096 | 10.00 (70%) | 12.00 (60%) | 1.20 (1.19-1.21) | 8.00 (80%) | - | - |" in md
    assert "| k | 1.20 | yes | 70% | 60% | 80% | 12 | - | - | ok |" in md


def test_markdown_without_the_copy_at_size(run_bench):
    """--no-size-copy (and results measured before the column existed) leave dashes, not errors."""
    rows = [{"shape": {"M": 1}, "bytes": 10, "megac": timed(2.0, 1.0, ratio=1.0), "triton": timed(2.0, 1.0)}]
    md = report(run_bench, rows)
    assert "| M=1 | 2.00 (1%) | 2.00 (1%) | 1.00 (0.99-1.01) | - | - | - |" in md
    assert "| k | 1.00 | yes | 1% | 1% | - | 12 | - | - | ok |" in md


def test_copy_time_measures_each_byte_count_once(monkeypatch):
    """The copy-at-size column times a copy once per byte count in a process (shapes of many kernels share one)."""
    import types

    from megac import testing
    calls = []
    fake_torch = types.SimpleNamespace(cuda=types.SimpleNamespace(current_device=lambda: 0))
    monkeypatch.setattr(testing, "_torch", lambda: fake_torch)
    monkeypatch.setattr(testing, "_measure_copy", lambda nbytes, *rest: calls.append(nbytes) or nbytes / 1000.0)
    monkeypatch.setattr(testing, "_COPY_US", {})
    assert testing.copy_time(4000) == 4.0
    assert testing.copy_time(4000) == 4.0
    assert testing.copy_time(8000) == 8.0
    assert calls == [4000, 8000]


def test_markdown_says_when_the_inputs_were_warm(run_bench):
    """--warm-l2 results are not the cold method: the header says so; a cold run's header does not."""
    rows = [{"shape": {"M": 1}, "bytes": 10, "megac": timed(2.0, 1.0, ratio=1.0), "triton": timed(2.0, 1.0)}]
    cold = report(run_bench, rows)
    res = result(rows)
    res["method"]["warm_l2"] = True
    res["kernels"]["k"]["summary"] = run_bench.summarize(res["kernels"]["k"])
    warm = run_bench.markdown(res)
    assert "every launch reading cold inputs" in cold and "warm L2" not in cold
    assert "**warm L2 (--warm-l2)**" in warm and "every launch reading cold inputs" not in warm


def test_select_shapes_picks_by_value_and_refuses_what_matches_nothing():
    """--shape of run_bench.py and run_gpu_tests.py: a typo must not run (or time) nothing."""
    from megac import testing
    shapes = [dict(M=1, K=2048), dict(M=16, K=2048), dict(M=1, K=4096)]
    assert testing.select_shapes(shapes, "") == shapes
    assert testing.select_shapes(shapes, "M=1") == [dict(M=1, K=2048), dict(M=1, K=4096)]
    assert testing.select_shapes(shapes, "M=1,K=4096") == [dict(M=1, K=4096)]
    with pytest.raises(ValueError, match="no shape matches --shape M=2"):
        testing.select_shapes(shapes, "M=2")
    # --max-shapes counts the shapes --shape picked, not the list's first ones (M=1,K=4096 is the list's third)
    assert testing.select_shapes(shapes, "K=4096", limit=1) == [dict(M=1, K=4096)]
    assert testing.select_shapes(shapes, "M=1", limit=1) == [dict(M=1, K=2048)]
    assert testing.select_shapes(shapes, "", limit=2) == shapes[:2]
    with pytest.raises(ValueError, match="NAME=INT pairs"):
        testing.select_shapes(shapes, "M1")


def test_markdown_names_where_megac_compile_times_come_from(run_bench):
    """The compile column's megac times were measured elsewhere (the build machine, or the GPU machine with a
    portable megac): the header names the file they came from, or that none was given."""
    rows = [{"shape": {"M": 1}, "bytes": 10, "megac": timed(2.0, 1.0, ratio=1.0), "triton": timed(2.0, 1.0)}]
    assert "compiles, from `none given`." in report(run_bench, rows)
    res = result(rows)
    res["megac_compile_ms_file"] = "out/session/compile_ms_host.json"
    res["kernels"]["k"]["summary"] = run_bench.summarize(res["kernels"]["k"])
    assert "compiles, from `out/session/compile_ms_host.json`." in run_bench.markdown(res)
