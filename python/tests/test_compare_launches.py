"""testing.compare gives every implementation of a shape the same launches a graph replay.

A replay's fixed cost is spread over its launches, and each Timer calibrates its launches from eager launches
timed at the host's pace, so an implementation with a slower launcher got fewer launches a replay and looked
slower (hop_mid at M = 512, H = 4096: megac 17 launches, Triton 34, 0.979 of Triton;
results/tuning_equal_launches_77168f4.md). Here the Timer is a stand-in whose calibration differs by
implementation: compare must time them all at the largest calibrated count. No GPU needed."""
import types

import pytest

from megac import testing


class FakeTimer:
    """Calibrates `passes` from the implementation's name (the stand-in for its launcher's pace) and records
    the passes it was built with."""
    calibrations = {"fast": 8, "slow": 2, "mid": 3}
    built = []

    def __init__(self, fn, sets, min_bytes=0, target_ms=1.0, passes=None):
        self.calibrated_passes = self.calibrations[fn.__name__]
        self.passes = passes or self.calibrated_passes
        self.launches = self.passes * len(sets)
        self.closed = False
        FakeTimer.built.append((fn.__name__, self.passes))

    def sample(self, repeats):
        return [1.0] * repeats

    def timing(self, rounds):
        return testing.Timing(us=1.0, p10=1.0, p90=1.0, sets=2, launches=self.launches, rotated=True,
                              graph=True, rounds=[1.0 for _ in rounds])

    def close(self):
        self.closed = True


@pytest.fixture
def fake_gpu(monkeypatch):
    FakeTimer.built = []
    monkeypatch.setattr(testing, "Timer", FakeTimer)
    monkeypatch.setattr(testing, "make_sets", lambda make, min_bytes, max_sets: [make(), make()])
    monkeypatch.setattr(testing, "_torch", lambda: types.SimpleNamespace(
        cuda=types.SimpleNamespace(empty_cache=lambda: None)))


def impl(name):
    def fn(args):
        pass
    fn.__name__ = name
    return fn


def test_every_implementation_times_the_most_launches_calibrated(fake_gpu):
    impls = {"slow": impl("slow"), "fast": impl("fast"), "mid": impl("mid"), "absent": None}
    rows = testing.compare([{"n": 1}], lambda s: {}, impls, lambda s: 8, copy_bw=1.0, repeats=2, rounds=2,
                           log=None)
    launches = {name: rows[0][name]["launches"] for name in ("slow", "fast", "mid")}
    assert launches == {"slow": 16, "fast": 16, "mid": 16}
    assert rows[0]["absent"] == {"status": "unavailable"}
    # The fast one kept its first timer; the other two were built again at 8 passes.
    assert sorted(FakeTimer.built) == sorted([("slow", 2), ("fast", 8), ("mid", 3), ("slow", 8), ("mid", 8)])


def test_one_implementation_keeps_its_calibration(fake_gpu):
    rows = testing.compare([{"n": 1}], lambda s: {}, {"slow": impl("slow")}, lambda s: 8, copy_bw=1.0,
                           repeats=1, rounds=1, log=None)
    assert rows[0]["slow"]["launches"] == 4
    assert FakeTimer.built == [("slow", 2)]
