"""megac.stock.route (the route slot's PyTorch fallback and the benchmark's torch column) against the reference at
every listed shape, three seeds each, on bf16 logits whose softmax has exact ties: the spec breaks ties by the
lower expert index, which torch.topk did not (the benchmark's check caught it: results/benchmarks_fff3627.md).
GPU machine, torch only (no megac runtime needed):  python3 test/gpu/check_stock_route.py > out.json"""
import json, sys, torch
sys.path.insert(0, "python")
from megac import stock, reference
k = reference.get("route")
results = []
for shape in k.shapes:
    for seed in (1, 2, 3):
        args = k.inputs(**shape, device="cuda", seed=seed)
        ref = k.reference(args)
        for n in ("ids", "w"):
            args[n].fill_(-7)
        stock.route(args)
        from megac.reference.common import run_checks
        reps = run_checks(k.checks, args, ref)
        ok = all(r.ok for r in reps)
        results.append({"shape": shape, "seed": seed, "ok": ok, "detail": [str(r) for r in reps if not r.ok][:1]})
bad = [r for r in results if not r["ok"]]
print(json.dumps({"cases": len(results), "failed": len(bad), "first_failures": bad[:3]}, default=str))
