"""megac.qwen35: every Qwen3.5 wave-1 slot registered with its kernels, stock path, check and bounds (no GPU:
the stock paths run on CPU tensors; kernel paths are only checked for their wiring)."""
import os

import pytest

pytest.importorskip("megac._runtime", reason="megac._runtime not built")
torch = pytest.importorskip("torch")

from megac import qwen35, reference, slots  # noqa: E402
from megac.reference.common import run_checks  # noqa: E402
from test_reference_cpu import CPU_KERNELS, FP8_KERNELS  # noqa: E402

ROOT = os.environ.get("MEGAC_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SHAPES = {**CPU_KERNELS, **FP8_KERNELS}
NOT_SLOTS = {"vector_add", "softmax", "softmax_small", "reduce_rows", "reduce_cols",  # examples and checks
             "matmul", "matmul_nt", "matmul_f16"}


def test_slot_names_are_the_runtimes():
    assert [s.name for s in qwen35.SLOTS] == slots.known_slot_names()


def test_every_wave1_kernel_belongs_to_exactly_one_slot():
    covered = [n for s in qwen35.SLOTS for n in s.variants]
    assert sorted(covered) == sorted(set(reference.NAMES) - NOT_SLOTS)


@pytest.mark.parametrize("name", sorted(set(reference.NAMES) - NOT_SLOTS))
def test_a_call_picks_its_variant(name):
    """The reference's own inputs for a variant make the slot choose that variant."""
    if name in FP8_KERNELS and not hasattr(torch, "float8_e4m3fn"):
        pytest.skip("torch without float8 dtypes")
    args = reference.get(name).inputs(**SHAPES[name], device="cpu", seed=0)
    slot = next(s for s in qwen35.SLOTS if name in s.variants)
    assert slot.choose(args) == name
    assert slot.batch_of(args) >= 1


# Stock paths on CPU against the references (route's torch.topk may order equal weights differently from the
# spec, and the bit-exact FP8/FP4 checks need float8 dtypes: those run on the GPU only).
STOCK_ON_CPU = ["hop", "hop_mid", "hop_plain", "gdn_conv", "gdn_core", "gdn_verify", "gdn_norm_gate",
                "attn_decode_q1", "attn_decode_verify", "draft_fin", "draft_fin_residual"]


@pytest.mark.parametrize("name", STOCK_ON_CPU)
def test_stock_path_matches_the_reference(name):
    k = reference.get(name)
    args = k.inputs(**SHAPES[name], device="cpu", seed=5)
    ref = k.reference({n: (v.clone() if torch.is_tensor(v) else v) for n, v in args.items()})
    reg = qwen35.registry(bundles="")
    plan = slots.build_plan(reg, slots="none", log=lambda line: None)
    slot = next(s.name for s in qwen35.SLOTS if name in s.variants)
    path, _ = plan.dispatch(slot, **args)
    assert path == "stock"
    reports = run_checks(k.checks, args, ref)
    assert all(r.ok for r in reports), [r.message() for r in reports]


def test_without_bundles_a_requested_slot_is_refused_and_the_default_plan_falls_back():
    reg = qwen35.registry(bundles="/nonexistent")
    with pytest.raises(slots.SlotError, match="no bundle in '/nonexistent' holds kernel"):
        slots.build_plan(reg, slots=["hop"], context=slots.PlanContext(arch="sm_90"))
    log = []
    plan = slots.build_plan(reg, slots="default", context=slots.PlanContext(arch="sm_90"), log=log.append)
    assert all(not d["active"] for d in plan.decisions)
    assert "slot 'hop': stock (default plan, unavailable: no bundle in '/nonexistent' holds kernel(s) hop, " \
           "hop_plain, hop_fp8)" in log


@pytest.fixture(scope="module")
def attention_bundles(tmp_path_factory):
    pytest.importorskip("megac._compiler", reason="megac._compiler not built")
    import megac
    out = tmp_path_factory.mktemp("bundles")
    megac.compile(os.path.join(ROOT, "kernels-dsl", "attn_decode_cp.mega"), ptxas=False, cache=False) \
        .save(str(out / "attn_decode_cp.mgb"))
    return str(out)


def test_attention_slots_check_the_arch_and_bound_the_batch(attention_bundles):
    reg = qwen35.registry(attention_bundles)
    with pytest.raises(slots.SlotError, match="arch sm_80 is not one the bundles target"):
        slots.build_plan(reg, slots=["skv2_cp"], context=slots.PlanContext(arch="sm_80"))
    plan = slots.build_plan(reg, slots=["skv2_cp", "draft_q1_cp"], context=slots.PlanContext(arch="sm_90"))
    assert plan.path("skv2_cp") == "kernel" and plan.path("draft_q1_cp") == "kernel"
    # batch 33 > 32: this call runs the stock path (on CPU here), the slot stays active
    k = reference.get("attn_decode_q1")
    args = k.inputs(B=33, ctx=70, Hq=4, Hkv=1, device="cpu", seed=1)
    ref = k.reference(dict(args))
    path, _ = plan.dispatch("draft_q1_cp", **args)
    assert path == "stock" and plan.active("draft_q1_cp")
    assert all(r.ok for r in run_checks(k.checks, args, ref))


def test_bundle_index_lists_kernels_and_unreadable_bundles(attention_bundles, tmp_path):
    from megac import bundles
    found, problems = bundles.index(attention_bundles)
    assert set(found) == {"attn_split_q1", "attn_merge_q1", "attn_split_verify", "attn_merge_verify"}
    (tmp_path / "broken.mgb").write_bytes(b"not a bundle")
    found, problems = bundles.index(str(tmp_path))
    assert found == {} and "broken" in problems and "unreadable bundle" in problems["broken"]
    assert bundles.index("/nonexistent") == ({}, {})


class FakeKernel:
    def __init__(self, name, params, log):
        self.name, self.log = name, log
        self.params = [{"name": n, "kind": kind} for n, kind in params]

    def __call__(self, **args):
        self.log.append((self.name, sorted(args)))


def test_a_sequence_launches_in_order_with_arguments_bound_by_name():
    from megac import bundles
    log = []
    run = bundles.Sequence([FakeKernel("split", [("q", "tensor"), ("o_part", "tensor"), ("B", "scalar")], log),
                            FakeKernel("merge", [("o_part", "tensor"), ("o", "tensor"), ("B", "scalar")], log)])
    assert [p["name"] for p in run.params] == ["q", "o_part", "B", "o"]
    run(q=1, o_part=2, o=3, B=4, extra=5)
    assert log == [("split", ["B", "o_part", "q"]), ("merge", ["B", "o", "o_part"])]
    with pytest.raises(KeyError, match=r"lack tensor parameter\(s\) \['o'\] of kernel 'merge'"):
        run(q=1, o_part=2, B=4)
