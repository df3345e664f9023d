"""megac.bundles without a GPU or PyTorch: the index of a bundle directory and the refusals of a launch
sequence (test_qwen35.py runs the same module with real bundles on the GPU machine)."""
import types

import pytest

from megac import bundles


def test_index_reports_unreadable_bundles_and_missing_directories(tmp_path):
    (tmp_path / "broken.mgb").write_bytes(b"not a bundle")
    (tmp_path / "notes.txt").write_text("not a bundle either, and not read")
    found, problems = bundles.index(str(tmp_path))
    assert found == {}
    assert list(problems) == ["broken"] and problems["broken"].startswith("unreadable bundle ")
    assert bundles.index(str(tmp_path / "missing")) == ({}, {})
    assert bundles.index(None) == ({}, {})


def test_a_sequence_names_the_kernel_no_bundle_has():
    ref = types.SimpleNamespace(name="attn_decode_q1", launches=["attn_split_q1", "attn_merge_q1"])
    with pytest.raises(KeyError, match=r"no bundle has kernel 'attn_split_q1' \(needed by 'attn_decode_q1'\)"):
        bundles.sequence(ref, {})


def test_launch_arguments_name_missing_tensors_and_drop_extras():
    kernel = types.SimpleNamespace(name="merge", params=[{"name": "o_part", "kind": "tensor"},
                                                         {"name": "o", "kind": "tensor"},
                                                         {"name": "B", "kind": "scalar"}])
    assert bundles.launch_args(kernel, {"o_part": 1, "o": 2, "extra": 3}) == {"o_part": 1, "o": 2}
    with pytest.raises(KeyError, match=r"lack tensor parameter\(s\) \['o'\] of kernel 'merge'; "
                                       r"they provide \['B', 'o_part'\]"):
        bundles.launch_args(kernel, {"o_part": 1, "B": 4})
