"""Correctness and timing helpers shared by the GPU tests and the benchmark.

torch is imported inside the functions so that `import megac.testing` works where torch is absent.
Rules these helpers enforce (shared/KERNELS.md, .library/device/METHOD.md): relative error against a
higher-precision reference, NaN never passes, quantized outputs byte by byte, outputs poisoned before a run,
timing with CUDA graphs over rotated buffers so that inputs do not sit in L2.
"""
import math
from dataclasses import dataclass, field

L2_BYTES = 60 * 2**20  # H200
ROTATE_MIN_BYTES = 200 * 2**20  # > 3x L2: every launch reads from DRAM (Timer)
assert ROTATE_MIN_BYTES > 3 * L2_BYTES


def _torch():
    try:
        import torch
    except ImportError as e:  # pragma: no cover - exercised only without torch
        raise ImportError("megac.testing needs PyTorch for this function") from e
    return torch


# ---------------------------------------------------------------------------------------------------------
# Correctness
# ---------------------------------------------------------------------------------------------------------

@dataclass
class Report:
    """Outcome of one comparison; `ok` decides, the rest explains."""
    name: str
    ok: bool
    max_err: float = 0.0          # close: max elementwise relative error; bytes: 0
    norm_err: float = 0.0         # close: ||out - ref|| / ||ref||
    mismatches: int = 0           # elements outside the tolerance / differing bytes not allowed by the mask
    allowed_mismatches: int = 0   # bytes that differ where the mask allows (near a rounding boundary)
    worst_index: tuple = ()
    detail: str = ""
    extra: dict = field(default_factory=dict)

    def message(self):
        return (f"{self.name}: {'ok' if self.ok else 'FAIL'} max_err={self.max_err:.3g} "
                f"norm_err={self.norm_err:.3g} mismatches={self.mismatches} "
                f"allowed={self.allowed_mismatches} worst={self.worst_index} {self.detail}").rstrip()

    def as_dict(self):
        d = dict(self.__dict__)
        d["worst_index"] = list(self.worst_index)
        return d


def _unravel(flat_index, shape):
    idx = []
    for dim in reversed(shape):
        idx.append(flat_index % dim if dim else 0)
        flat_index //= dim if dim else 1
    return tuple(int(i) for i in reversed(idx))


def check_close(out, ref, rtol, atol=0.0, name="out"):
    """Elementwise |out - ref| <= atol + rtol * |ref| in float64; any NaN/inf in `out` fails.

    atol is a floor for elements whose reference is near zero, where a relative error means nothing.
    """
    torch = _torch()
    if tuple(out.shape) != tuple(ref.shape):
        return Report(name, False, detail=f"shape {tuple(out.shape)} != reference {tuple(ref.shape)}")
    o = out.detach().to(torch.float64)
    r = ref.detach().to(torch.float64)
    if o.numel() == 0:
        return Report(name, True)
    diff = (o - r).abs()
    nonfinite = ~torch.isfinite(o)
    bound = atol + rtol * r.abs()
    bad = (diff > bound) | nonfinite | ~torch.isfinite(r)
    rel = diff / r.abs().clamp_min(max(atol, 1e-30))
    rel = torch.where(nonfinite, torch.full_like(rel, math.inf), rel)
    # the worst element is the one furthest beyond its own bound
    ratio = torch.where(nonfinite, torch.full_like(diff, math.inf), diff / bound.clamp_min(1e-300))
    worst = int(torch.argmax(ratio).item())
    rnorm = r.norm().item()
    norm_err = (o - r).norm().item() / rnorm if rnorm > 0 else (0.0 if diff.max().item() == 0 else math.inf)
    if nonfinite.any():
        norm_err = math.inf
    n_bad = int(bad.sum().item())
    wi = _unravel(worst, tuple(o.shape))
    detail = ""
    if n_bad:
        detail = (f"at {wi}: out={o.flatten()[worst].item():.6g} ref={r.flatten()[worst].item():.6g} "
                  f"(rtol={rtol}, atol={atol}, nonfinite={int(nonfinite.sum().item())})")
    return Report(name, n_bad == 0, max_err=float(rel.max().item()), norm_err=float(norm_err),
                  mismatches=n_bad, worst_index=wi, detail=detail)


def assert_close(out, ref, rtol, atol=0.0, name="out"):
    rep = check_close(out, ref, rtol, atol, name)
    if not rep.ok:
        raise AssertionError(rep.message())
    return rep


def _as_bytes(t):
    torch = _torch()
    t = t.detach().contiguous()
    return t.view(torch.uint8).reshape(*t.shape[:-1], -1) if t.dim() else t.reshape(1).view(torch.uint8)


def check_bytes_equal(out, ref, allow_mismatch_mask=None, name="out"):
    """Byte-exact comparison for quantized outputs.

    allow_mismatch_mask (bool, shape of out) marks elements allowed to differ (for instance values within one
    fp32 ulp of a rounding boundary); they are counted in `allowed_mismatches`, never hidden.
    """
    torch = _torch()
    if tuple(out.shape) != tuple(ref.shape) or out.element_size() != ref.element_size():
        return Report(name, False, detail=f"shape/dtype {tuple(out.shape)} {out.dtype} != "
                                          f"reference {tuple(ref.shape)} {ref.dtype}")
    ob, rb = _as_bytes(out), _as_bytes(ref)
    esz = out.element_size()
    diff = (ob != rb).reshape(*out.shape, esz).any(-1) if out.dim() else (ob != rb).any().reshape(())
    allowed = torch.zeros_like(diff)
    if allow_mismatch_mask is not None:
        allowed = diff & allow_mismatch_mask.to(diff.device).bool()
    bad = diff & ~allowed
    n_bad = int(bad.sum().item())
    wi, detail = (), ""
    if n_bad:
        first = int(torch.nonzero(bad.flatten())[0].item())
        wi = _unravel(first, tuple(out.shape))
        o = ob.reshape(-1, esz)[first].tolist()
        r = rb.reshape(-1, esz)[first].tolist()
        detail = f"first differing element {wi}: out bytes {o} ref bytes {r}"
    return Report(name, n_bad == 0, mismatches=n_bad, allowed_mismatches=int(allowed.sum().item()),
                  worst_index=wi, detail=detail)


def assert_bytes_equal(out, ref, allow_mismatch_mask=None, name="out"):
    rep = check_bytes_equal(out, ref, allow_mismatch_mask, name)
    if not rep.ok:
        raise AssertionError(rep.message())
    return rep


def poison(t, byte=0xFF):
    """Fill an output before a run: NaN for float types (fails every comparison), else a byte pattern.

    Integer and 8-bit outputs have no invalid value, so callers run twice with two patterns and demand equal
    results (run_gpu_tests does): an element nobody wrote keeps the pattern and differs between the runs.
    """
    torch = _torch()
    if t.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        t.fill_(float("nan"))
    else:
        t.view(torch.uint8).fill_(byte)
    return t


def check_written(t, byte=0xFF):
    """Number of elements still holding the poison (NaN for floats, the byte pattern in every byte otherwise)."""
    torch = _torch()
    if t.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        return int(torch.isnan(t).sum().item())
    b = _as_bytes(t).reshape(*t.shape, t.element_size()) if t.dim() else _as_bytes(t)
    return int((b == byte).all(-1).sum().item())


# ---------------------------------------------------------------------------------------------------------
# Timing
# ---------------------------------------------------------------------------------------------------------

def tensor_bytes(obj):
    """Total bytes of the tensors inside a (nested) dict / list / tuple."""
    torch = _torch()
    if isinstance(obj, torch.Tensor):
        return obj.numel() * obj.element_size()
    if isinstance(obj, dict):
        return sum(tensor_bytes(v) for v in obj.values())
    if isinstance(obj, (list, tuple)):
        return sum(tensor_bytes(v) for v in obj)
    return 0


def _percentile(sorted_vals, q):
    k = (len(sorted_vals) - 1) * q
    lo, hi = math.floor(k), math.ceil(k)
    return sorted_vals[lo] + (sorted_vals[hi] - sorted_vals[lo]) * (k - lo)


@dataclass
class Timing:
    us: float          # median microseconds per launch (over every sample of every round)
    p10: float
    p90: float
    sets: int          # argument sets rotated through
    launches: int      # launches per graph replay
    rotated: bool      # True when every launch read cold inputs (rotation past L2, or an L2 scrub between passes)
    graph: bool        # False when capture failed and plain launches were timed (host overhead included)
    l2: str = ""       # "rotated": the sets total >= min_bytes; "scrubbed": a read of min_bytes after each pass;
    #                    "warm": min_bytes = 0, the inputs stay in the L2
    bytes_per_replay: int = 0  # argument-set bytes plus scrub bytes one replay cycles through
    rounds: list = field(default_factory=list)  # median of each round (spread of repeated runs)

    def as_dict(self):
        return dict(self.__dict__)


def _clone(obj):
    torch = _torch()
    if isinstance(obj, torch.Tensor):
        return obj.clone()
    if isinstance(obj, dict):
        return {k: _clone(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return type(obj)(_clone(v) for v in obj)
    return obj


def select_shapes(shapes, spec, what="shape", limit=0):
    """The shapes whose values match spec, "NAME=INT,..." (every name given, compared as text); all of them when
    spec is empty; the first `limit` of those when limit > 0 (--max-shapes: of the matching shapes, so that
    `--shape B=1,HV=8 --max-shapes 1` runs one). A spec that matches none is an error, so that a typo cannot run
    (or time) nothing."""
    if not spec:
        return list(shapes)[:limit or None]
    try:
        want = dict(kv.split("=") for kv in spec.split(","))
    except ValueError:
        raise ValueError(f"--shape wants NAME=INT pairs separated by commas, got {spec!r}") from None
    picked = [s for s in shapes if all(str(s.get(k)) == v for k, v in want.items())]
    if not picked:
        raise ValueError(f"no {what} matches --shape {spec}")
    return picked[:limit or None]


def make_sets(make_args, min_bytes=ROTATE_MIN_BYTES, max_sets=256, distinct=4):
    """Argument sets for timing, allocated before any timing: enough that they total min_bytes (at most
    max_sets), and at least two when min_bytes > 0, so that consecutive launches never share buffers (a
    kernel launched early, before the one ahead of it ends, reads its inputs while that one still writes
    its own). The first `distinct` come from make_args(), the rest are device copies of those (fresh memory,
    same values), which is much faster than drawing new random inputs."""
    first = make_args()
    per_set = max(tensor_bytes(first), 1)
    n_sets = max(1 if min_bytes <= 0 else 2, min(max_sets, math.ceil(min_bytes / per_set)))
    sets = [first] + [make_args() for _ in range(min(distinct, n_sets) - 1)]
    while len(sets) < n_sets:
        sets.append(_clone(sets[len(sets) % distinct]))
    return sets


_SCRUB = {}


def _scrub_op(nbytes):
    """fn() reading `nbytes` of device memory (a sum into a scalar): after it, L2 holds none of the
    argument sets. Reads only, so no dirty lines are left to be written back during the timed kernels."""
    torch = _torch()
    key = (torch.cuda.current_device(), nbytes)
    if key not in _SCRUB:
        buf = torch.ones(max(nbytes // 4, 1), dtype=torch.float32, device="cuda")
        _SCRUB[key] = (buf, torch.zeros((), dtype=torch.float32, device="cuda"))
    buf, sink = _SCRUB[key]
    return lambda: torch.sum(buf, dim=0, out=sink)


class Timer:
    """fn over argument sets, captured in a CUDA graph, ready to be timed in rounds (sample()).

    Cold inputs: when the sets total min_bytes (> 3x L2) the graph cycles through all of them, a whole number
    of passes per replay, so a set is reused only after min_bytes of other data. When they are smaller (small
    shapes; at most max_sets sets), every pass over the sets is preceded by a read of min_bytes (the scrub),
    and a second graph holding only the scrubs is timed right after each replay: per-launch time =
    (replay - scrub replay) / launches. Either way every launch reads its inputs from DRAM and each replay
    cycles through more than min_bytes. Replays last about target_ms: the constructor times one eager pass
    (calibrated_passes). Implementations compared side by side must replay the same number of passes, because
    a replay's fixed cost (the graph's start, the last kernel's tail) is spread over its launches, and eager
    launches run at the host's pace: a slower launcher calibrates fewer passes and looks slower (hop_mid at
    M = 512, H = 4096: megac's 17 launches a replay against Triton's 34, results/tuning_equal_launches_77168f4.md).
    So compare() builds its timers with capture=False and then gives them all one count (capture(passes)),
    less only for one so slow that its replays would pass LONG_REPLAY x target_ms (passes_within).
    Allocation (sets, scrub buffer, graph pools) happens before sample(), which only replays graphs between
    pre-made events.
    """

    def __init__(self, fn, sets, min_bytes=ROTATE_MIN_BYTES, target_ms=1.0, max_launches=4096, use_graph=True,
                 capture=True):
        torch = _torch()
        self.fn, self.sets, self.use_graph = fn, sets, use_graph
        n = len(sets)
        per_set = max(tensor_bytes(sets[0]), 1)
        self.scrub = _scrub_op(min_bytes) if per_set * n < min_bytes else None
        self.scrub_bytes = min_bytes if self.scrub else 0
        self.cold = min_bytes > 0  # min_bytes = 0: one set reused from the L2 (run_bench.py --warm-l2)
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for a in sets:  # warm-up: JIT compiles, module loads, autotuning stay out of the numbers
                fn(a)
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            for a in sets:
                fn(a)
            end.record()
            scrub_ms = 0.0
            if self.scrub:
                self.scrub()
                s2, e2 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
                s2.record()
                self.scrub()
                e2.record()
        torch.cuda.synchronize()
        pass_ms = max(start.elapsed_time(end), 1e-4)
        if self.scrub:
            scrub_ms = s2.elapsed_time(e2)
        self.calibrated_passes = max(1, min(max(1, max_launches // n), round(target_ms / (pass_ms + scrub_ms))))
        self.pass_ms = pass_ms + scrub_ms  # one eager pass over the sets, scrub included
        self.per_set, self.n_sets = per_set, n
        self.graph_ok, self.g, self.g_scrub = False, None, None
        if capture:
            self.capture(self.calibrated_passes)

    def passes_within(self, passes, replay_ms):
        """`passes`, or fewer where that many would take this implementation more than replay_ms a replay by its
        eager pass (never fewer than it calibrated)."""
        return min(passes, max(self.calibrated_passes, math.ceil(replay_ms / self.pass_ms)))

    def capture(self, passes):
        """Capture the replays at `passes` passes over the sets (and replay each once, untimed)."""
        torch = _torch()
        self.passes, self.launches = passes, passes * self.n_sets
        if self.use_graph:
            try:
                g = torch.cuda.CUDAGraph()
                with torch.cuda.graph(g):
                    self._body()
                gs = None
                if self.scrub:
                    gs = torch.cuda.CUDAGraph()
                    with torch.cuda.graph(gs):
                        for _ in range(passes):
                            self.scrub()
                g.replay()
                if gs is not None:
                    gs.replay()
                torch.cuda.synchronize()
                self.g, self.g_scrub, self.graph_ok = g, gs, True
            except Exception:  # not capturable (e.g. a host sync inside fn): time plain launches instead
                torch.cuda.synchronize()
        self._ev = [torch.cuda.Event(enable_timing=True) for _ in range(4)]
        self._run(self.g, self._body)  # one untimed replay of each
        if self.scrub:
            self._run(self.g_scrub, self._scrub_body)
        torch.cuda.synchronize()

    def _body(self):
        for _ in range(self.passes):
            if self.scrub:
                self.scrub()
            for a in self.sets:
                self.fn(a)

    def _scrub_body(self):
        for _ in range(self.passes):
            self.scrub()

    def _run(self, graph, body):
        if self.graph_ok:
            graph.replay()
        else:
            body()

    def sample(self, repeats):
        """`repeats` per-launch times in microseconds (unsorted)."""
        out = []
        s, e, s2, e2 = self._ev
        for _ in range(repeats):
            s.record()
            self._run(self.g, self._body)
            e.record()
            if self.scrub:
                s2.record()
                self._run(self.g_scrub, self._scrub_body)
                e2.record()
            e.synchronize()
            ms = s.elapsed_time(e)
            if self.scrub:
                e2.synchronize()
                ms -= s2.elapsed_time(e2)
            out.append(ms * 1e3 / self.launches)
        return out

    def timing(self, rounds):
        """Timing from a list of rounds (each a list of samples)."""
        allv = sorted(v for r in rounds for v in r)
        meds = [_percentile(sorted(r), 0.5) for r in rounds]
        return Timing(us=_percentile(allv, 0.5), p10=_percentile(allv, 0.1), p90=_percentile(allv, 0.9),
                      sets=self.n_sets, launches=self.launches, rotated=self.cold, graph=self.graph_ok,
                      l2="scrubbed" if self.scrub else "rotated" if self.cold else "warm",
                      bytes_per_replay=self.per_set * self.launches + self.passes * self.scrub_bytes,
                      rounds=meds)

    def close(self):
        self.g = self.g_scrub = None
        self.sets = None


def bench(fn, make_args, repeats=30, min_bytes=ROTATE_MIN_BYTES, max_sets=256, target_ms=1.0,
          max_launches=4096, use_graph=True, rounds=1):
    """Median time of fn(args) in microseconds (a Timing; see Timer for the method).

    make_args() returns one argument set (any object holding tensors; fn receives it unchanged). `rounds`
    rounds of `repeats` graph replays; Timing.rounds holds each round's median.
    """
    sets = make_sets(make_args, min_bytes, max_sets)
    t = Timer(fn, sets, min_bytes=min_bytes, target_ms=target_ms, max_launches=max_launches, use_graph=use_graph)
    try:
        return t.timing([t.sample(repeats) for _ in range(rounds)])
    finally:
        t.close()


def copy_bandwidth(nbytes=1 << 30, repeats=20):
    """Device-to-device copy bandwidth in GB/s (1e9), counting bytes read plus bytes written.

    The ceiling is the faster of two copies of `nbytes`: cudaMemcpyAsync (what copy_ does for contiguous
    tensors of one dtype) and PyTorch's vectorized elementwise kernel writing src * 1 (float32). On an H200
    the second is the faster one, so percentages against it are the stricter measure.
    """
    torch = _torch()
    src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda").uniform_(1.0, 2.0)
    dst = torch.empty_like(src)
    us = min(bench(fn, lambda: (src, dst), repeats=repeats, min_bytes=0, target_ms=20).us for fn in _copies(torch))
    return 2 * src.numel() * 4 / (us * 1e-6) / 1e9


def _copies(torch):
    """The two copies of args (src, dst) that a copy's time is the faster of: cudaMemcpyAsync (copy_) and
    PyTorch's elementwise kernel writing src * 1."""
    return (lambda a: a[1].copy_(a[0]), lambda a: torch.mul(a[0], 1.0, out=a[1]))


_COPY_US = {}


def copy_time(nbytes, repeats=10, rounds=3, min_bytes=ROTATE_MIN_BYTES, target_ms=1.0):
    """Microseconds of a device-to-device copy moving `nbytes` (nbytes / 2 read, nbytes / 2 written), timed
    like a kernel of that size (Timer: CUDA graphs, cold inputs rotated or scrubbed, the median over
    `rounds` of `repeats` replays): the faster of cudaMemcpyAsync and the elementwise src * 1 kernel, as in
    copy_bandwidth. A small copy pays the launch and DRAM latency a small kernel pays, so a kernel's time
    against it says how near that kernel is to what a copy of its bytes achieves at its size. Measured once
    per device and arguments in a process (kernels of one benchmark share many byte counts)."""
    torch = _torch()
    key = (torch.cuda.current_device(), nbytes, repeats, rounds, min_bytes, target_ms)
    if key not in _COPY_US:
        _COPY_US[key] = _measure_copy(nbytes, repeats, rounds, min_bytes, target_ms)
    return _COPY_US[key]


def _measure_copy(nbytes, repeats, rounds, min_bytes, target_ms):
    torch = _torch()
    n = max(nbytes // 8, 1)  # float32 elements per half
    make = lambda: (torch.ones(n, dtype=torch.float32, device="cuda"),
                    torch.empty(n, dtype=torch.float32, device="cuda"))
    sets = make_sets(make, min_bytes, distinct=1)
    best = None
    for fn in _copies(torch):
        t = Timer(fn, sets, min_bytes=min_bytes, target_ms=target_ms)
        try:
            us = t.timing([t.sample(repeats) for _ in range(rounds)]).us
        finally:
            t.close()
        best = us if best is None else min(best, us)
    del sets
    torch.cuda.empty_cache()
    return best


LONG_REPLAY = 10  # compare(): the longest replay, in target_ms, that an implementation's launch count gives


def compare(shapes, make_args, impls, bytes_moved, copy_bw=None, repeats=10, rounds=3, baseline=None, log=print,
            min_bytes=ROTATE_MIN_BYTES, max_sets=256, target_ms=1.0, size_copy=False):
    """Time several implementations of one kernel on the same shapes, side by side.

    shapes: list of dicts; make_args(shape) -> one argument set; impls: {name: fn(args)} (a value of None
    marks an implementation that is not available); bytes_moved(shape) -> the fewest bytes the kernel must
    move. Per shape the argument sets are made once and shared; every implementation is captured, then
    `rounds` rounds time each implementation in turn (`repeats` replays each), so drift hits all alike.
    Returns rows: {"shape", "bytes", and per impl name: Timing fields, gbps, pct_copy, and ratio / ratio_min /
    ratio_max = baseline's time / this time over the rounds (> 1 means faster than the baseline; baseline =
    first impl)}. With size_copy, also row["copy_us"] (copy_time of the shape's bytes) and per impl
    pct_size_copy = 100 * copy_us / us: the percent of what a copy of the same bytes achieves at that size.
    """
    torch = _torch()
    if copy_bw is None:
        copy_bw = copy_bandwidth()
    names = list(impls)
    baseline = baseline or names[0]
    rows = []
    for shape in shapes:
        nbytes = bytes_moved(shape)
        row = {"shape": dict(shape), "bytes": nbytes}
        timers, samples = {}, {}
        try:
            sets = make_sets(lambda: make_args(shape), min_bytes, max_sets)
        except Exception as e:
            for name in names:
                row[name] = ({"status": "unavailable"} if impls[name] is None else
                             {"status": "error", "error": f"inputs: {type(e).__name__}: {e}"})
            rows.append(row)
            continue
        for name in names:
            if impls[name] is None:
                row[name] = {"status": "unavailable"}
                continue
            try:
                timers[name] = Timer(impls[name], sets, min_bytes=min_bytes, target_ms=target_ms, capture=False)
                samples[name] = []
            except Exception as e:  # one broken implementation must not hide the others
                row[name] = {"status": "error", "error": f"{type(e).__name__}: {e}"}
        # Every implementation the same launches a replay (Timer): the most any calibrated, so that none has
        # its replays' fixed cost spread over fewer launches because its launcher is slower on the host. An
        # implementation ten times slower than the one that set the count (torch eager, a millisecond a call at
        # small shapes) stops at replays of LONG_REPLAY x target_ms: the replay's fixed cost, a few us, is then
        # under 0.1% of it either way, and its replays at the common count took 40% of a full run's time.
        common = max((t.calibrated_passes for t in timers.values()), default=1)
        for name in list(timers):
            try:
                timers[name].capture(timers[name].passes_within(common, LONG_REPLAY * target_ms))
            except Exception as e:
                row[name] = {"status": "error", "error": f"{type(e).__name__}: {e}"}
                timers.pop(name).close()
        for _ in range(rounds):
            for name in list(timers):
                try:
                    samples[name].append(timers[name].sample(repeats))
                except Exception as e:
                    row[name] = {"status": "error", "error": f"{type(e).__name__}: {e}"}
                    timers.pop(name).close()
        for name, t in timers.items():
            tm = t.timing(samples[name])
            gbps = nbytes / (tm.us * 1e-6) / 1e9
            row[name] = {"status": "ok", **tm.as_dict(), "gbps": gbps, "pct_copy": 100.0 * gbps / copy_bw}
            t.close()
        del timers, sets
        torch.cuda.empty_cache()
        if size_copy:
            try:
                row["copy_us"] = copy_time(nbytes, repeats=repeats, rounds=rounds, min_bytes=min_bytes,
                                           target_ms=target_ms)
            except Exception as e:  # the reference column must not cost the kernels' numbers
                row["copy_error"] = f"{type(e).__name__}: {e}"
        if "copy_us" in row:
            for name in names:
                if row[name].get("status") == "ok":
                    row[name]["pct_size_copy"] = 100.0 * row["copy_us"] / row[name]["us"]
        base = row.get(baseline, {})
        for name in names:
            r = row[name]
            if r.get("status") == "ok" and base.get("status") == "ok":
                per_round = [b / x for b, x in zip(base["rounds"], r["rounds"])]
                r["ratio"] = _percentile(sorted(per_round), 0.5)
                r["ratio_min"], r["ratio_max"] = min(per_round), max(per_round)
        if log:
            log(format_row(row, names))
        rows.append(row)
    return rows


def format_row(row, names):
    parts = [",".join(f"{k}={v}" for k, v in row["shape"].items())]
    for n in names:
        r = row[n]
        if r.get("status") == "ok":
            parts.append(f"{n} {r['us']:.2f}us {r['gbps']:.0f}GB/s ({r['pct_copy']:.0f}%)")
        else:
            parts.append(f"{n} {r.get('status')}")
    return " | ".join(parts)
