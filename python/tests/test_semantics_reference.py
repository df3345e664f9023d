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
    assert len(kernels) == 23
    assert sorted(kernels) == sorted(list(rs.CHECKS) + list(rs.LAUNCHED_BY_OTHERS))


class _FakeTensor:
    """Just enough of a torch tensor over a NumPy array for Runner's buffers."""

    def __init__(self, a):
        self.a = a

    def cuda(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self.a

    def view(self, dtype):
        return _FakeTensor(self.a.view(dtype))

    def fill_(self, byte):
        self.a.fill(byte)


class _FakeTorch:
    float32, uint8 = np.float32, np.uint8

    class cuda:  # noqa: N801 (torch's name)
        @staticmethod
        def synchronize():
            pass

    @staticmethod
    def empty(shape, dtype, device):
        return _FakeTensor(np.empty(shape, dtype))

    @staticmethod
    def from_numpy(a):
        return _FakeTensor(a)


class _FusedFloats:
    """sem_plain_floats and sem_fused_floats in NumPy (float32 sums): `off` elements of the fused one's changed."""

    def __init__(self, off):
        self.off = off

    def sem_plain_floats(self, s, q, k, out):
        s, q, k = s.a, q.a, k.a
        o = out.a
        o[:, 0] = (q * q).sum(1)
        o[:, 1] = (k * k).sum(1) + o[:, 0]
        o[:, 2], o[:, 3] = (q * k).sum(1), q.max(1)
        o[:, 4:8], o[:, 8:12] = (s * k[:, None, :]).sum(2), (s * q[:, None, :]).sum(2)
        o[:, 12:16] = s.max(2)

    def sem_fused_floats(self, s, q, k, out):
        self.sem_plain_floats(s, q, k, out)
        out.a.reshape(-1)[:self.off] += 1.0


def test_fused_floats_must_equal_the_plain_kernel_byte_for_byte():
    r = rs.Runner(_FakeTorch, _FusedFloats(0), np.random.default_rng(1))
    result = rs.check_fused_floats(r)
    assert result["wrong"] == 0 and result["of"] == 2 * rs.BATCH * 16
    r = rs.Runner(_FakeTorch, _FusedFloats(3), np.random.default_rng(1))
    assert rs.check_fused_floats(r)["wrong"] == 2 * 3


class _Fused:
    """sem_fused in NumPy: `off` elements of its row sums changed."""

    def __init__(self, off):
        self.off = off

    def sem_fused(self, x, rows, whole):
        v = x.a
        rows.a[:] = np.stack([v.sum(2), v.max(2), v.min(2)], 1)
        u = v.reshape(v.shape[0], -1)[:, :512]
        whole.a[:] = np.stack([u.sum(1), (u * u).sum(1), u.max(1), u.min(1)], 1)
        rows.a.reshape(-1)[:self.off] += 1.0


def test_fused_counts_a_wrong_reduction():
    r = rs.Runner(_FakeTorch, _Fused(0), np.random.default_rng(2))
    result = rs.check_fused(r)
    assert result["wrong"] == 0 and result["of"] == 2 * rs.BATCH * (48 + 4)
    r = rs.Runner(_FakeTorch, _Fused(2), np.random.default_rng(2))
    assert rs.check_fused(r)["wrong"] == 2 * 2
