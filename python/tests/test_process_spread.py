"""bench/process_spread.py's table of ratios across processes, on made-up run_bench results: no GPU needed."""
import os

import pytest


@pytest.fixture(scope="module")
def ps(bench_script):
    return bench_script("process_spread")


def part(rows):
    """One process's bench_results: kernel k, rows of (shape, megac us, triton us) or a skipped shape."""
    out = []
    for shape, m_us, t_us in rows:
        if m_us is None:
            out.append({"shape": shape, "megac": {"status": "skipped"}, "triton": {"status": "skipped"}})
        else:
            out.append({"shape": shape, "megac": {"status": "ok", "us": m_us, "ratio": t_us / m_us},
                        "triton": {"status": "ok", "us": t_us}})
    return {"commit": "abc1234", "kernels": {"k": {"rows": out}}}


def test_each_shape_gathers_one_ratio_per_process(ps):
    parts = [part([({"M": 1}, 2.0, 2.0), ({"M": 4096}, 5.0, 4.9)]),
             part([({"M": 1}, 2.0, 2.1), ({"M": 4096}, 5.2, 4.9)]),
             part([({"M": 1}, 2.1, 2.0), ({"M": 4096}, 4.9, 4.9)])]
    table = ps.spread(parts)
    rows = table["k"]
    assert [r["shape"] for r in rows] == [{"M": 1}, {"M": 4096}]
    assert rows[1]["megac_us"] == [5.0, 5.2, 4.9]
    assert rows[1]["ratios"] == pytest.approx([0.98, 4.9 / 5.2, 1.0])
    md = ps.markdown(table, 3)
    assert "| M=4096 | 0.980 (0.942-1.000) | 1 of 3 | 4.90-5.20 | 4.90-4.90 |" in md
    assert "| M=1 | 1.000 (0.952-1.050) | 2 of 3 | 2.00-2.10 | 2.00-2.10 |" in md


def test_a_shape_one_process_skipped_counts_only_where_timed(ps):
    parts = [part([({"M": 1}, 2.0, 2.0)]), part([({"M": 1}, None, None)])]
    rows = ps.spread(parts)["k"]
    assert rows[0]["ratios"] == [1.0]
    assert "| M=1 | 1.000 (1.000-1.000) | 1 of 1 |" in ps.markdown({"k": rows}, 2)
    rows = ps.spread([part([({"M": 1}, None, None)])])["k"]
    assert "| M=1 | not timed |" in ps.markdown({"k": rows}, 1)


FAKE_RUN_BENCH = '''
import argparse, json, os
ap = argparse.ArgumentParser()
ap.add_argument("--bundles"); ap.add_argument("--out"); ap.add_argument("--kernels")
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
n = len(os.listdir(os.path.dirname(a.out)))  # 1, 2, 3: one more part directory each process
row = {"shape": {"M": 1}, "megac": {"status": "ok", "us": 2.0, "ratio": 2.0 * n / 4.0},
       "triton": {"status": "ok", "us": 2.0 * n / 4.0 * 2.0}}
json.dump({"commit": "abc1234", "kernels": {a.kernels: {"rows": [row]}}}, open(os.path.join(a.out, "bench_results.json"), "w"))
'''


def test_main_runs_one_process_each_and_passes_the_options_on(ps, tmp_path, monkeypatch):
    fake = tmp_path / "bench"
    fake.mkdir()
    (fake / "run_bench.py").write_text(FAKE_RUN_BENCH)
    monkeypatch.setattr(ps, "HERE", str(fake))
    out = tmp_path / "out"
    monkeypatch.setattr("sys.argv", ["process_spread.py", "--processes", "3", "--out", str(out),
                                     "--kernels", "softmax"])
    ps.main()
    assert sorted(os.listdir(out)) == ["p0", "p1", "p2", "spread.json", "spread.md"]
    md = (out / "spread.md").read_text()
    assert "## softmax" in md and "| M=1 | 1.000 (0.500-1.500) | 2 of 3 |" in md
