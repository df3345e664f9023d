"""The runtime reads the device's SM count and L2 size for variant conditions (`sms`, `l2_mb`; docs/runtime.md):
a launch runs the variant that Kernel.prepare gives for this card's facts as torch reports them. shared_act_quant
at M = 16384, I = 512 runs `r1c512` on an H200 (60 MiB of L2) and `r2c512` on an H100 (50 MiB), cards of 132 SMs
each. Loaded with choose_variants_as=(sms, l2_mb), it runs the variant of a card of those facts instead, on any
card. torch's profiler names the kernel that ran (CUPTI sees the runtime's cuLaunchKernel). Needs MEGAC_BUNDLES with
shared_act_quant.mgb and a CUDA device; skipped otherwise (CI has neither)."""
import os

import pytest

import megac
from megac import testing, variant_cover

# what the kernel was measured to want on each card (kernels-dsl/shared_act_quant.mega)
MEASURED = {(132, 60): "r1c512", (132, 50): "r2c512"}


@pytest.fixture
def bundle():
    path = os.path.join(os.environ.get("MEGAC_BUNDLES", ""), "shared_act_quant.mgb")
    if not os.path.exists(path):
        pytest.skip("set MEGAC_BUNDLES=<dir of .mgb bundles> holding shared_act_quant.mgb")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    return path


def run_profiled(kernel, args):
    """Launches `kernel` under torch's profiler; the names of the shared_act_quant kernels that ran. The launch's
    values are checked too, as the suite checks them: bytes differ only next to a rounding boundary."""
    import torch
    from megac.reference import shared_act_quant as ref
    kernel(**args)  # loads the module into this context before the profiled launch
    testing.poison(args["q"])
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        kernel(**args)
        torch.cuda.synchronize()
    want = ref.reference(args)
    testing.assert_bytes_equal(args["q"], want["q"], want["q_near_boundary"], name="q")
    return {e.name for e in prof.events() if e.name.startswith("shared_act_quant")}


def symbol_of(kernel, variant):
    return next(v["symbol"] for v in kernel.info["variants"] if v["name"] == variant)


def test_the_launch_runs_the_variant_of_this_cards_facts(bundle):
    import torch
    from megac.reference import shared_act_quant as ref  # imports torch
    props = torch.cuda.get_device_properties(0)
    facts = variant_cover.device_facts(props)
    kernel = megac.load(bundle).shared_act_quant
    args = ref.inputs(16384, 512)
    want = kernel.prepare(**args, sms=facts[0], l2_mb=facts[1])["variant"]
    if facts in MEASURED:
        assert want == MEASURED[facts], (props.name, facts)
    assert run_profiled(kernel, args) == {symbol_of(kernel, want)}, (props.name, facts)


@pytest.mark.parametrize("facts", sorted(MEASURED))
def test_the_launch_runs_the_variant_of_the_facts_chosen(bundle, facts):
    from megac.reference import shared_act_quant as ref
    kernel = megac.load(bundle, choose_variants_as=facts).shared_act_quant
    args = ref.inputs(16384, 512)
    assert run_profiled(kernel, args) == {symbol_of(kernel, MEASURED[facts])}, facts
