"""A directory of compiled bundles: which bundle holds which kernel, and a reference kernel's launch sequence
over them (megac.reference: Kernel.launches), each kernel's arguments bound by name from one dict.

    found, problems = bundles.index("out/bundles")       # {kernel: path}, {bundle: why unreadable}
    run = bundles.sequence(reference.get("attn_decode_q1"), found)
    run(**args)                                           # attn_split_q1, then attn_merge_q1

Used by the GPU correctness suite, the benchmark and the slots (megac.qwen35). Loading needs no GPU until a
sequence is built (megac.load).
"""
import os


def index(directory):
    """({kernel name: .mgb path}, {bundle file stem: why it could not be read}) for the directory's bundles,
    in name order (the first bundle listing a kernel wins); both empty when `directory` is not one."""
    from . import bundle
    found, problems = {}, {}
    if not directory or not os.path.isdir(directory):
        return found, problems
    for f in sorted(os.listdir(directory)):
        if not f.endswith(".mgb"):
            continue
        path = os.path.join(directory, f)
        try:
            for k in bundle.read_file(path).manifest.get("kernels", []):
                found.setdefault(k["name"], path)
        except Exception as e:  # a broken bundle is a result, not a crash of the whole run
            problems[f[:-4]] = f"unreadable bundle {path}: {e}"
    return found, problems


def launch_args(kernel, args):
    """Keyword arguments for `kernel`, by manifest parameter name, taken from `args`; KeyError names tensor
    parameters `args` lacks."""
    missing = [p["name"] for p in kernel.params if p["name"] not in args and p["kind"] == "tensor"]
    if missing:
        raise KeyError(f"the arguments lack tensor parameter(s) {missing} of kernel '{kernel.name}'; "
                       f"they provide {sorted(args)}")
    return {p["name"]: args[p["name"]] for p in kernel.params if p["name"] in args}


class Sequence:
    """Calls kernels in order, each with its arguments bound by name from the same dict; `params` is the
    union of their parameters (the first kernel's first)."""

    def __init__(self, kernels):
        self.kernels = kernels
        self.name = "+".join(k.name for k in kernels)
        seen, self.params = set(), []
        for k in kernels:
            for p in k.params:
                if p["name"] not in seen:
                    seen.add(p["name"])
                    self.params.append(p)

    def __call__(self, **args):
        for k in self.kernels:
            k(**launch_args(k, args))


def sequence(ref_kernel, found, modules=None, early_launch=True, choose_variants_as=None):
    """The Sequence of a reference's kernels from `found` ({kernel: path}, from index()); `modules` caches
    loaded bundles by (path, early_launch, choose_variants_as: megac.load's options) across calls. KeyError
    names a kernel no bundle has."""
    from . import load
    modules = {} if modules is None else modules
    kernels = []
    for name in ref_kernel.launches:
        if name not in found:
            raise KeyError(f"no bundle has kernel '{name}' (needed by '{ref_kernel.name}')")
        key = (found[name], early_launch, choose_variants_as)
        if key not in modules:
            modules[key] = load(found[name], early_launch=early_launch, choose_variants_as=choose_variants_as)
        kernels.append(modules[key].kernel(name))
    return Sequence(kernels)


def launches_early(entry):
    """Whether a manifest kernel entry, or any of its variants, was compiled with @early_launch."""
    return entry.get("early_launch", False) or any(v.get("early_launch", False) for v in entry.get("variants", []))


def has_early_launch(seq):
    """Whether any kernel of a Sequence, or any of its variants, was compiled with @early_launch."""
    return any(launches_early(k.info) for k in seq.kernels)


def _manifest_kernels(found, keep):
    """The names of the kernels of `found` ({kernel: path}, from index()) whose manifest entry `keep` accepts,
    read from the manifests (no runtime needed)."""
    from . import bundle
    names = set()
    for path in sorted(set(found.values())):
        names |= {k["name"] for k in bundle.read_file(path).manifest.get("kernels", []) if keep(k)}
    return names


def early_kernels(found):
    """The kernels of `found` compiled for early launch."""
    return _manifest_kernels(found, launches_early)


def shared_memory_kernels(found):
    """The kernels of `found` that declare shared memory: the manifest's `shared_bytes`, the most any of a
    kernel's variants declares on any target. What compute-sanitizer's racecheck has to check."""
    return _manifest_kernels(found, lambda k: k.get("shared_bytes", 0) > 0)
