#!/usr/bin/env python3
"""Exploratory: bundles whose sm_90a PTX carries cache hints on the global vector accesses, reassembled by ptxas.

usage (build machine): PYTHONPATH=build/python python3 bench/ptx_cache_hints.py SRC_DIR DST_DIR MODE KERNEL[,...]
MODE holds any of: l2p (`.L2::256B` prefetch size on ld.global.v4), csld (`.cs` on ld.global.v4), csst (`.cs` on
st.global.v2/.v4), nast (`.L1::no_allocate` on those stores). Each bundle's sm_90a PTX and cubin are replaced
(ptxas -O3, as megac runs it; MEGAC_PTXAS or CUDA 13.0's), its other targets kept. Time the result with
`bench/order_probe.py --alt NAME=DST_DIR`. Used in results/tuning_cache_hints_4202c0f.md.
"""
import os
import re
import subprocess
import sys
import tempfile

import megac.bundle as bundle

REWRITES = {
    "l2p": (r"ld\.global\.v4\.", "ld.global.L2::256B.v4."),
    "csld": (r"ld\.global\.v4\.", "ld.global.cs.v4."),
    "csst": (r"st\.global\.(v[24])\.", r"st.global.cs.\1."),
    "nast": (r"st\.global\.(v[24])\.", r"st.global.L1::no_allocate.\1."),
}


def rewrite(ptx, mode):
    for name, (pattern, replacement) in REWRITES.items():
        if name in mode:
            ptx = re.sub(pattern, replacement, ptx)
    return ptx


def assemble(ptx):
    ptxas = os.environ.get("MEGAC_PTXAS", "/usr/local/cuda/bin/ptxas")
    with tempfile.TemporaryDirectory() as d:
        with open(f"{d}/k.ptx", "w") as f:
            f.write(ptx)
        r = subprocess.run([ptxas, "-v", "-arch=sm_90a", "-O3", f"{d}/k.ptx", "-o", f"{d}/k.cubin"],
                           capture_output=True, text=True)
        if r.returncode:
            sys.exit("ptxas failed:\n" + r.stderr[-800:])
        with open(f"{d}/k.cubin", "rb") as f:
            return f.read()


def rewrite_bundle(src_path, dst_path, rewrite_ptx):
    """Writes to dst_path the bundle at src_path with its sm_90a PTX passed through rewrite_ptx (str -> str) and
    its sm_90a cubin assembled from the result; the other targets' images as they were."""
    b = bundle.read_file(src_path)
    ptx = rewrite_ptx(b.image("sm_90a", "ptx").decode())
    cubin = assemble(ptx)
    for image in b.manifest["images"]:
        if image["target"] == "sm_90a" and image["kind"] in ("cubin", "ptx"):
            b.blobs[image["section"] - 1] = cubin if image["kind"] == "cubin" else ptx.encode()
    with open(dst_path, "wb") as f:
        f.write(bundle.write_bytes(b.manifest, b.blobs))


def main():
    src, dst, mode, names = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4].split(",")
    os.makedirs(dst, exist_ok=True)
    for name in names:
        rewrite_bundle(f"{src}/{name}.mgb", f"{dst}/{name}.mgb", lambda ptx: rewrite(ptx, mode))
        print(name, mode, "ok")


if __name__ == "__main__":
    main()
