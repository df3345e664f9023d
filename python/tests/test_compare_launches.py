"""testing.compare gives every implementation of a shape the same launches a graph replay.

A replay's fixed cost is spread over its launches, and each Timer calibrates its launches from eager launches
timed at the host's pace, so an implementation with a slower launcher got fewer launches a replay and looked
slower (hop_mid at M = 512, H = 4096: megac 17 launches, Triton 34, 0.979 of Triton;
results/tuning_equal_launches_77168f4.md). compare must time them all at the largest count calibrated: checked
with a stand-in Timer, and with the real Timer on a stand-in torch.cuda whose clock a launcher's host time and
a graph replay's start advance. No GPU needed."""
import types

import pytest

from megac import testing


class FakeTimer:
    """Calibrates its passes from the implementation's name (the stand-in for its launcher's pace: an eager pass
    of 1 / passes ms) and records the passes each implementation's replays are captured at."""
    calibrations = {"fast": 8, "slow": 2, "mid": 3}
    captured = []

    def __init__(self, fn, sets, min_bytes=0, target_ms=1.0, capture=True):
        self.name, self.n_sets = fn.__name__, len(sets)
        self.calibrated_passes = self.calibrations.get(self.name, 1)
        self.pass_ms = {"crawl": 5.0}.get(self.name, 1.0 / self.calibrated_passes)
        if capture:
            self.capture(self.calibrated_passes)

    passes_within = testing.Timer.passes_within

    def capture(self, passes):
        self.passes, self.launches = passes, passes * self.n_sets
        FakeTimer.captured.append((self.name, passes))

    def sample(self, repeats):
        return [1.0] * repeats

    def timing(self, rounds):
        return testing.Timing(us=1.0, p10=1.0, p90=1.0, sets=self.n_sets, launches=self.launches, rotated=True,
                              graph=True, rounds=[1.0 for _ in rounds])

    def close(self):
        pass


@pytest.fixture
def fake_gpu(monkeypatch):
    FakeTimer.captured = []
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
    # Each captured once, at the count the fastest launcher calibrated.
    assert sorted(FakeTimer.captured) == [("fast", 8), ("mid", 8), ("slow", 8)]


def test_a_far_slower_implementation_stops_at_long_replays(fake_gpu, monkeypatch):
    """torch eager at a small shape takes a millisecond a call: at the fast launchers' count its replays took
    40% of a benchmark's time. It stops where its replays reach LONG_REPLAY x target_ms; the others keep the
    common count."""
    monkeypatch.setattr(FakeTimer, "calibrations", {"fast": 80, "slow": 20})
    impls = {"fast": impl("fast"), "slow": impl("slow"), "crawl": impl("crawl")}

    def launches():
        rows = testing.compare([{"n": 1}], lambda s: {}, impls, lambda s: 8, copy_bw=1.0, repeats=1, rounds=1,
                               log=None)
        return {n: rows[0][n]["launches"] for n in impls}
    # Replays of at most 10 ms: fast and slow (4 times slower, 0.05 ms a pass) at the common 80 passes of 2 sets;
    # crawl, 5 ms a pass, at ceil(10 / 5) = 2.
    assert testing.LONG_REPLAY == 10
    assert launches() == {"fast": 160, "slow": 160, "crawl": 4}
    monkeypatch.setattr(testing, "LONG_REPLAY", 20)
    assert launches() == {"fast": 160, "slow": 160, "crawl": 8}
    # never fewer than an implementation calibrated, never more than the common count
    monkeypatch.setattr(testing, "LONG_REPLAY", 0.001)
    assert launches() == {"fast": 160, "slow": 40, "crawl": 2}
    monkeypatch.setattr(testing, "LONG_REPLAY", 1e6)
    assert launches() == {"fast": 160, "slow": 160, "crawl": 160}


def test_one_implementation_keeps_its_calibration(fake_gpu):
    rows = testing.compare([{"n": 1}], lambda s: {}, {"slow": impl("slow")}, lambda s: 8, copy_bw=1.0,
                           repeats=1, rounds=1, log=None)
    assert rows[0]["slow"]["launches"] == 4
    assert FakeTimer.captured == [("slow", 2)]


class FakeCuda:
    """Just enough of torch.cuda for the real Timer, on a clock: an eager launch costs its implementation's host
    time (`host_ms`, the launcher's pace); a graph replay 0.02 ms to start, then 0.01 ms a launch, whoever made
    it."""

    def __init__(self):
        self.clock, self.capturing, self.host_ms = 0.0, None, {}
        cuda = self

        class Event:
            def __init__(self, enable_timing=False):
                self.at = None

            def record(self):
                self.at = cuda.clock

            def elapsed_time(self, end):
                return end.at - self.at

            def synchronize(self):
                pass

        class CUDAGraph:
            def __init__(self):
                self.launches = 0

            def replay(self):
                cuda.clock += 0.02 + 0.01 * self.launches

        class Context:
            def __init__(self, graph=None):
                self.graph = graph

            def __enter__(self):
                cuda.capturing = self.graph

            def __exit__(self, *exc):
                cuda.capturing = None

        self.Event, self.CUDAGraph = Event, CUDAGraph
        self.graph = Context
        self.stream = lambda s: Context()
        self.Stream = lambda: types.SimpleNamespace(wait_stream=lambda other: None)
        self.current_stream = lambda: None
        self.synchronize = lambda: None
        self.empty_cache = lambda: None

    def launcher(self, name, host_ms):
        def fn(args):
            if self.capturing is not None:
                self.capturing.launches += 1
            else:
                self.clock += host_ms
        fn.__name__ = name
        return fn


def test_the_real_timer_gives_slow_and_fast_launchers_the_same_launches(monkeypatch):
    cuda = FakeCuda()
    monkeypatch.setattr(testing, "_torch", lambda: types.SimpleNamespace(cuda=cuda, Tensor=type("T", (), {})))
    monkeypatch.setattr(testing, "make_sets", lambda make, min_bytes, max_sets: [{}, {}, {}, {}])
    impls = {"megac": cuda.launcher("megac", 0.05), "triton": cuda.launcher("triton", 0.03)}
    rows = testing.compare([{"n": 1}], lambda s: {}, impls, lambda s: 8, copy_bw=1.0, repeats=3, rounds=2,
                           min_bytes=0, log=None)
    row = rows[0]
    # Calibrated alone: megac round(1 / 0.2) = 5 passes, Triton round(1 / 0.12) = 8; both run 8.
    assert row["megac"]["launches"] == row["triton"]["launches"] == 32
    # The same kernel time, the replay's start spread alike: (0.02 + 32 * 0.01) ms / 32.
    assert row["megac"]["us"] == pytest.approx(row["triton"]["us"]) == pytest.approx(340 / 32)
    assert row["megac"]["ratio"] == pytest.approx(1.0)
