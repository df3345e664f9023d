#!/usr/bin/env python3
"""Is a small-shape gap between megac and Triton in the code or in the launch? Times each case four ways in
one process (testing.compare: CUDA graphs, rotated buffers, rounds):

  megac        megac's kernel through megac's runtime (the benchmark's megac column)
  triton       Triton's kernel through Triton's launcher (the benchmark's Triton column)
  megac.raw    megac's cubin (the variant the runtime picks, its grid and block) through one bare
               cuLaunchKernel made here with ctypes
  triton.raw   Triton's loaded kernel (its CUfunction, grid, warps, shared bytes) through that same bare launch

A gap that stays between the two .raw columns is the code's; one that closes there is the launchers'.
With --ex, two more columns each for megac's and Triton's cubins: the same bare launch through cuLaunchKernelEx
without attributes (`.ex`) and with a cluster dimension of 1 x 1 x 1 (`.c1`), which Triton's launcher can set.
Only kernels launched once (one entry in the reference's `launches`).

usage (GPU machine, PYTHONPATH=build-gpu/python):
    python3 bench/launch_swap_probe.py --bundles out/bundles --out DIR [--cases "vector_add:n=65536 ..."] [--ex]
        [--reverse] [--rounds 5]
Writes DIR/launch_swap_probe.json and each case's two cubins (DIR/CASE.megac.cubin, DIR/CASE.triton.cubin, for
cuobjdump -sass), and prints one line per case.
"""
import ctypes
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

DEFAULT_CASES = ("vector_add:n=65536 group_quant:M=1,K=2048 softmax_small:M=1,N=1024 gdn_norm_gate:M=1,HV=8 "
                 "gdn_norm_gate:M=4096,HV=8 hop_mid:M=512,H=2048 shared_act_quant:M=1024,I=14336")

_CTYPE = {"u64": ctypes.c_uint64, "b64": ctypes.c_uint64, "s64": ctypes.c_int64, "u32": ctypes.c_uint32,
          "b32": ctypes.c_uint32, "s32": ctypes.c_int32, "f32": ctypes.c_float}


def entry_params(ptx, symbol):
    """The .param types (u64, u32, f32, ...) of `.entry symbol(...)` in a PTX text."""
    m = re.search(r"\.entry\s+" + re.escape(symbol) + r"\s*\((.*?)\)", ptx, re.S)
    if not m:
        raise KeyError(f"no .entry {symbol} in the PTX")
    return re.findall(r"\.param\s+\.(\w+)", m.group(1))


class Driver:
    """The few driver calls a bare launch needs, on the context torch made current."""

    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")
        self.lib.cuLaunchKernel.argtypes = [ctypes.c_void_p] + [ctypes.c_uint] * 7 + [
            ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]

    def check(self, r, what):
        if r != 0:
            raise RuntimeError(f"{what} failed: CUresult {r}")

    def function(self, image, symbol):
        module, fn = ctypes.c_void_p(), ctypes.c_void_p()
        self.check(self.lib.cuModuleLoadData(ctypes.byref(module), ctypes.c_char_p(image)), "cuModuleLoadData")
        self.check(self.lib.cuModuleGetFunction(ctypes.byref(fn), module, symbol.encode()), "cuModuleGetFunction")
        return fn

    def launch(self, fn, grid, block, smem, types, values, stream):
        boxed = [_CTYPE[t](v) for t, v in zip(types, values)]
        params = (ctypes.c_void_p * len(boxed))(*[ctypes.cast(ctypes.pointer(b), ctypes.c_void_p) for b in boxed])
        self.check(self.lib.cuLaunchKernel(fn, *grid, *block, smem, ctypes.c_void_p(stream), params, None),
                   "cuLaunchKernel")


class LaunchConfig(ctypes.Structure):
    # CUlaunchConfig (cuda.h): seven unsigned ints, then the stream, the attributes and their count.
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.c_void_p), ("num_attrs", ctypes.c_uint)]


class LaunchAttribute(ctypes.Structure):
    # CUlaunchAttribute: an enum id padded to 8 bytes, then a 64-byte union (clusterDim: three unsigned ints).
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_int), ("value", ctypes.c_uint * 16)]


CLUSTER_DIMENSION = 4  # CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION


def launch_ex(drv, fn, grid, block, smem, types, values, stream, cluster1):
    boxed = [_CTYPE[t](v) for t, v in zip(types, values)]
    params = (ctypes.c_void_p * len(boxed))(*[ctypes.cast(ctypes.pointer(b), ctypes.c_void_p) for b in boxed])
    attr = LaunchAttribute(CLUSTER_DIMENSION, 0, (ctypes.c_uint * 16)(1, 1, 1))
    config = LaunchConfig((ctypes.c_uint * 3)(*grid), (ctypes.c_uint * 3)(*block), smem, ctypes.c_void_p(stream),
                          ctypes.cast(ctypes.pointer(attr), ctypes.c_void_p) if cluster1 else None,
                          1 if cluster1 else 0)
    drv.check(drv.lib.cuLaunchKernelEx(ctypes.byref(config), fn, params, None), "cuLaunchKernelEx")


def ex_variants(drv, fn, grid, block, smem, types, values_of):
    """{suffix: fn(args)}: the bare launch through cuLaunchKernelEx, without attributes and with a 1 x 1 x 1
    cluster."""
    import torch

    def make(cluster1):
        return lambda a: launch_ex(drv, fn, grid, block, smem, types, values_of(a),
                                   torch.cuda.current_stream().cuda_stream, cluster1)
    return {"ex": make(False), "c1": make(True)}


def value_of(v):
    return v.data_ptr() if hasattr(v, "data_ptr") else v


def megac_raw(drv, name, found, args):
    """fn(args) launching megac's cubin for kernel `name` bare, with the variant, grid and block the runtime
    picks for `args`' shape."""
    import megac
    module = megac.load(found[name], early_launch=False)
    kernel = module.kernel(name)
    names = kernel.param_names
    plan = kernel.prepare(**{p: args[p] for p in names})
    symbol = next((v["symbol"] for v in kernel.info.get("variants", []) if v["name"] == plan["variant"]), name)
    types = entry_params(module.ptx("sm_90a"), symbol)
    cubin = module.bundle.image("sm_90a", "cubin")
    fn = drv.function(cubin, symbol)
    grid, block = plan["grid"], plan["block"]

    def run(a):
        import torch
        drv.launch(fn, grid, block, plan["shared_bytes"], types,
                   [value_of(a[p]) for p in names], torch.cuda.current_stream().cuda_stream)
    ex = ex_variants(drv, fn, grid, block, plan["shared_bytes"], types, lambda a: [value_of(a[p]) for p in names])
    return run, {"symbol": symbol, "grid": grid, "block": block, "shared": plan["shared_bytes"], "types": types,
                 "cubin": cubin,
                 "ex": ex}


def capture_triton(launcher, args):
    """Run Triton's launcher once and return what its one kernel launch was: (JITFunction, CompiledKernel,
    grid, positional args, keyword args)."""
    from triton.runtime.jit import JITFunction
    seen = []
    original = JITFunction.run

    def recording(self, *a, **kw):
        k = original(self, *a, **kw)
        seen.append((self, k, kw.get("grid"), a, kw))
        return k
    JITFunction.run = recording
    try:
        launcher(args)
    finally:
        JITFunction.run = original
    if len(seen) != 1:
        raise RuntimeError(f"expected one Triton launch, saw {len(seen)}")
    return seen[0]


def triton_raw(drv, launcher, args):
    """fn(args) launching Triton's compiled kernel bare: its runtime arguments (constexprs and the integers
    Triton specialized away dropped), then its scratch pointers (null)."""
    jit, k, grid, pos, kw = capture_triton(launcher, args)
    bound = dict(zip(jit.arg_names, pos))
    bound.update({n: v for n, v in kw.items() if n in jit.arg_names})
    keys = {id(v): key for key, v in args.items() if hasattr(v, "data_ptr")}
    template = []
    for p in jit.params:
        v = bound.get(p.name)
        if p.is_constexpr or (isinstance(v, int) and not isinstance(v, bool) and v == 1):
            continue
        template.append(("key", keys[id(v)]) if id(v) in keys else ("const", v))
    ptx = k.asm["ptx"]
    symbol = re.search(r"\.entry\s+(\w+)", ptx).group(1)
    types = entry_params(ptx, symbol)
    if len(types) < len(template):
        raise RuntimeError(f"Triton's {symbol} takes {len(types)} parameters, fewer than {len(template)}")
    extra = len(types) - len(template)   # global / profile scratch pointers
    grid = tuple(grid) + (1,) * (3 - len(grid))
    block = (32 * k.metadata.num_warps, 1, 1)
    fn = ctypes.c_void_p(k.function)

    def run(a):
        import torch
        values = [value_of(a[x]) if kind == "key" else x for kind, x in template] + [0] * extra
        drv.launch(fn, grid, block, k.metadata.shared, types, values, torch.cuda.current_stream().cuda_stream)
    ex = ex_variants(drv, fn, grid, block, k.metadata.shared, types,
                     lambda a: [value_of(a[x]) if kind == "key" else x for kind, x in template] + [0] * extra)
    return run, {"symbol": symbol, "grid": grid, "block": block, "shared": k.metadata.shared, "types": types,
                 "scratch_params": extra, "cubin": k.asm["cubin"], "ex": ex}


def main():
    from order_probe import parse_cases, probe_options, time_shape
    p = probe_options(DEFAULT_CASES)
    p.add_argument("--ex", action="store_true", help="also launch both cubins through cuLaunchKernelEx")
    p.add_argument("--reverse", action="store_true", help="time each case a second time, the columns in reverse "
                   "order (is a column's place in the round what moves it?)")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    import triton_kernels
    from run_bench import check_impl, megac_impl
    from megac import bundles
    found, _ = bundles.index(a.bundles)
    drv, modules, results = Driver(), {}, []
    for name, spec, ref, shape in parse_cases(a.cases):
        if len(ref.launches) != 1:
            print(f"{name}: {len(ref.launches)} launches, skipped")
            continue
        probe = ref.inputs(**shape, device="cuda", seed=5)
        try:
            m_raw, m_info = megac_raw(drv, ref.launches[0], found, probe)
            t_raw, t_info = triton_raw(drv, triton_kernels.LAUNCHERS[name], probe)
        except Exception as e:  # one case's setup must not cost the others
            print(f"{name}:{spec}: no bare launch: {type(e).__name__}: {e}", flush=True)
            continue
        tag = re.sub(r"[^A-Za-z0-9_.-]", "_", f"{name}:{spec}")
        for who, info in (("megac", m_info), ("triton", t_info)):
            with open(os.path.join(a.out, f"{tag}.{who}.cubin"), "wb") as f:
                f.write(info.pop("cubin"))
        impls = {"triton": triton_kernels.LAUNCHERS[name], "megac": megac_impl(name, found, modules),
                 "megac.raw": m_raw, "triton.raw": t_raw}
        for who, info in (("megac", m_info), ("triton", t_info)):
            for suffix, fn in info.pop("ex").items():
                if a.ex:
                    impls[f"{who}.{suffix}"] = fn
        checks = {n: check_impl(fn, ref, shape)[0] for n, fn in impls.items()}
        for order in ("forward", "reverse") if a.reverse else ("forward",):
            ordered = impls if order == "forward" else dict(reversed(list(impls.items())))
            us, ratio, _ = time_shape(ref, shape, ordered, a)
            results.append({"kernel": name, "shape": shape, "order": order, "us": us, "ratio_vs_triton": ratio,
                            "checks": checks, "megac_launch": m_info, "triton_launch": t_info})
            print(f"{name} {spec} {order} us {us} ratio {ratio} checks {checks} megac {m_info} triton {t_info}",
                  flush=True)
    with open(os.path.join(a.out, "launch_swap_probe.json"), "w") as f:
        json.dump(results, f, indent=1, default=str)


if __name__ == "__main__":
    main()
