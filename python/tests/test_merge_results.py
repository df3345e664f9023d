"""bench/merge_results.py: parts of one commit merge into one result; a kernel in two parts is refused unless the
earlier part skipped some of its shapes (its time budget ran out), and then the later part replaces it."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "bench"))

from merge_results import merge  # noqa: E402


def part(commit, kernels, skipped=()):
    return {"commit": commit, "date": "d", "copy_gbps": 4000.0, "device": "H200",
            "kernels": {k: {"rows": [r] if r else []} for k, r in kernels.items()}, "skipped": list(skipped)}


def test_parts_of_one_commit_merge_in_order():
    m = merge([part("abc", {"a": "a1"}), part("abc", {"b": "b1"})])
    assert list(m["kernels"]) == ["a", "b"]
    assert m["skipped"] == [] and len(m["parts"]) == 2


def test_parts_of_two_commits_are_refused():
    with pytest.raises(SystemExit, match="different commits"):
        merge([part("abc", {"a": "a1"}), part("def", {"b": "b1"})])


def test_a_kernel_measured_twice_is_refused():
    with pytest.raises(SystemExit, match="in two parts"):
        merge([part("abc", {"a": "a1"}), part("abc", {"a": "a2"})])


def test_a_kernel_the_budget_cut_short_is_replaced():
    first = part("abc", {"a": "a1", "soft": "s1", "softer": ""}, skipped=["soft M=2", "softer M=1", "softer M=2"])
    m = merge([first, part("abc", {"softer": "s2"})])
    assert m["kernels"]["softer"]["rows"] == ["s2"]
    assert m["skipped"] == ["soft M=2"]  # another kernel's skipped shape stays: it was not measured again
