"""Correctness and timing helpers shared by the GPU tests and the benchmark.

torch is imported inside the functions so that `import megac.testing` works where torch is absent.
Rules these helpers enforce (shared/KERNELS.md, .library/device/METHOD.md): relative error against a
higher-precision reference, NaN never passes, quantized outputs byte by byte, outputs poisoned before a run,
timing with CUDA graphs over rotated buffers so that inputs do not sit in L2.
"""
import math
from dataclasses import dataclass, field

L2_BYTES = 60 * 2**20  # H200
ROTATE_MIN_BYTES = 200 * 2**20  # > 3x L2: every launch reads from DRAM


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
    us: float          # median microseconds per launch
    p10: float
    p90: float
    sets: int          # argument sets rotated through
    launches: int      # launches per graph replay
    rotated: bool      # True when the rotated sets exceed ROTATE_MIN_BYTES (inputs come from DRAM)
    graph: bool        # False when capture failed and plain launches were timed

    def as_dict(self):
        return dict(self.__dict__)


def bench(fn, make_args, repeats=30, min_bytes=ROTATE_MIN_BYTES, max_sets=512, target_ms=2.0,
          max_launches=4096, use_graph=True):
    """Median time of fn(args) in microseconds.

    make_args() returns one argument set (any object holding tensors; fn receives it unchanged). Enough sets
    are allocated that their total exceeds min_bytes, and the graph cycles through them so each launch reads
    cold data. K launches are captured in one CUDA graph (sized so a replay takes about target_ms) and the
    replay time / K is the per-launch time; median and p10/p90 over `repeats` replays.
    """
    torch = _torch()
    first = make_args()
    per_set = max(tensor_bytes(first), 1)
    n_sets = max(1, min(max_sets, math.ceil(min_bytes / per_set)))
    sets = [first] + [make_args() for _ in range(n_sets - 1)]

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
    torch.cuda.synchronize()
    est_ms = max(start.elapsed_time(end) / len(sets), 1e-4)
    launches = int(min(max_launches, max(len(sets), target_ms / est_ms)))

    graph_ok = False
    g = None
    if use_graph:
        try:
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for i in range(launches):
                    fn(sets[i % len(sets)])
            g.replay()
            torch.cuda.synchronize()
            graph_ok = True
        except Exception:  # not capturable (e.g. a host sync inside fn): time plain launches instead
            g = None
            torch.cuda.synchronize()

    def run_once():
        if graph_ok:
            g.replay()
        else:
            for i in range(launches):
                fn(sets[i % len(sets)])

    run_once()
    times = []
    for _ in range(repeats):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        run_once()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e) * 1e3 / launches)
    times.sort()
    del g
    return Timing(us=_percentile(times, 0.5), p10=_percentile(times, 0.1), p90=_percentile(times, 0.9),
                  sets=len(sets), launches=launches, rotated=per_set * len(sets) >= min_bytes, graph=graph_ok)


def copy_bandwidth(nbytes=1 << 30, repeats=20):
    """Device-to-device copy bandwidth in GB/s (1e9), counting bytes read plus bytes written.

    The ceiling is the faster of two copies of `nbytes`: cudaMemcpyAsync (what copy_ does for contiguous
    tensors of one dtype) and PyTorch's vectorized elementwise kernel writing src * 1 (float32). On an H200
    the second is the faster one, so percentages against it are the stricter measure.
    """
    torch = _torch()
    src = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda").uniform_(1.0, 2.0)
    dst = torch.empty_like(src)
    memcpy = bench(lambda a: a[1].copy_(a[0]), lambda: (src, dst), repeats=repeats, min_bytes=0, target_ms=20)
    kernel = bench(lambda a: torch.mul(a[0], 1.0, out=a[1]), lambda: (src, dst), repeats=repeats, min_bytes=0,
                   target_ms=20)
    return 2 * src.numel() * 4 / (min(memcpy.us, kernel.us) * 1e-6) / 1e9


def compare(shapes, make_args, impls, bytes_moved, copy_bw=None, repeats=30, baseline=None, log=print):
    """Time several implementations of one kernel on the same shapes, side by side.

    shapes: list of dicts; make_args(shape) -> one argument set; impls: {name: fn(args)} (a value of None
    marks an implementation that is not available); bytes_moved(shape) -> the fewest bytes the kernel must
    move. Returns rows: {"shape", "bytes", and per impl name: us, p10, p90, gbps, pct_copy, ratio} where
    ratio = baseline's time / this time (> 1 means faster than the baseline; baseline = first impl).
    """
    if copy_bw is None:
        copy_bw = copy_bandwidth()
    names = list(impls)
    baseline = baseline or names[0]
    rows = []
    for shape in shapes:
        nbytes = bytes_moved(shape)
        row = {"shape": dict(shape), "bytes": nbytes}
        for name in names:
            fn = impls[name]
            if fn is None:
                row[name] = {"status": "unavailable"}
                continue
            try:
                t = bench(fn, lambda: make_args(shape), repeats=repeats)
            except Exception as e:  # one broken implementation must not hide the others
                row[name] = {"status": "error", "error": f"{type(e).__name__}: {e}"}
                continue
            gbps = nbytes / (t.us * 1e-6) / 1e9
            row[name] = {"status": "ok", **t.as_dict(), "gbps": gbps, "pct_copy": 100.0 * gbps / copy_bw}
        base = row.get(baseline, {})
        for name in names:
            r = row[name]
            if r.get("status") == "ok" and base.get("status") == "ok":
                r["ratio"] = base["us"] / r["us"]
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
