#!/usr/bin/env python3
"""What does each launch path put into a CUDA graph? (exploratory)

bench/launch_swap_probe.py found Triton's kernel 2.7-3.3% faster at hop_mid M = 512, H = 4096 through Triton's
launcher than through a bare cuLaunchKernel of the same CUfunction with the same grid, block, shared bytes and
arguments (results/tuning_launch_order_58634d7.md). This captures one launch of each path (triton, triton.raw,
megac, megac.raw, as that probe builds them) into a graph of its own (cuStreamBeginCapture on a torch stream) and
prints what the graph holds: its nodes and their types, and for each kernel node every field of its parameters
(function, CUkernel, context, grid, block, shared bytes), the bytes of every kernel argument, every launch
attribute a graph node can carry, and the function's own attributes. A field that differs between triton and
triton.raw is the lead (results/tuning_graph_nodes_00c0858.md: none did).

usage (GPU machine, PYTHONPATH=build-gpu/python):
    python3 bench/graph_node_probe.py --bundles out/bundles --out DIR [--cases "hop_mid:M=512,H=4096"]
Writes DIR/graph_node_probe.json.
"""
import ctypes
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


class KernelNodeParams(ctypes.Structure):
    # CUDA_KERNEL_NODE_PARAMS_v2 (cuda.h)
    _fields_ = [("func", ctypes.c_void_p), ("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared", ctypes.c_uint), ("kernelParams", ctypes.POINTER(ctypes.c_void_p)),
                ("extra", ctypes.c_void_p), ("kern", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]


# Launch attributes a kernel node may carry (CUlaunchAttributeID) and the bytes of each value worth printing.
NODE_ATTRIBUTES = {1: "access_policy_window", 2: "cooperative", 4: "cluster_dimension",
                   5: "cluster_scheduling_policy", 8: "priority", 9: "mem_sync_domain_map", 10: "mem_sync_domain",
                   11: "preferred_cluster_dimension", 13: "device_updatable", 14: "shared_memory_carveout",
                   16: "nvlink_util_centric"}
PARAM_BYTES = {"u64": 8, "b64": 8, "s64": 8, "u32": 4, "b32": 4, "s32": 4, "f32": 4}


def capture(lib, fn, args, stream):
    """The CUgraph of one call fn(args), captured on `stream` (a torch stream made current)."""
    import torch
    graph = ctypes.c_void_p()
    with torch.cuda.stream(stream):
        check(lib.cuStreamBeginCapture_v2(ctypes.c_void_p(stream.cuda_stream), 2), "cuStreamBeginCapture")  # relaxed
        fn(args)
        check(lib.cuStreamEndCapture(ctypes.c_void_p(stream.cuda_stream), ctypes.byref(graph)), "cuStreamEndCapture")
    return graph


def check(r, what):
    if r != 0:
        raise RuntimeError(f"{what} failed: CUresult {r}")


def describe(lib, graph, types):
    n = ctypes.c_size_t(0)
    check(lib.cuGraphGetNodes(graph, None, ctypes.byref(n)), "cuGraphGetNodes")
    nodes = (ctypes.c_void_p * n.value)()
    check(lib.cuGraphGetNodes(graph, nodes, ctypes.byref(n)), "cuGraphGetNodes")
    out = []
    for node in nodes:
        kind = ctypes.c_int()
        check(lib.cuGraphNodeGetType(ctypes.c_void_p(node), ctypes.byref(kind)), "cuGraphNodeGetType")
        entry = {"type": kind.value}
        if kind.value == 0:  # CU_GRAPH_NODE_TYPE_KERNEL
            p = KernelNodeParams()
            check(lib.cuGraphKernelNodeGetParams_v2(ctypes.c_void_p(node), ctypes.byref(p)), "GetParams")
            name = ctypes.c_char_p()
            lib.cuFuncGetName(ctypes.byref(name), ctypes.c_void_p(p.func))
            entry.update({"func": hex(p.func or 0), "kern": hex(p.kern or 0), "ctx": hex(p.ctx or 0),
                          "name": (name.value or b"").decode(), "grid": list(p.grid), "block": list(p.block),
                          "shared": p.shared, "extra": hex(p.extra or 0)})
            args = []
            for i, t in enumerate(types):
                size = PARAM_BYTES[t]
                args.append(ctypes.string_at(p.kernelParams[i], size).hex())
            entry["args"] = args
            attrs = {}
            for aid, aname in NODE_ATTRIBUTES.items():
                value = (ctypes.c_ubyte * 64)()
                r = lib.cuGraphKernelNodeGetAttribute(ctypes.c_void_p(node), aid, ctypes.byref(value))
                attrs[aname] = bytes(value).rstrip(b"\0").hex() if r == 0 else f"CUresult {r}"
            entry["attributes"] = attrs
            # The function's own attributes (CUfunction_attribute 0-10: threads, static shared bytes, constant
            # and local bytes, registers, PTX and binary versions, cache mode, dynamic shared limit, carveout,
            # cluster size required), which the launch path does not change but the two kernels may differ in.
            fattrs = []
            for fa in range(11):
                v = ctypes.c_int(-1)
                r = lib.cuFuncGetAttribute(ctypes.byref(v), fa, ctypes.c_void_p(p.func))
                fattrs.append(v.value if r == 0 else f"CUresult {r}")
            entry["function_attributes"] = fattrs
        out.append(entry)
    return out


def main():
    import torch
    import triton_kernels
    from launch_swap_probe import Driver, megac_raw, triton_raw
    from order_probe import parse_cases, probe_options
    from run_bench import megac_impl
    from megac import bundles
    p = probe_options("hop_mid:M=512,H=4096")
    a = p.parse_args()
    os.makedirs(a.out, exist_ok=True)
    found, _ = bundles.index(a.bundles)
    drv, modules, results = Driver(), {}, []
    lib = drv.lib
    stream = torch.cuda.Stream()
    for name, spec, ref, shape in parse_cases(a.cases):
        args = ref.inputs(**shape, device="cuda", seed=5)
        m_raw, m_info = megac_raw(drv, ref.launches[0], found, args)
        t_raw, t_info = triton_raw(drv, triton_kernels.LAUNCHERS[name], args)
        paths = {"triton": triton_kernels.LAUNCHERS[name], "triton.raw": t_raw,
                 "megac": megac_impl(name, found, modules), "megac.raw": m_raw}
        for path, fn in paths.items():
            fn(args)   # compiled, loaded and run once before the capture
        torch.cuda.synchronize()
        for path, fn in paths.items():
            graph = capture(lib, fn, args, stream)
            # The argument types: those of the PTX entry the node launches.
            types = m_info["types"] if path.startswith("megac") else t_info["types"]
            nodes = describe(lib, graph, types)
            results.append({"kernel": name, "shape": shape, "path": path, "nodes": nodes})
            print(f"{name} {spec} {path}: {json.dumps(nodes)}", flush=True)
    with open(os.path.join(a.out, "graph_node_probe.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
