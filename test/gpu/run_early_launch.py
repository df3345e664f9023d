#!/usr/bin/env python3
"""Early launch on the GPU: does an @early_launch kernel start before the kernel ahead of it ends, and does its
wait_prior_kernel() hold it until that kernel's writes are visible? (test/gpu/early_launch.mega)

    PYTHONPATH=build-gpu/python python3 test/gpu/run_early_launch.py --bundle out/bundles/early_launch.mgb [--out DIR]

el_fill writes `value` over a 0.5 GiB buffer (about 0.1 ms) and el_probe reads the buffer's last element before
and after its wait. Each trial zeroes the buffer, then launches el_fill and el_probe back to back, on a stream
and as a captured CUDA graph, with early launch on and off:
  - after the wait the probe must see the new value, always (the wait orders);
  - with early launch off, before the wait too (the launch waited for el_fill to end);
  - with it on, before the wait it sees the old value in most trials: the probe ran while el_fill still
    wrote, which is what early launch is for (a launch that never overlaps gains nothing).
Exit status 0 when all three hold; writes DIR/early_launch.json.
"""
import sys

import bundle_check

TRIALS = 20
N = 135168 * 1000  # el_fill's n: a multiple of its CTAS * BLOCK


def run(bundle_path, trials=TRIALS):
    """{mode: {"after_ok", "before_new", "trials"}} for modes stream/graph x early/plain, and the failures."""
    import torch
    import megac
    out = torch.zeros(N, dtype=torch.int32, device="cuda")
    seen = torch.zeros(2, dtype=torch.int32, device="cuda")
    results, failures = {}, []
    for early in (True, False):
        mod = megac.load(bundle_path, early_launch=early)

        def pair(v):
            mod.el_fill(out, N, v)
            mod.el_probe(out, seen, N)

        for how in ("stream", "graph"):
            name = f"{how}, early launch {'on' if early else 'off'}"
            graph = None
            if how == "graph":
                graph = torch.cuda.CUDAGraph()
                s = torch.cuda.Stream()
                s.wait_stream(torch.cuda.current_stream())
                with torch.cuda.stream(s):
                    pair(7)  # warm-up outside the capture
                torch.cuda.current_stream().wait_stream(s)
                with torch.cuda.graph(graph):
                    pair(7)
            after_ok = before_new = 0
            for t in range(trials):
                v = 7 if graph else 100 + t
                out.zero_()
                seen.fill_(-1)
                if graph:
                    graph.replay()
                else:
                    pair(v)
                torch.cuda.synchronize()
                before, after = seen.tolist()
                after_ok += after == v
                before_new += before == v
            results[name] = {"trials": trials, "after_ok": after_ok, "before_new": before_new}
            if after_ok != trials:
                failures.append(f"{name}: after the wait the probe saw the new value in {after_ok} of {trials}")
            if not early and before_new != trials:
                failures.append(f"{name}: launched plainly, the probe started before el_fill ended in "
                                f"{trials - before_new} of {trials}")
            if early and before_new > trials // 2:
                failures.append(f"{name}: the probe overlapped el_fill in only {trials - before_new} of {trials} "
                                f"(early launch not in effect?)")
    return results, failures


def report(results):
    """One line a mode: in how many trials the probe saw the new value after and before its wait."""
    return [f"{name}: after the wait new {r['after_ok']}/{r['trials']}, before the wait new "
            f"{r['before_new']}/{r['trials']}" for name, r in results.items()]


if __name__ == "__main__":
    sys.exit(bundle_check.main(__doc__, run, report, "early_launch.json"))
