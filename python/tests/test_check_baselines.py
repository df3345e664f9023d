"""bench/check_baselines.py's logic on the CPU (skipped without torch): every shape checked, a failure at one
shape named, an implementation that raises or writes nothing counted as failing."""

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: check_baselines tests skipped")

from megac.reference import common  # noqa: E402
from megac.reference import vector_add as va  # noqa: E402


@pytest.fixture(scope="module")
def cb(bench_script):
    return bench_script("check_baselines")


# vector_add's reference and byte-exact check on small shapes; n = 7 is listed and benchmarked, n = 33 only
# benchmarked.
KERNEL = common.Kernel("vector_add", [dict(n=1), dict(n=7)], [dict(n=7), dict(n=33)], va.inputs, va.reference,
                       va.CHECKS, va.bytes_moved)


def add(a):
    a["out"].copy_(a["x"] + a["y"])


def test_every_listed_and_benchmarked_shape_once(cb):
    assert KERNEL.every_shape() == [dict(n=1), dict(n=7), dict(n=33)]
    rows = cb.check(KERNEL, add, device="cpu")
    assert [r["ok"] for r in rows] == [True, True, True]
    assert cb.line("vector_add", "triton", rows).endswith("3/3 shapes pass")


def test_a_wrong_result_at_one_shape_is_named(cb):
    def off_at_seven(a):
        add(a)
        if a["n"] == 7:
            a["out"][3] += 1.0
    rows = cb.check(KERNEL, off_at_seven, device="cpu")
    assert [r["ok"] for r in rows] == [True, False, True]
    assert rows[1]["mismatches"] == 1
    assert "fails at {'n': 7}" in cb.line("vector_add", "torch", rows)


def test_raising_or_writing_nothing_fails(cb):
    def raises(a):
        raise RuntimeError("no kernel for this shape")
    rows = cb.check(KERNEL, raises, device="cpu")
    assert not any(r["ok"] for r in rows) and "RuntimeError: no kernel" in rows[0]["detail"]
    rows = cb.check(KERNEL, lambda a: None, device="cpu")  # the poisoned output stays NaN
    assert not any(r["ok"] for r in rows)
