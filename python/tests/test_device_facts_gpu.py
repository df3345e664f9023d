"""The runtime reads the device's SM count and L2 size for variant conditions (`sms`, `l2_mb`; docs/runtime.md):
a launch runs the variant that Kernel.prepare gives for this card's facts as torch reports them. shared_act_quant
at M = 16384, I = 512 runs `r1c512` on an H200 (60 MiB of L2) and `r2c512` on an H100 (50 MiB), cards of 132 SMs
each. torch's profiler names the kernel that ran (CUPTI sees the runtime's cuLaunchKernel). Needs MEGAC_BUNDLES with
shared_act_quant.mgb and a CUDA device; skipped otherwise (CI has neither)."""
import os

import pytest

import megac
from megac import testing, variant_cover

# what the kernel was measured to want on each card (kernels-dsl/shared_act_quant.mega)
MEASURED = {(132, 60): "r1c512", (132, 50): "r2c512"}


def test_the_launch_runs_the_variant_of_this_cards_facts():
    path = os.path.join(os.environ.get("MEGAC_BUNDLES", ""), "shared_act_quant.mgb")
    if not os.path.exists(path):
        pytest.skip("set MEGAC_BUNDLES=<dir of .mgb bundles> holding shared_act_quant.mgb")
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    from megac.reference import shared_act_quant as ref  # imports torch
    props = torch.cuda.get_device_properties(0)
    facts = variant_cover.device_facts(props)
    kernel = megac.load(path).shared_act_quant
    args = ref.inputs(16384, 512)
    want = kernel.prepare(**args, sms=facts[0], l2_mb=facts[1])["variant"]
    if facts in MEASURED:
        assert want == MEASURED[facts], (props.name, facts)
    symbol = next(v["symbol"] for v in kernel.info["variants"] if v["name"] == want)
    kernel(**args)  # loads the module into this context before the profiled launch
    testing.poison(args["q"])
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
        kernel(**args)
        torch.cuda.synchronize()
    ran = {e.name for e in prof.events() if e.name.startswith("shared_act_quant")}
    assert ran == {symbol}, (props.name, facts, ran)
    # the profiled launch's values too, as the suite checks them: bytes differ only next to a rounding boundary
    want = ref.reference(args)
    testing.assert_bytes_equal(args["q"], want["q"], want["q_near_boundary"], name="q")
