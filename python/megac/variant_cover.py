"""Which kernel variant a shape launches, without a GPU, and a few shapes that together launch every variant.

A sanitizer run at one shape a kernel checks one variant of it; the others (a kernel's wide, capped or
many-CTA forms, chosen by the runtime from the manifest's `when` conditions) run only in the correctness
suite. `cover` keeps, of shapes taken smallest first, each one that launches some (kernel, variant) pair
no shape kept before it launched: every pair then runs at the smallest shape that reaches it, and every
kept shape is the smallest for some pair (`test/gpu/run_gpu_tests.py --every-variant`). The variant comes
from the runtime itself (`Kernel.prepare` on raw tensors whose shapes the manifest gives from the shape's
scalars), as it would launch, so nothing here restates the selection rules.

Plain Python, no torch: CI's tests of the variant choices (python/tests/test_variant_choice.py) use it too.
"""
import re

from .module import RawTensor
from .reference import attn_plan

SMS = 132  # the H200's and H100's SM count: the count the variants' thresholds were measured with
L2_MB = 60  # the H200's L2 in MiB (the H100's is 50): what `l2_mb` in a variant's condition reads


def device_facts(props):
    """(sms, l2_mb) of a device as the runtime reads them for variant conditions (the L2 in MiB, rounded down),
    from torch.cuda.get_device_properties."""
    return props.multi_processor_count, props.L2_cache_size >> 20


def launch_scalars(shape, sms=SMS):
    """The scalars a launch at `shape` takes: the shape's own, and where it is attention's (it names ctx) the
    split plan the host derives from it (max_pages, split_pages, nsplit), which selects the merges' variants."""
    if "ctx" not in shape:
        return dict(shape)
    pages = attn_plan.max_pages(shape["ctx"])
    split_pages, nsplit = attn_plan.split_plan(shape["B"], shape["Hkv"], pages, sms)
    return dict(shape, max_pages=pages, split_pages=split_pages, nsplit=nsplit)


def manifest_value(expr, scalars):
    """A manifest shape expression (integers, names, + - * / %, cdiv; `_` unchecked: 1) with Python ints."""
    if expr == "_":
        return 1
    py = re.sub(r"(?<![/])/(?![/])", "//", expr)
    return eval(py, {"__builtins__": {}}, {"cdiv": lambda a, b: -(-a // b), **scalars})


def prepare(kernel, shape, sms=SMS, l2_mb=L2_MB):
    """The launch `kernel` (a megac Kernel) would make at `shape` (launch_scalars' dict; scalars it does not
    name are 1) on a device of `sms` SMs and `l2_mb` MiB of L2, as Kernel.prepare returns it: grid, block,
    variant, early_launch. Its tensors are raw addresses, never touched."""
    scalars = {p["name"]: shape.get(p["name"], 1) for p in kernel.params if p["kind"] == "scalar"}
    args = {}
    for i, p in enumerate(kernel.params):
        if p["kind"] == "tensor":
            dims = tuple(manifest_value(d, scalars) for d in p["shape"])
            args[p["name"]] = RawTensor(0x100000 * (i + 1), p["dtype"], dims)
        else:
            args[p["name"]] = scalars[p["name"]]
    return kernel.prepare(sms=sms, l2_mb=l2_mb, **args)


def variants(kernels, shape, sms=SMS, l2_mb=L2_MB):
    """The (kernel name, variant) pairs a launch sequence (megac Kernels, in order) makes at `shape`."""
    scalars = launch_scalars(shape, sms)
    return [(k.name, prepare(k, scalars, sms, l2_mb)["variant"]) for k in kernels]


def cover(kernels, shapes, sms=SMS, l2_mb=L2_MB, size=None):
    """The shapes of `shapes`, smallest first by `size(shape)` where given (else in their order), each
    launching a (kernel, variant) pair of the sequence `kernels` that no shape kept before it launches:
    together every pair the shapes reach, each at the first (smallest) shape that reaches it."""
    seen, kept = set(), []
    for shape in sorted(shapes, key=size) if size else shapes:
        pairs = set(variants(kernels, shape, sms, l2_mb))
        if not pairs <= seen:
            seen |= pairs
            kept.append(shape)
    return kept
