#!/usr/bin/env bash
# Runs on the GPU machine (no MLIR there): builds the runtime and its Python
# extension, runs the runtime's tests (GPU ones included), the launch
# overhead benchmark and the kernel correctness suite (every listed shape and
# every benchmarked one not among them) on the bundles that scripts/build.sh
# compiled into out/bundles/. Everything lands in $OUT.
#   usage: MEGAC_COMMIT=<sha> scripts/gpu-check.sh [kernels,comma,list]
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/out/gpu}
mkdir -p "$out"
kernels=${1:-}
scripts/gpu-build-runtime.sh "$out" || exit 1
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv > "$out/device.txt"
echo "== runtime tests"
ctest --test-dir build-gpu --output-on-failure > "$out/runtime_tests.log" 2>&1
tail -3 "$out/runtime_tests.log"
echo "== launch overhead"
build-gpu/runtime/megac-launch-bench > "$out/launch_overhead.json" 2>&1
cat "$out/launch_overhead.json"
echo "== early launch"
PYTHONPATH=build-gpu/python python3 test/gpu/run_early_launch.py --bundle out/bundles/early_launch.mgb \
  --out "$out" 2>&1 | tee "$out/early_launch.log"
echo "== in-place updates through replicated layouts"
PYTHONPATH=build-gpu/python python3 test/gpu/run_replicas.py --bundle out/bundles/replicas.mgb \
  --out "$out" 2>&1 | tee "$out/replicas.log" | tail -4
echo "== streaming stores"
PYTHONPATH=build-gpu/python python3 test/gpu/run_streaming.py --bundle out/bundles/streaming.mgb \
  --out "$out" 2>&1 | tee "$out/streaming.log" | tail -11
echo "== language semantics"
PYTHONPATH=build-gpu/python python3 test/gpu/run_semantics.py --bundle out/bundles/semantics.mgb \
  --out "$out" 2>&1 | tee "$out/semantics.log" | tail -14
echo "== kernels"
PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1 python3 test/gpu/run_gpu_tests.py \
  --bundles out/bundles --out "$out" --with-bench-shapes ${kernels:+--kernels "$kernels"} 2>&1 \
  | tee "$out/gpu_tests.log" | tail -40
