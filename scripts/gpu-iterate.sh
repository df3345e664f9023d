#!/usr/bin/env bash
# One GPU call for a round of work, on the GPU machine, with out/bundles/ compiled here:
#   1. scripts/gpu-check.sh: the runtime's build and tests, and every kernel at every shape;
#   2. the pytest entry point of the same suite, on the kernels named by PYTEST_K (a pytest -k expression);
#   3. test/gpu/run_qwen35_slots.py: every slot, kernel and stock path, also inside a CUDA graph;
#   4. bench/run_bench.py on the kernels named in $1 (no torch.compile column: it is the slow part);
#   5. the sm_90a SASS of the kernels named in $2, for instruction counts.
# Everything lands in one tarball, $OUT/iterate.tgz (the device returns few files).
#   usage: MEGAC_COMMIT=<sha> [PYTEST_K=expr] scripts/gpu-iterate.sh bench,kernels sass,kernels
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
final=${OUT:-$root/out}
work=$(mktemp -d)
export PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1
echo "== check"
OUT=$work/check scripts/gpu-check.sh > "$work/check.txt" 2>&1
tail -25 "$work/check.txt"
echo "== pytest (${PYTEST_K:-gdn_core})"
MEGAC_BUNDLES=out/bundles MEGAC_PYTHON_BUILD=build-gpu/python python3 -m pytest -q python/tests/test_kernels_gpu.py -k "${PYTEST_K:-gdn_core}" \
  > "$work/pytest.txt" 2>&1
tail -3 "$work/pytest.txt"
echo "== slots"
python3 test/gpu/run_qwen35_slots.py --bundles out/bundles --out "$work/slots" > "$work/slots.txt" 2>&1
tail -5 "$work/slots.txt"
if [ -n "${1:-}" ]; then
  echo "== bench $1"
  python3 bench/run_bench.py --bundles out/bundles --out "$work/bench" --kernels "$1" --no-compile \
    --budget-s "${BENCH_BUDGET_S:-200}" > "$work/bench.txt" 2>&1
  tail -5 "$work/bench.txt"
fi
if [ -n "${2:-}" ]; then
  mkdir -p "$work/sass"
  for k in ${2//,/ }; do
    python3 -c 'import sys, megac.bundle as b
open(sys.argv[2], "wb").write(b.read_file(f"out/bundles/{sys.argv[1]}.mgb").image("sm_90a", "cubin"))' \
      "$k" "$work/sass/$k.cubin"
    cuobjdump --dump-sass "$work/sass/$k.cubin" > "$work/sass/$k.sass" 2>&1 && rm "$work/sass/$k.cubin"
  done
fi
tar czf "$final/iterate.tgz" -C "$work" .
