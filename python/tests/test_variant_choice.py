"""The variant each kernel launches at every listed and benchmarked shape is the one its measurements chose.

Variants are picked by the runtime from the manifest's `when` conditions, first match first. The thresholds
below are the measured ones the kernels' comments cite (results/tuning_*.md): a change of a threshold, of the
variants' order, or of how the runtime evaluates a condition (M * K needs 64-bit integers) shows here, on the
CPU, with no GPU. `variant_cover.prepare` binds raw tensors whose shapes come from the manifest and the shape's
scalars (scalars a shape does not name are 1) and returns the launch `Kernel.prepare` would make.
"""
import glob
import os
import warnings

import pytest

pytest.importorskip("megac._compiler", reason="megac._compiler not built")

import megac  # noqa: E402
from megac import variant_cover  # noqa: E402
from megac.reference.shapes import every_shape  # noqa: E402

ROOT = os.environ.get("MEGAC_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SMS = 132  # the H200 the thresholds were measured on
# `l2_mb` in a condition, the device's L2 in MiB, tells the two cards apart (both have 132 SMs)
L2_MB = {"H200": 60, "H100": 50}


def _shared_act_quant(s, grid):
    large = s["M"] * s["I"] > 1 << 20
    if s["I"] % 1024 == 0:
        return "row1024"
    if s["I"] % 512 == 0:  # I = 512: [1, 512] blocks of 2 warps on the H200's large grids, else [2, 512]
        return "r1c512" if large and s["l2_mb"] >= 55 else "r2c512"
    if s["I"] % 256 == 0 and large:  # [4, 256] blocks: whole 512-byte rows a warp (I = 256)
        return "r4c256"
    return "default"


def _gdn_core(s, grid):
    heads = s["B"] * s["HV"]
    if heads * 4 > 32 * SMS:  # the default grid: B * HV heads, 4 programs each
        # beyond 32 CTAs an SM no wait, launched plainly: the wait cost what early launch gained; fused
        # reductions only on the H100 (the H200 was faster without)
        return "many_ctas_unfused" if s["l2_mb"] >= 55 else "many_ctas"
    if 2 * SMS < heads * 4 <= 3 * SMS:
        return "cap168"
    if heads <= 64:
        # launched early (the module's default), 16 heads or fewer wait below the state's loads (prefetch)
        return "prefetch" if heads <= 16 else "rows8"
    # one wave of four CTAs an SM (128 heads): launched plainly, no wait (early launch was slower there)
    return "one_wave" if 3 * SMS < heads * 4 <= 4 * SMS else "default"


def _nvfp4_quant_swizzled(s, g):
    # M % 128 == 0: no padding rows, so the row masks fold away (the _full variants; nvfp4_quant.mega)
    full = s["M"] % 128 == 0
    if s["M"] > 2048:
        return "two_blocks_full" if full else "two_blocks"
    return "full" if full else "default"


def _softmax_small(s, grid):
    if s["N"] > 512:
        return "row_cta" if s["M"] <= 4096 else "default"  # one row a program: 4 warps, or 2 beyond M = 4096
    if s["N"] <= 256 and s["M"] <= 16:
        return "row256"
    return "n256" if s["N"] <= 256 else "n512"


def _group_quant(s, grid):
    if s["M"] * s["K"] < 1 << 24:
        return "default"
    return "wide32" if s["K"] % 4096 == 0 else "wide"  # 32 groups a program fill whole 4096-column rows


def _gdn_conv(s, grid):
    ctas = s["B"] * (s["C"] // 128)  # the default grid: a program per request and 128 channels
    if ctas > 6 * SMS and s["C"] % 512 == 0:
        # four channels a thread in 8-byte words, with the wait (the module launches early by default)
        return "wide"
    # beyond 12 CTAs an SM the wait of @early_launch costs more than it saves: launched plainly, no wait
    return "many_ctas" if ctas > 12 * SMS else "default"


def _attn_rows(s, grid):
    rows = s["T"] * (s["Hq"] // s["Hkv"])
    return "r64" if rows > 32 else "r32" if rows > 16 else "default"


def _merge(s, grid):
    return "wide" if s["nsplit"] > 32 else "few32" if s["nsplit"] > 16 else "default"


# kernel -> (reference whose shapes it runs at, expected variant from (shape with its launch scalars, grid of
# the launch)); the merges' shapes carry the split plan (variant_cover.launch_scalars)
EXPECTED = {
    "shared_act_quant": ("shared_act_quant", _shared_act_quant),
    "gdn_core": ("gdn_core", _gdn_core),
    "gdn_conv": ("gdn_conv", _gdn_conv),
    # few heads in all: 8 rows a program, twice the CTAs; more than a wave: a head's row blocks side by side
    # (gdn_verify.mega)
    "gdn_verify": ("gdn_verify", lambda s, g: "rows8" if s["B"] * s["HV"] <= 16
                   else "rows_first" if g[0] * g[1] * g[2] > 10 * SMS else "default"),
    "group_quant": ("group_quant", _group_quant),
    "group_quant_ue8m0": ("group_quant_ue8m0", _group_quant),
    "nvfp4_quant": ("nvfp4_quant", lambda s, g: "one_row" if s["M"] == 1 and s["K"] % 1024 == 0
                    else "two_blocks" if s["M"] > 2048 else "default"),
    "nvfp4_quant_swizzled": ("nvfp4_quant_swizzled", _nvfp4_quant_swizzled),
    "route": ("route", lambda s, g: "few_tokens" if s["M"] <= 128 else "default"),
    "route_f32": ("route_f32", lambda s, g: "few_tokens" if s["M"] <= 128 else "default"),
    "softmax": ("softmax", lambda s, g: "n2048" if s["N"] <= 2048 else "few_rows" if s["M"] <= 128 else "default"),
    "softmax_small": ("softmax_small", _softmax_small),
    # n % 4 == 0 lets the compiler drop the per-vector tail check (frontend/WhenFacts.h)
    "vector_add": ("vector_add", lambda s, g: ("tiny" if s["n"] <= 1 << 17 else "small" if s["n"] <= 1 << 20
                                               else "vec4") if s["n"] % 4 == 0 else "default"),
    "attn_split_verify": ("attn_decode_verify", _attn_rows),
    "attn_merge_q1": ("attn_decode_q1", _merge),
    "attn_merge_verify": ("attn_decode_verify", _merge),
    "draft_fin": ("draft_fin", lambda s, g: "unroll2" if g[0] * g[1] * g[2] > 2 * SMS else "default"),
    "draft_fin_residual": ("draft_fin_residual",
                           lambda s, g: "occupancy" if g[0] * g[1] * g[2] > 2 * SMS else "default"),
    **{k: (k, lambda s, g: "h2048" if s["H"] <= 2048 else "default")
       for k in ("hop", "hop_plain", "hop_fp8")},
    # every head of the grid real: the head masks fold away (gdn_norm_gate.mega)
    "gdn_norm_gate": ("gdn_norm_gate", lambda s, g: "full" if s["M"] * s["HV"] % 8 == 0 else "default"),
    "hop_mid": ("hop_mid", lambda s, g: ("h2048_store_first" if s["M"] > 256 else "h2048") if s["H"] <= 2048
                else "default"),
}


@pytest.fixture(scope="module")
def modules():
    """Every kernels-dsl module compiled (without ptxas), in file order."""
    compiled = []
    for path in sorted(glob.glob(os.path.join(ROOT, "kernels-dsl", "*.mega"))):
        # Without ptxas, the register estimate's warnings stand for the two capped kernels that ptxas
        # assembles without spilling (draft_fin_residual's occupancy, softmax): expected here.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", megac.MegacWarning)
            compiled.append(megac.compile(path, ptxas=False, cache=False))
    return compiled


@pytest.fixture(scope="module")
def kernels(modules):
    """kernel name -> (megac Kernel, manifest entry), over every kernels-dsl module."""
    found = {}
    for compiled in modules:
        mod = compiled.load()
        for entry in compiled.manifest["kernels"]:
            found[entry["name"]] = (getattr(mod, entry["name"]), entry)
    return found


@pytest.mark.parametrize("card", sorted(L2_MB))
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_shape_launches_the_measured_variant(name, card, kernels):
    """On each card (the expectations read its L2 size as the shape's `l2_mb`)."""
    kernel, entry = kernels[name]
    ref_name, expected = EXPECTED[name]
    names = {v["name"] for v in entry["variants"]}
    wrong = []
    for shape in every_shape(ref_name):
        shape = variant_cover.launch_scalars(shape, SMS)
        launch = variant_cover.prepare(kernel, shape, SMS, L2_MB[card])
        want = expected(dict(shape, l2_mb=L2_MB[card]), launch["grid"])
        assert want in names, f"{name}: no variant '{want}' (has {sorted(names)})"
        if launch["variant"] != want:
            wrong.append(f"{shape}: {launch['variant']} (expected {want})")
    assert not wrong, f"{name}: " + "; ".join(wrong)


# kernel -> the variants compiled to be launched early (@early_launch, less a variant's early_launch = 0)
EARLY = {"gdn_core": {"default", "cap168", "prefetch", "rows4", "rows8"}, "gdn_conv": {"default", "wide"}}
# (gdn_core: not many_ctas, one_wave)


def test_gdn_core_waits_below_its_loads_only_when_launched_early():
    """`early` in a condition is the module's launch mode: a module that launches plainly takes rows4, whose
    loads issue at once, where an early-launching one takes prefetch, which waits below them."""
    compiled = megac.compile(os.path.join(ROOT, "kernels-dsl", "gdn_core.mega"), ptxas=False, cache=False)
    small = [s for s in every_shape("gdn_core") if s["B"] * s["HV"] <= 16]
    assert small
    for early, want in ((True, "prefetch"), (False, "rows4")):
        kernel = compiled.load(early_launch=early).gdn_core
        for shape in small:
            assert variant_cover.prepare(kernel, shape, SMS)["variant"] == want, (early, shape)


def test_gdn_conv_wide_waits_only_when_launched_early():
    """Four channels a thread: launched early `wide` (with the wait), launched plainly `wide_plain` (none);
    the one-channel grids keep their variant either way."""
    compiled = megac.compile(os.path.join(ROOT, "kernels-dsl", "gdn_conv.mega"), ptxas=False, cache=False)
    wide = [s for s in every_shape("gdn_conv") if s["B"] * (s["C"] // 128) > 6 * SMS and s["C"] % 512 == 0]
    assert wide and len(wide) < len(every_shape("gdn_conv"))
    for early, want in ((True, "wide"), (False, "wide_plain")):
        kernel = compiled.load(early_launch=early).gdn_conv
        for shape in wide:
            launch = variant_cover.prepare(kernel, shape, SMS)
            assert (launch["variant"], launch["early_launch"]) == (want, early), (early, shape)


@pytest.mark.parametrize("name", sorted(EARLY))
def test_each_shape_launches_early_where_measured(name, kernels):
    kernel, entry = kernels[name]
    for shape in every_shape(name):
        launch = variant_cover.prepare(kernel, shape, SMS)
        assert launch["early_launch"] == (launch["variant"] in EARLY[name]), f"{name} {shape}: {launch}"


def test_no_other_kernel_launches_early(kernels):
    early = {name for name, (_, entry) in kernels.items()
             if entry.get("early_launch") or any(v.get("early_launch") for v in entry["variants"])}
    assert early == set(EARLY)


def test_every_kernel_with_variants_is_covered(kernels):
    with_variants = {name for name, (_, entry) in kernels.items() if len(entry["variants"]) > 1}
    assert with_variants <= set(EXPECTED), f"add these to EXPECTED: {sorted(with_variants - set(EXPECTED))}"


@pytest.fixture(scope="module")
def plain_kernels(modules):
    """The kernels compiled for early launch, as a runtime that launches plainly loads them."""
    found = {}
    for compiled in modules:
        names = {entry["name"] for entry in compiled.manifest["kernels"]} & set(EARLY)
        if names:
            mod = compiled.load(early_launch=False)
            found.update((name, getattr(mod, name)) for name in names)
    return found


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_variant_runs_at_some_shape(name, kernels, plain_kernels):
    """A variant no listed or benchmarked shape launches is compiled and shipped but never checked on the GPU
    (the suite and memcheck run those shapes): each needs a shape that reaches it, on an H200 or an H100 (each
    card's session checks the other's variants too: scripts/gpu-final.sh, --variants-as). gdn_core's cap168
    waited for one until the shapes of 96 heads (B = 24, 12, 6) were listed."""
    kernel, entry = kernels[name]
    ref_name = EXPECTED[name][0]
    modes = [kernel] + ([plain_kernels[name]] if name in plain_kernels else [])
    launched = {variant for s in every_shape(ref_name) for l2_mb in L2_MB.values()
                for _, variant in variant_cover.variants(modes, s, SMS, l2_mb)}
    compiled = {v["name"] for v in entry["variants"]}
    assert compiled - launched == set(), f"{name}: no shape launches {sorted(compiled - launched)}"


def test_device_facts_are_the_runtimes():
    """The GPU suite's cover asks with the card's facts as the runtime reads them: the L2 in MiB, rounded down."""
    import types
    for l2_bytes, want in ((50 << 20, 50), (60 << 20, 60), ((60 << 20) - 1, 59)):
        props = types.SimpleNamespace(multi_processor_count=132, L2_cache_size=l2_bytes)
        assert variant_cover.device_facts(props) == (132, want)
