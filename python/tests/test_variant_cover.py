"""variant_cover.cover: a few listed shapes, smallest first, that launch every variant the listed shapes
reach (run_gpu_tests.py --every-variant, the sanitizers' selection). On the CPU: the runtime chooses the
variants from raw tensors, as in test_variant_choice.py."""
import os
import warnings

import pytest

pytest.importorskip("megac._compiler", reason="megac._compiler not built")

import megac  # noqa: E402
import megac.bundles  # noqa: E402
from megac import variant_cover  # noqa: E402
from megac.reference.shapes import SHAPES  # noqa: E402

ROOT = os.environ.get("MEGAC_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def _load(stem, early_launch=True):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", megac.MegacWarning)  # register estimates without ptxas
        compiled = megac.compile(os.path.join(ROOT, "kernels-dsl", stem + ".mega"), ptxas=False, cache=False)
    return compiled.load(early_launch=early_launch)


def _pairs(kernels, shapes):
    return {pair for s in shapes for pair in variant_cover.variants(kernels, s)}


@pytest.mark.parametrize("stem, names, ref", [
    ("gdn_core", ("gdn_core",), "gdn_core"),
    ("attn_decode_cp", ("attn_split_verify", "attn_merge_verify"), "attn_decode_verify"),
    ("nvfp4_quant", ("nvfp4_quant_swizzled",), "nvfp4_quant_swizzled"),
])
@pytest.mark.parametrize("early", [True, False])
def test_cover_launches_every_variant_the_shapes_reach_and_keeps_no_shape_for_nothing(stem, names, ref, early):
    mod = _load(stem, early)
    kernels = [mod.kernel(n) for n in names]
    shapes = SHAPES[ref]
    kept = variant_cover.cover(kernels, shapes)
    assert _pairs(kernels, kept) == _pairs(kernels, shapes)
    assert len({variant for _, variant in _pairs(kernels, shapes)}) > 1  # a kernel with variants to cover
    assert len(kept) < len(shapes)
    seen = set()
    for shape in kept:  # each kept shape adds a pair, and is the first in the list that launches it
        new = set(variant_cover.variants(kernels, shape)) - seen
        assert new, shape
        first = next(s for s in shapes if new & set(variant_cover.variants(kernels, s)))
        assert first == shape
        seen |= new


def test_smallest_shape_of_each_variant_through_a_launch_sequence():
    # As run_gpu_tests.py --every-variant calls it: a bundles.Sequence's kernels, shapes sized by a function.
    seq = megac.bundles.Sequence([_load("gdn_core").gdn_core])
    size = lambda s: s["B"] * s["HV"]  # noqa: E731
    largest_first = sorted(SHAPES["gdn_core"], key=size, reverse=True)  # so that the order alone cannot pass
    kept = variant_cover.cover(seq.kernels, largest_first, size=size)
    assert _pairs(seq.kernels, kept) == _pairs(seq.kernels, SHAPES["gdn_core"])
    for shape in kept:
        (pair,) = variant_cover.variants(seq.kernels, shape)
        same = [s for s in SHAPES["gdn_core"] if variant_cover.variants(seq.kernels, s) == [pair]]
        assert size(shape) == min(size(s) for s in same)
    assert [size(s) for s in kept] == sorted(size(s) for s in kept)


def test_launch_mode_moves_gdn_cores_few_heads_variant():
    # `early` in a condition: the covers of the two launch modes differ where the variant does.
    small = [s for s in SHAPES["gdn_core"] if s["B"] * s["HV"] <= 16][:1]
    assert small
    early = variant_cover.variants([_load("gdn_core", True).gdn_core], small[0])
    plain = variant_cover.variants([_load("gdn_core", False).gdn_core], small[0])
    assert (early, plain) == ([("gdn_core", "prefetch")], [("gdn_core", "rows4")])


def test_attention_shapes_carry_the_split_plan():
    s = variant_cover.launch_scalars({"B": 32, "ctx": 32768, "Hq": 8, "Hkv": 1})
    assert (s["max_pages"], s["split_pages"], s["nsplit"]) == (512, 57, 9)
    assert variant_cover.launch_scalars({"M": 4, "N": 8}) == {"M": 4, "N": 8}
