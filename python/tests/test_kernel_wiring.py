"""Every reference's megac kernels exist in kernels-dsl/ and take what the reference's inputs provide.

Compiles every kernels-dsl/*.mega (no ptxas) and, for each reference and each kernel it launches
(Kernel.launches), checks on CPU inputs that every tensor parameter is there with the manifest's dtype and shape
(shape expressions evaluated with the scalars of the inputs) and every scalar parameter is there. A kernel whose
signature drifts from its reference fails here, before any GPU run. Skipped where megac._compiler is not built.
"""
import glob
import os
import re

import pytest

pytest.importorskip("megac._compiler", reason="megac._compiler not built")
torch = pytest.importorskip("torch")

import megac  # noqa: E402
from megac import dtypes, reference  # noqa: E402

ROOT = os.environ.get("MEGAC_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
from test_reference_cpu import CPU_KERNELS, FP8_KERNELS  # noqa: E402


@pytest.fixture(scope="module")
def manifests():
    """kernel name -> manifest entry, over every kernels-dsl module."""
    found = {}
    for path in sorted(glob.glob(os.path.join(ROOT, "kernels-dsl", "*.mega"))):
        for k in megac.compile(path, ptxas=False, cache=False).manifest["kernels"]:
            found[k["name"]] = k
    return found


def _dim(expr, scalars):
    """A manifest shape expression (integers, names, + - * / %, cdiv) evaluated with Python ints."""
    py = re.sub(r"(?<![/])/(?![/])", "//", expr)
    return eval(py, {"__builtins__": {}}, {"cdiv": lambda a, b: -(-a // b), **scalars})


def _fp8_ok():
    return hasattr(torch, "float8_e4m3fn")


@pytest.mark.parametrize("name", sorted(set(CPU_KERNELS) | set(FP8_KERNELS)))
def test_reference_inputs_fit_the_kernels(name, manifests):
    if name in FP8_KERNELS and not _fp8_ok():
        pytest.skip("torch without float8 dtypes")
    ref = reference.get(name)
    shape = {**CPU_KERNELS, **FP8_KERNELS}[name]
    args = ref.inputs(**shape, device="cpu", seed=1)
    scalars = {k: v for k, v in args.items() if isinstance(v, int)}
    for kname in ref.launches:
        assert kname in manifests, f"{name}: no kernels-dsl module defines kernel '{kname}'"
        for p in manifests[kname]["params"]:
            where = f"{name} -> {kname}({p['name']})"
            assert p["name"] in args, f"{where}: the reference's inputs lack it"
            if p["kind"] != "tensor":
                continue
            t = args[p["name"]]
            have = dtypes.manifest_name(t.dtype)
            assert have == p["dtype"] or (have == "u8" and p["dtype"] in dtypes.U8_COMPATIBLE), \
                f"{where}: dtype {have}, kernel wants {p['dtype']}"
            want = [None if d == "_" else _dim(d, scalars) for d in p["shape"]]
            got = list(t.shape) if p["shape"] else []
            assert len(got) == len(want) and all(w is None or w == g for w, g in zip(want, got)), \
                f"{where}: shape {got}, kernel wants {p['shape']} = {want}"
