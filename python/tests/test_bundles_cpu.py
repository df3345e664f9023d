"""megac.bundles without a GPU or PyTorch: the index of a bundle directory and the refusals of a launch
sequence (test_qwen35.py runs the same module with real bundles on the GPU machine)."""
import re
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


ROW_SUM_AND_COPY = """
const BLOCK = 512;
@num_warps(1)
@grid(M)
@variant(four_warps, num_warps = 4, when = M > 64)
kernel row_sum(x: *f32[M, 512], out: *f32[M], M: i32) {
    let row = program_id(0);
    store(out + row, sum(load(x + row * 512 + arange(0, BLOCK))));
}

@num_warps(4)
@grid(cdiv(n, BLOCK))
kernel copy(x: *f32[n], y: *f32[n], n: i32) {
    let offs = program_id(0) * BLOCK + arange(0, BLOCK);
    store(y + offs, load(x + offs, offs < n), offs < n);
}
"""


def test_shared_memory_kernels_count_every_variant(tmp_path):
    """One warp sums a row with shuffles alone; four need shared memory, so a kernel is racecheck's when any
    variant declares some (the manifest's shared_bytes is the most of any), and a copy never is."""
    pytest.importorskip("megac._compiler", reason="megac._compiler not built")
    import megac
    compiled = megac.compile(ROW_SUM_AND_COPY, target="sm_90a", ptxas=False, name="shared_probe")
    compiled.save(str(tmp_path / "shared_probe.mgb"))
    found, problems = bundles.index(str(tmp_path))
    assert problems == {} and sorted(found) == ["copy", "row_sum"]
    assert bundles.shared_memory_kernels(found) == {"row_sum"}
    # Only the four-warp variant declares it: the default's body has no .shared line.
    ptx = compiled.ptx["sm_90a"]
    bodies = {name: body for name, body in re.findall(r"\.entry\s+(\w+)\s*\((.*?)^\}", ptx, re.S | re.M)}
    assert ".shared" in bodies["row_sum__four_warps"] and ".shared" not in bodies["row_sum"]
