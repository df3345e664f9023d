"""@early_launch on the CPU: the manifest says which kernels may be launched early, and the Python package passes
the choice (megac.load(early_launch=...)) to the runtime. On the GPU: test_early_launch_gpu.py."""
import json
import os
import sys
import types

import pytest

import megac
from megac import bundles
from megac.module import Module

ROOT = os.environ.get("MEGAC_SOURCE_DIR") or os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SOURCE = os.path.join(ROOT, "test", "gpu", "early_launch.mega")


class FakeRuntime:
    def __init__(self):
        self.calls = []

    def load_module(self, bundle, early_launch=True, choose_variants_as=None):
        self.calls.append(early_launch)
        self.chosen_as = choose_variants_as
        return object()


class FakeBundle:
    manifest_json = json.dumps({"module": "m", "kernels": [
        {"name": "early", "params": [], "early_launch": True},
        {"name": "plain", "params": []},
        {"name": "plain_with_early_variant", "params": [], "variants": [{"name": "few", "early_launch": True}]}]})


@pytest.mark.parametrize("early", [True, False])
def test_module_passes_the_choice_to_the_runtime(early):
    rt = FakeRuntime()
    mod = Module(rt, FakeBundle(), early_launch=early)
    mod._native_module()
    mod._native_module()  # loaded once
    assert rt.calls == [early]


def test_module_launches_early_by_default():
    rt = FakeRuntime()
    Module(rt, FakeBundle())._native_module()
    assert rt.calls == [True]
    assert rt.chosen_as is None  # the variants of the module's own device


def test_module_passes_the_facts_its_variants_are_chosen_as():
    rt = FakeRuntime()
    Module(rt, FakeBundle(), choose_variants_as=(132, 50))._native_module()
    assert rt.chosen_as == (132, 50)


def test_has_early_launch_looks_at_every_kernel_and_variant():
    mod = Module(FakeRuntime(), FakeBundle())
    assert bundles.has_early_launch(bundles.Sequence([mod.plain, mod.early]))
    assert not bundles.has_early_launch(bundles.Sequence([mod.plain]))
    assert bundles.has_early_launch(bundles.Sequence([mod.plain_with_early_variant]))


def test_compiled_manifest_marks_early_kernels():
    pytest.importorskip("megac._compiler", reason="megac._compiler not built")
    cm = megac.compile(SOURCE, ptxas=False)
    marked = {k["name"]: k.get("early_launch", False) for k in cm.manifest["kernels"]}
    assert marked == {"el_fill": True, "el_probe": True}
    assert "griddepcontrol.wait;" in cm.ptx["sm_90a"]


def test_early_kernels_reads_the_manifests(tmp_path):
    """The correctness suite runs these kernels launched plainly too (a variant may be chosen by the launch mode)."""
    pytest.importorskip("megac._compiler", reason="megac._compiler not built")
    gdn_core = megac.compile(os.path.join(ROOT, "kernels-dsl", "gdn_core.mega"), ptxas=False)
    path = gdn_core.save(str(tmp_path / "gdn_core.mgb"))
    plain = megac.compile(os.path.join(ROOT, "kernels-dsl", "vector_add.mega"), ptxas=False)
    plain.save(str(tmp_path / "vector_add.mgb"))
    found, problems = bundles.index(str(tmp_path))
    assert not problems and found["gdn_core"] == path and "vector_add" in found
    assert bundles.early_kernels(found) == {"gdn_core"}


@pytest.mark.parametrize("early", [True, False])
def test_kernel_paths_load_their_kernels_in_the_registrys_launch_mode(monkeypatch, early):
    """gdn_core's prefetch variant is taken only when launched early: the registry's early_launch reaches the
    loaded modules (megac.load), which choose the variant."""
    seen = []

    def sequence(ref_kernel, found, modules=None, early_launch=True):
        seen.append((ref_kernel.name, early_launch))
        return lambda **args: None

    monkeypatch.setattr(bundles, "sequence", sequence)
    # megac.reference needs torch, which the CPU machines lack: the path only asks it for the kernel's name.
    fake_reference = types.SimpleNamespace(get=lambda name: types.SimpleNamespace(name=name))
    monkeypatch.setitem(sys.modules, "megac.reference", fake_reference)
    monkeypatch.setattr(megac, "reference", fake_reference, raising=False)
    from megac import qwen35
    slot = next(s for s in qwen35.SLOTS if s.name == "gdn_core")
    qwen35._KernelPath(slot, {}, early_launch=early)(B=1)
    assert seen == [("gdn_core", early)]
