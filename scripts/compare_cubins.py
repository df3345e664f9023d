#!/usr/bin/env python3
"""Whether two megacs make the same GPU code: every kernel of kernels-dsl/ and test/gpu/, on every target, compiled
to a cubin (ptxas) by each, and the cubins' sections that the GPU runs or reads compared byte for byte: each kernel's
machine code (.text.KERNEL), its attributes (.nv.info, .nv.info.KERNEL: registers, parameters, barriers), its
constant bank (.nv.constant0.KERNEL) and its shared memory (.nv.shared.KERNEL, a size). A change that alters the
PTX but none of these (register numbers, the order of entries) leaves what runs on the GPU as it was, so a GPU
result measured on the one stands for the other. Exit 1 if any section differs or a compile fails.
  usage: scripts/compare_cubins.py --baseline OTHER_MEGAC [--megac build/compiler/tools/megac] [--jobs N]
         scripts/compare_cubins.py --env VAR=VALUE        (the same megac with and without the variable)
"""
import argparse
import concurrent.futures
import os
import struct
import subprocess
import sys
import tempfile

from find_pass_skips import ROOT, TARGETS, sources  # the same kernels and targets the PTX identities compare

COMPARED = (".text.", ".nv.info", ".nv.constant0.", ".nv.shared.")
SHT_NOBITS = 8


def sections(path):
    """{name: bytes} of an ELF64 file's compared sections (a section without bits: its size)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF":
        raise ValueError(f"{path}: not an ELF file")
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    headers = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = headers[shstrndx][4]
    out = {}
    for name_at, kind, _, _, offset, size, *_ in headers:
        name = data[names + name_at:data.index(b"\0", names + name_at)].decode()
        if name.startswith(COMPARED):
            out[name] = size if kind == SHT_NOBITS else data[offset:offset + size]
    return out


def cubin(megac, source, target, env, out):
    r = subprocess.run([megac, source, "--target", target, "--emit", "cubin", "-o", out],
                       capture_output=True, text=True, env=env)
    return None if r.returncode == 0 and os.path.exists(out) else r.stderr.strip()


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--megac", default=os.path.join(ROOT, "build/compiler/tools/megac"))
    p.add_argument("--baseline", help="the other megac")
    p.add_argument("--env", help="VAR=VALUE: the same megac with the variable set, against without it")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    a = p.parse_args()
    if bool(a.baseline) == bool(a.env):
        p.error("give one of --baseline and --env")
    plain = dict(os.environ)
    sides = {"new": (a.megac, plain)}
    if a.baseline:
        sides["old"] = (a.baseline, plain)
    else:
        var, _, value = a.env.partition("=")
        plain.pop(var, None)  # without it, whatever the caller's environment holds
        sides["old"] = (a.megac, {**plain, var: value})
    files = sources()
    with tempfile.TemporaryDirectory() as tmp, concurrent.futures.ThreadPoolExecutor(a.jobs) as pool:
        jobs = {}
        for source in files:
            for target in TARGETS:
                for side, (megac, env) in sides.items():
                    out = os.path.join(tmp, f"{side}.{os.path.relpath(source, ROOT).replace(os.sep, '_')}.{target}.cubin")
                    jobs[(source, target, side)] = (pool.submit(cubin, megac, source, target, env, out), out)
        failed = differing = kernels = 0
        for source in files:
            for target in TARGETS:
                name = f"{os.path.relpath(source, ROOT)} ({target})"
                errors = [jobs[(source, target, s)][0].result() for s in ("new", "old")]
                if any(errors):
                    print(f"{name}: a compile failed: {next(e for e in errors if e)}")
                    failed += 1
                    continue
                new, old = (sections(jobs[(source, target, s)][1]) for s in ("new", "old"))
                kernels += sum(1 for k in new if k.startswith(".text."))
                bad = sorted(k for k in set(new) | set(old) if new.get(k) != old.get(k))
                if bad:
                    print(f"{name}: differs in {', '.join(bad)}")
                    differing += 1
    print(f"{len(files) * len(TARGETS)} cubins of {len(files)} sources on {len(TARGETS)} targets, "
          f"{kernels} kernels' code: {differing} differ, {failed} failed to compile")
    return 1 if differing or failed else 0


if __name__ == "__main__":
    sys.exit(main())
