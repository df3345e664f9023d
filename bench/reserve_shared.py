#!/usr/bin/env python3
"""Exploratory: bundles whose kernels launch with more dynamic shared memory than they use, to cap the CTAs an SM
holds at once (occupancy) without touching their code.

usage (build machine): PYTHONPATH=build/python python3 bench/reserve_shared.py SRC_DIR DST_DIR BUNDLE:KERNEL=BYTES ...
Each named kernel's manifest `shared_bytes` (what the runtime passes as the launch's dynamic shared memory) becomes
max(its own, BYTES), for all its variants; the code and every other kernel stay as they were. An SM of an H200
holds 228 KB of shared memory and reserves 1 KB a CTA, so BYTES caps a kernel at floor(233472 / (BYTES + 1024))
CTAs an SM (48 KB at most: more needs a function attribute the runtime does not set). Time the result with
`bench/order_probe.py --alt NAME=DST_DIR`. Used in results/tuning_occupancy_ff1c8f2.md.
"""
import os
import sys

import megac.bundle as bundle


def main():
    src, dst, specs = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(dst, exist_ok=True)
    by_file = {}
    for spec in specs:
        target, nbytes = spec.split("=")
        file, kernel = target.split(":")
        if int(nbytes) > 48 * 1024:
            sys.exit(f"{spec}: more than 48 KB needs cuFuncSetAttribute, which the runtime does not call")
        by_file.setdefault(file, {})[kernel] = int(nbytes)
    for file, kernels in by_file.items():
        b = bundle.read_file(f"{src}/{file}.mgb")
        for k in b.manifest["kernels"]:
            if k["name"] in kernels:
                k["shared_bytes"] = max(k["shared_bytes"], kernels.pop(k["name"]))
                print(f"{file}:{k['name']} shared_bytes {k['shared_bytes']}")
        if kernels:
            sys.exit(f"{file}.mgb has no kernel {', '.join(kernels)}")
        with open(f"{dst}/{file}.mgb", "wb") as f:
            f.write(bundle.write_bytes(b.manifest, b.blobs))


if __name__ == "__main__":
    main()
