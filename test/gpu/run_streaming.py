#!/usr/bin/env python3
"""Streaming stores on the GPU (test/gpu/streaming.mega): `store(..., streaming = 1)` lowers every store to one
`st.global.cs` in inline PTX (16-, 8- and 4-byte vectors, 2- and 1-byte values, predicated where masked, a scalar
by one thread, an in-place update through replicated tiles). Each kernel writes its input converted to the
output's type; every byte must equal torch's conversion, and bytes past n must stay untouched.

    PYTHONPATH=build-gpu/python python3 test/gpu/run_streaming.py --bundle out/bundles/streaming.mgb [--out DIR]
Exit status 0 when every byte is right; writes DIR/streaming.json.
"""
import sys

import bundle_check

RAGGED_N = 1024 * 37 + 333   # not a multiple of the 8-value runs: masked runs, the vector-or-elements branch
WIDTHS_N = 128 * 64
REPLICAS_N, REPLICAS_LAUNCHES = 64 * 1024, 5
POISON = 0x5A


def run(bundle_path):
    """({kernel: {"wrong": bytes not right, "of": bytes}}, failures)."""
    import torch
    import megac
    mod = megac.load(bundle_path)
    g = torch.Generator(device="cuda").manual_seed(7)

    def poisoned(n, dtype):
        t = torch.empty(n + 64, dtype=dtype, device="cuda")  # 64 elements past n: must stay poisoned
        t.view(torch.uint8).fill_(POISON)
        return t

    def wrong_bytes(got, want, n):
        body = (got[:n].view(torch.uint8) != want.view(torch.uint8)).sum()
        tail = (got[n:].view(torch.uint8) != POISON).sum()
        return int(body + tail), int(got.numel() * got.element_size())

    results = {}
    x = torch.randn(RAGGED_N, device="cuda", generator=g) * 8
    f, h, q = poisoned(RAGGED_N, torch.float32), poisoned(RAGGED_N, torch.bfloat16), \
        poisoned(RAGGED_N, torch.float8_e4m3fn)
    mod.streaming_ragged(x, f[:RAGGED_N], h[:RAGGED_N], q[:RAGGED_N], RAGGED_N)
    torch.cuda.synchronize()
    for name, got, want in (("ragged f32", f, x), ("ragged bf16", h, x.bfloat16()),
                            ("ragged f8e4m3", q, x.clamp(-448, 448).to(torch.float8_e4m3fn))):
        w, of = wrong_bytes(got, want, RAGGED_N)
        results[name] = {"wrong": w, "of": of}

    x = (torch.randn(WIDTHS_N, device="cuda", generator=g) * 100).round()  # integral: exact in every type
    outs = {"f64": poisoned(WIDTHS_N, torch.float64), "i64": poisoned(WIDTHS_N, torch.int64),
            "i32": poisoned(WIDTHS_N, torch.int32), "f16": poisoned(WIDTHS_N, torch.float16),
            "f8e5m2": poisoned(WIDTHS_N, torch.float8_e5m2)}
    s = poisoned(1, torch.float32)
    mod.streaming_widths(x, *(t[:WIDTHS_N] for t in outs.values()), s[0], WIDTHS_N)
    torch.cuda.synchronize()
    wants = {"f64": x.double(), "i64": x.long(), "i32": x.int(), "f16": x.half(), "f8e5m2": x.to(torch.float8_e5m2)}
    for k, t in outs.items():
        w, of = wrong_bytes(t, wants[k], WIDTHS_N)
        results[f"widths {k}"] = {"wrong": w, "of": of}
    # The block sum: every value is an integer below 2^24 in magnitude, so any order of the additions is exact.
    w, of = wrong_bytes(s, x[:128].sum().reshape(1), 1)
    results["widths scalar sum"] = {"wrong": w, "of": of}

    r = torch.zeros(REPLICAS_N, device="cuda")
    for _ in range(REPLICAS_LAUNCHES):
        mod.streaming_replicas(r, REPLICAS_N)
    torch.cuda.synchronize()
    results["replicas in place"] = {"wrong": int((r != REPLICAS_LAUNCHES).sum()), "of": REPLICAS_N}
    return results, bundle_check.count_lines(results, "not right")[1]


def report(results):
    """One line a check: how many of its bytes (elements, in place) are not right."""
    return bundle_check.count_lines(results, "not right")[0]


if __name__ == "__main__":
    sys.exit(bundle_check.main(__doc__, run, report, "streaming.json"))
