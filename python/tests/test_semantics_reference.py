"""The NumPy side of the GPU semantics test (test/gpu/run_semantics.py) on CPU: its helpers give the language's
semantics, and its comparison counts a wrong or unwritten element (CI runs these; the kernels need a GPU)."""
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "test", "gpu"))
import run_semantics as rs  # noqa: E402


def test_integer_division_truncates_as_c():
    q, r = rs.trunc_div(np.array([-7, 7, -7, 7]), np.array([2, -2, -2, 2]))
    assert q.tolist() == [-3, -3, 3, 3]
    assert r.tolist() == [-1, 1, -1, 1]


def test_float_to_int_saturates_and_takes_nan_to_zero():
    x = np.array([np.nan, np.inf, -np.inf, 300.7, -0.9, 2.0 ** 31, -3e38], dtype=np.float32)
    assert rs.to_int(x, np.int32).tolist() == [0, 2 ** 31 - 1, -2 ** 31, 300, 0, 2 ** 31 - 1, -2 ** 31]
    assert rs.to_int(x, np.uint8).tolist() == [0, 255, 0, 255, 0, 255, 0]
    assert rs.to_int(x, np.int64).tolist()[1] == 2 ** 63 - 1


def test_bf16_rounds_to_nearest_even():
    bits = np.array([0x3F800000, 0x3F808000, 0x3F818000, 0x3F808001], dtype=np.uint32)
    got = rs.bf16_bits(bits.view(np.float32)).view(np.uint16).tolist()
    assert got == [0x3F80, 0x3F80, 0x3F82, 0x3F81]


class _Replay(rs.Runner):
    """A Runner whose launches 'wrote' fixed bytes: each run returns the given arrays' bytes."""

    def __init__(self, runs):
        super().__init__(None, None, np.random.default_rng(0))
        self.runs = runs

    def twice(self, launch, outputs):
        return [[a.view(np.uint8).reshape(-1) for a in run] for run in self.runs]


def test_exact_counts_every_wrong_element_in_both_runs():
    want = np.array([1, 2, 3], dtype=np.int32)
    right, wrong = want.copy(), np.array([1, 2, 4], dtype=np.int32)
    assert rs.Runner.exact(_Replay([[right], [right]]), None, [None], [want])["wrong"] == 0
    result = rs.Runner.exact(_Replay([[right], [wrong]]), None, [None], [want])
    assert result["wrong"] == 1 and result["of"] == 6
    assert result["first_wrong"][0] == {"index": 2, "got": "04000000", "want": "03000000"}


def test_an_unwritten_element_fails_one_of_the_two_runs():
    want = np.array([0xA5A5A5A5 - 2 ** 32, 7], dtype=np.int32)  # by chance the first run's poison
    poisoned = [np.full(2, 0xA5A5A5A5 - 2 ** 32, np.int32), np.full(2, 0x5A5A5A5A, np.int32)]
    for run in poisoned:
        run[1] = 7  # element 1 written, element 0 never
    result = rs.Runner.exact(_Replay([[poisoned[0]], [poisoned[1]]]), None, [None], [want])
    assert result["wrong"] == 1


def test_every_kernel_of_the_file_has_a_check():
    path = os.path.join(os.path.dirname(__file__), "..", "..", "test", "gpu", "semantics.mega")
    with open(path) as f:
        kernels = re.findall(r"^kernel (\w+)", f.read(), re.M)
    assert len(kernels) == 20
    assert sorted(kernels) == sorted(rs.CHECKS)
