"""Shared pieces of the kernel references: random inputs, output checks, exact division.

Every kernel module in this package has the same shape, so the GPU test runner and the benchmark can drive any
kernel by the parameter names in its bundle manifest:

  NAME              the kernel name (bundle `<NAME>.mgb`, manifest kernel `NAME`)
  SHAPES            list of dicts of shape parameters (the lists of shared/KERNELS.md; shapes.py, no torch)
  BENCH_SHAPES      a smaller list for timing (shapes.py)
  inputs(**shape, device, seed) -> dict: every kernel parameter by manifest name (input tensors, output
                    buffers, scalars), plus extra entries the reference may need (ignored by the launcher)
  reference(args) -> dict of expected outputs by parameter name (computed on clones, args is not modified)
  CHECKS            {output name: Close | Bytes | callable(out, ref, args) -> Report}
  INPLACE           names of tensors that are read and updated (not poisoned; restored between runs)
  bytes_moved(**shape) -> the fewest DRAM bytes the kernel must move (for GB/s)
  LAUNCHES          optional: the megac kernels to launch in order, each with its arguments bound by name
                    (default: the one kernel NAME); the first one names the bundle
"""
import torch

from megac import testing
from megac.reference.shapes import listed_then_benchmarked

def generator(seed, device):
    g = torch.Generator(device=device)
    g.manual_seed(seed)
    return g


def randn(shape, g, device, dtype=torch.bfloat16, std=1.0, mean=0.0):
    """Normal random values, drawn in fp32 then rounded to dtype (never zeros: no output can hide in them)."""
    t = torch.randn(shape, generator=g, device=device, dtype=torch.float32)
    return (t * std + mean).to(dtype)


def uniform(shape, g, device, lo, hi, dtype=torch.float32):
    t = torch.rand(shape, generator=g, device=device, dtype=torch.float32)
    return (t * (hi - lo) + lo).to(dtype)


def distinct_slots(n, pool, g, device):
    """n distinct slot indices out of range(pool), shuffled (i32)."""
    return torch.randperm(pool, generator=g, device=device)[:n].to(torch.int32)


def div(a, b):
    """IEEE a / b in fp32. torch turns `tensor / python_scalar` into a multiply by the reciprocal on CUDA,
    which rounds differently; dividing by a tensor of a's shape keeps the true division the kernels do."""
    b = torch.as_tensor(b, dtype=a.dtype, device=a.device)
    return a / b.expand_as(a).contiguous()


def cdiv(a, b):
    return (a + b - 1) // b


class Close:
    """Relative-error check against the reference (see testing.check_close)."""

    def __init__(self, rtol, atol=0.0):
        self.rtol, self.atol = rtol, atol

    def __call__(self, out, ref, args, name):
        return testing.check_close(out, ref, self.rtol, self.atol, name=name)


class Bytes:
    """Byte-exact check; `allow` names an entry of the reference dict holding the allowed-mismatch mask."""

    def __init__(self, allow=None):
        self.allow = allow

    def __call__(self, out, ref, args, name, ref_all=None):
        mask = ref_all.get(self.allow) if (self.allow and ref_all is not None) else None
        return testing.check_bytes_equal(out, ref, mask, name=name)


def run_once(kernel, fn, shape, device="cuda", seed=7):
    """fn(args) once on fresh inputs of `shape`, its outputs poisoned first, checked against the reference:
    (the list of testing.Report, milliseconds of that call, synchronized). The benchmark's check before timing
    (bench/run_bench.py) and the baseline checker (bench/check_baselines.py) both run implementations this way."""
    import time
    args = kernel.inputs(**shape, device=device, seed=seed)
    ref = kernel.reference({**args, **{n: args[n].clone() for n in kernel.inplace}})
    for n in kernel.checks:
        if n not in kernel.inplace:
            testing.poison(args[n])
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    sync()
    t = time.perf_counter()
    fn(args)
    sync()
    ms = (time.perf_counter() - t) * 1e3
    return run_checks(kernel.checks, args, ref), ms


def run_checks(checks, args, ref):
    """Apply every check of a kernel to the outputs in args; returns a list of testing.Report."""
    reports = []
    for name, check in checks.items():
        if isinstance(check, Bytes):
            reports.append(check(args[name], ref[name], args, name, ref_all=ref))
        else:
            reports.append(check(args[name], ref[name], args, name))
    return reports


def nbytes(*tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


class Kernel:
    """One kernel's reference bundle (see the module docstring); modules with variants build several."""

    def __init__(self, name, shapes, bench_shapes, inputs, reference, checks, bytes_moved, inplace=(),
                 launches=None):
        self.name, self.shapes, self.bench_shapes = name, shapes, bench_shapes
        self.inputs, self.reference, self.checks = inputs, reference, checks
        self.bytes_moved, self.inplace = bytes_moved, tuple(inplace)
        self.launches = tuple(launches or (name,))

    def every_shape(self):
        """The listed shapes, then the benchmarked ones not among them: every shape megac runs at."""
        return listed_then_benchmarked(self.shapes, self.bench_shapes)

    @classmethod
    def from_module(cls, m):
        return cls(m.NAME, m.SHAPES, m.BENCH_SHAPES, m.inputs, m.reference, m.CHECKS, m.bytes_moved,
                   getattr(m, "INPLACE", ()), getattr(m, "LAUNCHES", None))
