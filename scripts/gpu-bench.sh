#!/usr/bin/env bash
# Runs on the GPU machine after scripts/gpu-check.sh built build-gpu/ (and
# scripts/build.sh compiled the bundles into out/bundles/): the launch
# overhead benchmark, then bench/run_bench.py (megac vs Triton vs torch vs
# torch.compile). Everything lands in $OUT (default out/bench), four files:
#   launch_overhead.json  host cost per launch (megac, raw cuLaunchKernel, difference, arg checks)
#   bench_results.json    raw numbers of run_bench.py
#   benchmarks.md         its tables, for docs/benchmarks.md
#   bench.log             progress and errors of both
# usage: MEGAC_COMMIT=<sha> [MEGAC_COMPILE_MS=file.json] [BUNDLES=out/bundles] \
#          scripts/gpu-bench.sh [run_bench.py options, e.g. --quick or --kernels hop,route]
# Exit status: run_bench.py's (0 all ran and passed their checks; 1 errors,
# failed checks or shapes skipped for time), or 3 when the launch benchmark failed.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/out/bench}
bundles=${BUNDLES:-out/bundles}
mkdir -p "$out"
log="$out/bench.log"
: > "$log"
[ -d build-gpu ] || { echo "gpu-bench: build-gpu/ missing: run scripts/gpu-check.sh first" | tee -a "$log"; exit 2; }
# The launch benchmark's source may be newer than gpu-check's build.
ninja -C build-gpu megac-launch-bench >> "$log" 2>&1 || { echo "gpu-bench: building megac-launch-bench failed" | tee -a "$log"; exit 3; }
status=0
echo "== launch overhead" | tee -a "$log"
{
  echo "["
  build-gpu/runtime/megac-launch-bench -n 400 -b 256 2>> "$log" || status=3
  if [ -f "$bundles/vector_add.mgb" ]; then
    echo ","
    build-gpu/runtime/megac-launch-bench -n 400 -b 256 "$bundles/vector_add.mgb" vector_add n=1048576 2>> "$log" \
      || echo '{"kernel": "vector_add", "error": "see bench.log"}'
  fi
  echo "]"
} > "$out/launch_overhead.json"
cat "$out/launch_overhead.json"
[ $status -eq 0 ] || echo "gpu-bench: megac-launch-bench failed (see $log)" | tee -a "$log"
echo "== run_bench" | tee -a "$log"
compile_ms=()
[ -n "${MEGAC_COMPILE_MS:-}" ] && compile_ms=(--megac-compile-ms "$MEGAC_COMPILE_MS")
PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 python3 bench/run_bench.py --bundles "$bundles" --out "$out" \
  "${compile_ms[@]}" "$@" 2>&1 | tee -a "$log" | grep -v '^|' | tail -60
rc=${PIPESTATUS[0]}
echo "== done: $out (run_bench exit $rc)" | tee -a "$log"
[ $status -ne 0 ] && exit $status
exit "$rc"
