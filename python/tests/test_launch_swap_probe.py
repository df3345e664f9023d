"""bench/launch_swap_probe.py reads a kernel's parameter types from its PTX to box the values of a bare
cuLaunchKernel: a wrong list would launch a kernel on garbage, so the parsing is tested here (no GPU needed)."""
import pytest

PTX = """
.visible .entry other(
	.param .u64 .ptr .global .align 16 other_param_0
)
{
	ret;
}
.visible .entry k(
	.param .u64 .ptr .global .align 16 k_param_0,
	.param .u64 .ptr .global .align 1 k_param_1,
	.param .u32 k_param_2,
	.param .f32 k_param_3
)
.maxntid 128, 1, 1
{
	ret;
}
"""


@pytest.fixture(scope="module")
def probe(bench_script):
    return bench_script("launch_swap_probe")


def test_parameter_types_in_order(probe):
    assert probe.entry_params(PTX, "k") == ["u64", "u64", "u32", "f32"]
    assert probe.entry_params(PTX, "other") == ["u64"]


def test_a_missing_entry_is_an_error(probe):
    with pytest.raises(KeyError, match="no .entry missing"):
        probe.entry_params(PTX, "missing")


def test_a_prefix_of_another_entry_is_not_it(probe):
    # "k" must not match ".entry kernel(...)"
    with pytest.raises(KeyError):
        probe.entry_params(PTX.replace(".entry k(", ".entry kernel("), "k")


def test_megac_kernel_parameters(probe):
    pytest.importorskip("megac._compiler", reason="megac._compiler not built")
    import os
    import megac
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    cm = megac.compile(os.path.join(root, "kernels-dsl", "vector_add.mega"), ptxas=False, cache=False)
    # x, y, out: pointers; n: i32
    assert probe.entry_params(cm.ptx["sm_90a"], "vector_add__vec4") == ["u64", "u64", "u64", "u32"]


def test_probe_cases_pick_the_benchmark_shape(bench_script):
    pytest.importorskip("torch", reason="the references need torch")
    order_probe = bench_script("order_probe")
    cases = list(order_probe.parse_cases("softmax_small:M=1,N=1024 group_quant:M=16,K=2048"))
    assert [(name, spec, shape) for name, spec, _, shape in cases] == [
        ("softmax_small", "M=1,N=1024", {"M": 1, "N": 1024}), ("group_quant", "M=16,K=2048", {"M": 16, "K": 2048})]
    args = order_probe.probe_options("").parse_args(["--out", "o"])
    assert (args.bundles, args.rounds, args.repeats) == ("out/bundles", 5, 10)
