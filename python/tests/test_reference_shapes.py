"""megac.reference.shapes, the torch-free shape lists: every reference kernel has its listed and benchmark shapes
there, and (with torch) the reference modules read exactly those."""
import importlib.util

import pytest

from megac import reference
from megac.reference.shapes import BENCH, SHAPES


def test_every_kernel_has_its_shapes_without_torch():
    assert set(SHAPES) == set(reference.NAMES) == set(BENCH)
    for name in reference.NAMES:
        assert SHAPES[name], f"{name}: no listed shapes"
        assert all(isinstance(s, dict) and s for s in SHAPES[name] + BENCH[name]), name
        assert len({tuple(sorted(s.items())) for s in SHAPES[name]}) == len(SHAPES[name]), f"{name}: a shape twice"


def test_matmul_alone_is_not_benchmarked():
    assert {name for name in reference.NAMES if not BENCH[name]} == {"matmul", "matmul_nt", "matmul_f16"}


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed")
def test_references_read_these_shapes():
    for name in reference.NAMES:
        kernel = reference.get(name)
        assert list(kernel.shapes) == SHAPES[name] and list(kernel.bench_shapes) == BENCH[name], name


def test_every_shape_is_the_listed_then_the_benchmarked_not_among_them():
    from megac.reference.shapes import every_shape, listed_then_benchmarked
    listed, bench = [dict(n=1), dict(n=7)], [dict(n=7), dict(n=33)]
    assert listed_then_benchmarked(listed, bench) == [dict(n=1), dict(n=7), dict(n=33)]
    for name in reference.NAMES:
        shapes = every_shape(name)
        assert shapes[:len(SHAPES[name])] == SHAPES[name]
        assert all(s in shapes for s in BENCH[name]), name
        assert len({tuple(sorted(s.items())) for s in shapes}) == len(shapes), f"{name}: a shape twice"
    # vector_add's vec4 variant runs only at benchmark shapes (n = 2^24, 2^26): they must be in every_shape
    assert dict(n=1 << 24) in every_shape("vector_add") and dict(n=1 << 24) not in SHAPES["vector_add"]
