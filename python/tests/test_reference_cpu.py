"""The torch references on the CPU (skipped without torch): the torch rounding equals its NumPy twin, the
split + merge attention equals direct attention, the router's tie rule, and each reference runs on small shapes."""
import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: reference tests skipped")
HAS_FP8 = hasattr(torch, "float8_e4m3fn")
needs_fp8 = pytest.mark.skipif(not HAS_FP8, reason="this torch has no float8 dtypes")

from megac import fp_numpy  # noqa: E402
from megac.reference import fp  # noqa: E402


def _values():
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.standard_normal(50000) * s for s in (0.01, 1, 30, 300)]).astype(np.float32)
    grid = fp_numpy.e4m3_decode(np.arange(127, dtype=np.uint8))
    mids = ((grid[1:].astype(np.float64) + grid[:-1]) / 2).astype(np.float32)
    x = np.concatenate([x, grid, mids, np.nextafter(mids, np.float32(np.inf)), [0.25, 0.75, 2.5, 5.0, 1e9]])
    return np.concatenate([x, -x]).astype(np.float32)


def test_torch_rounding_equals_numpy_twin():
    x = _values()
    t = torch.from_numpy(x)
    assert np.array_equal(fp.e4m3_bytes(t).numpy(), fp_numpy.e4m3_encode(x))
    assert np.array_equal(fp.e2m1_nibbles(t).numpy(), fp_numpy.e2m1_encode(x))
    s = np.abs(x[np.abs(x) > 1e-20])
    assert np.array_equal(fp.ue8m0_round_up(torch.from_numpy(s)).numpy(), fp_numpy.ue8m0_round_up(s))


def test_near_boundary_marks_midpoints():
    mids = torch.tensor([1.0625, 3.0, 0.1], dtype=torch.float32)  # 1.0625, 3.0 are e4m3 ties; 0.1 is not
    assert fp.near_boundary(mids, fp.e4m3_round).tolist() == [True, False, False]


def test_split_merge_equals_direct_attention():
    from megac.reference import attn_decode_cp as a
    g = torch.Generator().manual_seed(0)
    L, H = 300, 4
    q = torch.randn(H, a.D, generator=g, dtype=torch.float64)
    K = torch.randn(L, 1, a.D, generator=g, dtype=torch.float64)
    V = torch.randn(L, 1, a.D, generator=g, dtype=torch.float64)
    direct = a.attend(q, K, V, H, 1)
    for splits in (1, 3, 7):
        o, _ = a.split_merge(q, K.expand(L, H, a.D), V.expand(L, H, a.D), splits)
        assert torch.allclose(o, direct, rtol=1e-10, atol=1e-12)


def test_split_merge_skips_empty_splits():
    from megac.reference import attn_decode_cp as a
    g = torch.Generator().manual_seed(1)
    L, H = 128, 2
    q = torch.randn(H, a.D, generator=g, dtype=torch.float64)
    K = torch.randn(L, H, a.D, generator=g, dtype=torch.float64)
    V = torch.randn(L, H, a.D, generator=g, dtype=torch.float64)
    mask = torch.zeros(H, L, dtype=torch.bool)
    mask[:, :40] = True  # splits of 32: the last two are fully masked
    o, _ = a.split_merge(q, K, V, 4, mask)
    o_ref, _ = a.split_merge(q, K[:40], V[:40], 1)
    assert torch.allclose(o, o_ref, rtol=1e-10, atol=1e-12)


def test_route_ties_keep_lower_index():
    from megac.reference import route
    p = torch.tensor([[0.1, 0.3, 0.3, 0.2, 0.3]])
    vals, ids = route.topk_lower_index(p, 3)
    assert ids.tolist() == [[1, 2, 4]]


CPU_KERNELS = {
    "vector_add": dict(n=1000),
    "route": dict(M=3, E=256, k=8),
    "route_f32": dict(M=2, E=512, k=10),
    "gdn_conv": dict(B=3, C=64),
    "gdn_core": dict(B=2, HV=4, HK=1),
    "gdn_verify": dict(B=2, T=3, HV=4, HK=2),
    "gdn_norm_gate": dict(M=3, HV=2),
    "hop": dict(M=3, H=256),
    "hop_plain": dict(M=2, H=128),
    "hop_mid": dict(M=64, H=2048),
    "attn_decode_q1": dict(B=2, ctx=130, Hq=4, Hkv=1),
    "attn_decode_verify": dict(B=2, ctx=70, Hq=8, Hkv=1, T=4),
    "draft_fin": dict(M=3, H=64, k=8),
    "draft_fin_residual": dict(M=3, H=64, k=8),
    "softmax": dict(M=3, N=256),
    "softmax_small": dict(M=5, N=128),
    "reduce_rows": dict(T=2),
    "reduce_cols": dict(T=3),
    "matmul": dict(M=5, N=8, K=32),
    "matmul_nt": dict(M=5, N=8, K=32),
    "matmul_f16": dict(M=5, N=8, K=64),
}
FP8_KERNELS = {
    "shared_act_quant": dict(M=3, I=128),
    "hop_fp8": dict(M=3, H=256),
    "nvfp4_quant": dict(M=3, K=256),
    "nvfp4_quant_swizzled": dict(M=130, K=128),
    "group_quant": dict(M=3, K=512),
    "group_quant_ue8m0": dict(M=3, K=512),
    "gdn_norm_gate_fp8": dict(M=3, HV=2),
}


def _self_check(name, shape):
    """The reference's outputs, written into the kernel's output buffers, pass the kernel's own checks."""
    from megac import reference
    from megac.reference.common import run_checks
    k = reference.get(name)
    assert shape in k.shapes or all(set(s) == set(shape) for s in k.shapes[:1])
    args = k.inputs(**shape, device="cpu", seed=3)
    ref = k.reference(dict(args))
    for out in k.checks:
        args[out] = ref[out].clone()
    reports = run_checks(k.checks, args, ref)
    assert all(r.ok for r in reports), [r.message() for r in reports]
    assert k.bytes_moved(**shape) > 0


@pytest.mark.parametrize("name", sorted(CPU_KERNELS))
def test_reference_runs(name):
    _self_check(name, CPU_KERNELS[name])


@needs_fp8
@pytest.mark.parametrize("name", sorted(FP8_KERNELS))
def test_fp8_reference_runs(name):
    _self_check(name, FP8_KERNELS[name])


def test_every_name_has_a_test():
    from megac import reference
    assert set(reference.NAMES) == set(CPU_KERNELS) | set(FP8_KERNELS)


def test_gdn_core_detects_a_wrong_state():
    from megac import reference
    from megac.reference.common import run_checks
    k = reference.get("gdn_core")
    args = k.inputs(B=2, HV=4, HK=1, device="cpu", seed=0)
    ref = k.reference(dict(args))
    args["o"] = ref["o"].clone()
    args["S"] = ref["S"].clone()
    args["S"][int(args["slot"][0])] += 1e-3
    assert not all(r.ok for r in run_checks(k.checks, args, ref))


@pytest.mark.parametrize("name", ["softmax", "softmax_small"])
def test_softmax_shapes_fit_the_kernel(name):
    """Each kernel keeps a row in one tile (4096 or 1024 wide) and reads it in 16-byte vectors."""
    from megac import reference
    from megac.reference.softmax import MAX_N
    k = reference.get(name)
    for shape in k.shapes + k.bench_shapes:
        assert shape["N"] % 16 == 0 and 16 <= shape["N"] <= MAX_N[name] and shape["M"] >= 1
    args = k.inputs(M=4, N=256, device="cpu", seed=0)
    assert args["x"].dtype == torch.bfloat16 and args["y"].shape == (4, 256)
    y = k.reference(dict(args))["y"].double()
    assert torch.allclose(y.sum(-1), torch.ones(4, dtype=torch.float64), atol=1e-2)
    assert (y > 0).all() and args["x"].float().std() > 1.0


def test_softmax_check_rejects_a_wrong_row():
    from megac import reference
    from megac.reference.common import run_checks
    k = reference.get("softmax")
    args = k.inputs(M=3, N=256, device="cpu", seed=1)
    ref = k.reference(dict(args))
    args["y"] = ref["y"].clone()
    args["y"][1] = args["y"][1].flip(0)
    assert not all(r.ok for r in run_checks(k.checks, args, ref))


@pytest.mark.parametrize("name,axis", [("reduce_rows", 1), ("reduce_cols", 0)])
def test_reduce_reference_sums_each_tile(name, axis):
    from megac import reference
    k = reference.get(name)
    for shape in k.shapes + k.bench_shapes:
        assert shape["T"] >= 1
    T = 3
    args = k.inputs(T=T, device="cpu", seed=2)
    assert args["x"].shape == (T * 128, 128) and args["x"].dtype == torch.float32
    out = k.reference(dict(args))["rows" if axis == 1 else "cols"]
    x = args["x"].double()
    t, i = 2, 77
    if axis == 1:
        assert out.shape == (T * 128,)
        assert abs(out[t * 128 + i].item() - x[t * 128 + i, :].sum().item()) < 1e-4
    else:
        assert out.shape == (T, 128)
        assert abs(out[t, i].item() - x[t * 128:(t + 1) * 128, i].sum().item()) < 1e-4
    assert k.bytes_moved(T=T) == T * 128 * 128 * 4 + T * 128 * 4
