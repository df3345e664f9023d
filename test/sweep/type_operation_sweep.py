#!/usr/bin/env python3
"""Compiles grids of small kernels, element types by operations, through the whole pipeline (megac with ptxas,
sm_90a and sm_100a): each must either compile and assemble, or be refused with a located error of the language
(`file:line:col: error: ...`). Anything else is a compiler bug: a crash, an op verifier's or LLVM's message, a
translation failure, ptxas refusing megac's PTX.

Such grids found what the lit tests had not: `*i1` tiles failing LLVM translation or emitting PTX's nonexistent
`st.global.b1`, FP8 -> bf16 casts failing ("DestTy too small for FPExt"), `expand_dims` of a scalar and f64 -> FP8
reaching an op verifier, and a dot too small for its warps crashing the layout pass when its result had users.

    type_operation_sweep.py --megac build/compiler/tools/megac [--jobs 2]
"""
import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile

TYPES = "i1 i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64 f8e4m3 f8e5m2 f4e2m1x2 e8m0".split()
NUMERIC = "i8 i16 i32 i64 u8 u16 u32 u64 f16 bf16 f32 f64".split()
# Markers of a message that is not the language's own error.
INTERNAL = ("internal", "ptxas", "translation", "compiler bug", "'tile.", "'llvm.", "'arith.", "'math.", "'scf.",
            " op ", "Assertion", "LLVM ERROR")


def copies():
    for t in TYPES:
        for warps, n in ((1, 32), (1, 256), (4, 1024)):
            yield f"copy {t} {warps}x{n}", f"""@num_warps({warps})
kernel k(x: *{t}[{n}], y: *{t}[{n}], s: *{t}, n: i32) {{
    let offs = arange(0, {n});
    let m = offs < n;
    store(y + offs, load(x + offs));
    store(y + offs, where(m, load(x + offs, m), load(y + offs)), m);
    store(s, load(x + 3));
    store(y + offs, load(x + offs, m), m, streaming = 1);
}}
"""


def casts():
    for a in TYPES:
        for b in TYPES:
            yield f"cast {a} -> {b}", f"""@num_warps(4)
kernel k(x: *{a}[512], y: *{b}[512], n: i32) {{
    let offs = arange(0, 512);
    store(y + offs, load(x + offs, offs < n) as {b}, offs < n);
}}
"""


def pointer_casts():
    for t in TYPES:
        yield f"bitcast *f32 -> *{t}", f"""@num_warps(1)
kernel k(x: *f32[64], y: *{t}[64]) {{
    store(y + arange(0, 32), load(bitcast(x, *{t}) + arange(0, 32)));
}}
"""


def reductions_and_moves():
    for t in NUMERIC + ["f8e4m3", "i1"]:
        for warps in (1, 4):
            for red in ("sum", "max", "min", "argmax"):
                yield f"{red} {t} {warps}w", f"""@num_warps({warps})
kernel k(x: *{t}[64, 32], y: *i32[64]) {{
    let t = load(x + arange(0, 64)[:, None] * 32 + arange(0, 32)[None, :]);
    store(y + arange(0, 64), {red}(t, axis = 1) as i32);
}}
"""
            yield f"moves {t} {warps}w", f"""@num_warps({warps})
kernel k(x: *{t}[16, 64], y: *{t}[1024], z: *{t}[64, 16], s: *{t}) {{
    let t = load(x + arange(0, 16)[:, None] * 64 + arange(0, 64)[None, :]);
    store(y + arange(0, 1024), reshape(t, 1024));
    store(z + arange(0, 64)[:, None] * 16 + arange(0, 16)[None, :], trans(t));
    let c = with_layout(t, spt0 = 1, spt1 = 1, tpw0 = 32, tpw1 = 1, wpc0 = {warps}, wpc1 = 1);
    store(x + arange(0, 16)[:, None] * 64 + arange(0, 64)[None, :], c);
    store(y + arange(0, 64), broadcast_to(expand_dims(load(s), 0), 64));
}}
"""


def dots():
    for m, n, k in ((16, 8, 16), (16, 16, 16), (32, 32, 32), (64, 64, 32), (64, 8, 16), (32, 16, 64)):
        for warps in (1, 2, 4, 8):
            yield f"dot {m}x{n}x{k} {warps}w", f"""@num_warps({warps})
kernel k(a: *bf16[{m}, {k}], b: *bf16[{k}, {n}], c: *f32[{m}, {n}]) {{
    let ta = load(a + arange(0, {m})[:, None] * {k} + arange(0, {k})[None, :]);
    let tb = load(b + arange(0, {k})[:, None] * {n} + arange(0, {n})[None, :]);
    let acc = dot(ta, tb, dot(ta, tb));
    store(c + arange(0, {m})[:, None] * {n} + arange(0, {n})[None, :], acc + sum(acc, axis = 0)[None, :]);
}}
"""


def quantization():
    for rows, cols in ((1, 16), (1, 128), (8, 128), (2, 1024)):
        for warps in (1, 4):
            offs = f"arange(0, {rows})[:, None] * {cols} + arange(0, {cols})[None, :]"
            blocks = cols // 16
            yield f"nvfp4 {rows}x{cols} {warps}w", f"""@num_warps({warps})
kernel k(x: *bf16[{rows}, {cols}], q: *f4e2m1x2[{rows}, {cols // 2}], sf: *f8e4m3[{rows}, {blocks}], gs: *f32) {{
    let t = load(x + {offs}) as f32;
    store(q + arange(0, {rows})[:, None] * {cols // 2} + arange(0, {cols // 2})[None, :], quantize_nvfp4(t, load(gs)));
    store(sf + arange(0, {rows})[:, None] * {blocks} + arange(0, {blocks})[None, :], nvfp4_scales(t, load(gs)));
    store(x + {offs}, dequantize_nvfp4(quantize_nvfp4(t, load(gs)), nvfp4_scales(t, load(gs)), load(gs)) as bf16);
}}
"""
            yield f"fp8 {rows}x{cols} {warps}w", f"""@num_warps({warps})
kernel k(x: *bf16[{rows}, {cols}], q: *f8e5m2[{rows}, {cols}], s: *f32) {{
    let t = load(x + {offs}) as f32;
    store(q + {offs}, quantize_fp8(t, load(s), f8e5m2));
    store(x + {offs}, dequantize_fp8(load(q + {offs}), load(s)) as bf16);
}}
"""


def check(megac, workdir, index, name, source):
    path = os.path.join(workdir, f"k{index}.mega")
    with open(path, "w") as f:
        f.write(source)
    r = subprocess.run([megac, path, "--target", "sm_90a", "--target", "sm_100a"], capture_output=True, text=True)
    if r.returncode == 0:
        return name, "ok", ""
    text = (r.stderr + r.stdout).strip()
    located = any(line.startswith(path + ":") and ": error: " in line for line in text.splitlines())
    if r.returncode == 1 and located and not any(m in text for m in INTERNAL):
        return name, "refused", ""
    return name, "BUG", f"exit {r.returncode}: " + "\n    ".join(text.splitlines()[:6]) + "\n" + source


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--megac", required=True)
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    opts = p.parse_args()
    cases = [c for gen in (copies, casts, pointer_casts, reductions_and_moves, dots, quantization) for c in gen()]
    counts = {"ok": 0, "refused": 0, "BUG": 0}
    with tempfile.TemporaryDirectory() as workdir, concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        for name, outcome, detail in pool.map(lambda a: check(opts.megac, workdir, *a),
                                              [(i, n, s) for i, (n, s) in enumerate(cases)]):
            counts[outcome] += 1
            if outcome == "BUG":
                print(f"BUG {name}: {detail}")
    print(f"type_operation_sweep: {len(cases)} kernels: {counts['ok']} compiled, {counts['refused']} refused with "
          f"the language's error, {counts['BUG']} compiler bugs")
    return 1 if counts["BUG"] else 0


if __name__ == "__main__":
    sys.exit(main())
