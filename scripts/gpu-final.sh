#!/usr/bin/env bash
# The GPU evidence beyond correctness, on the GPU machine after scripts/gpu-check.sh built build-gpu/:
# the slot contract inside CUDA graphs, the sm_103a SASS of nvfp4_quant (hardware E2M1 conversion), and
# compute-sanitizer memcheck (every variant of every kernel, once, and again every variant the pool's other card
# launches), initcheck, synccheck (every variant of every kernel, once) and racecheck (every
# variant of the kernels whose manifests declare shared memory: today hop*, draft_fin*, softmax*,
# reduce_cols, route*, attention and matmul), the exhaustive checks of silu's and
# sigmoid's divisions (every f32, exact and @fast_math), and that of gdn_norm_gate_fp8's silu (every f32; the
# kernel on z in [-120, 120]).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/out/gpu}
mkdir -p "$out"
export PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1
echo "== slots"
python3 test/gpu/run_slot_test.py --bundles out/bundles --out "$out" 2>&1 | tail -12
echo "== sm_103a SASS of nvfp4_quant"
python3 -c 'import megac.bundle as b
open("/tmp/nvfp4_sm103a.cubin", "wb").write(b.read_file("out/bundles/nvfp4_quant.mgb").image("sm_103a", "cubin"))'
cuobjdump --dump-sass /tmp/nvfp4_sm103a.cubin > "$out/nvfp4_quant_sm103a.sass" 2>&1
grep -E "F2FP.*E2M1|E2M1" "$out/nvfp4_quant_sm103a.sass" | head -4
# sanitize TOOL SECONDS RUN_GPU_TESTS_ARGS...: the correctness suite under compute-sanitizer TOOL, its log in
# $out/$LOG.log (LOG defaults to TOOL), its exit status and summary printed.
sanitize() {
  local tool=$1 limit=$2 log=${LOG:-$1}
  shift 2
  timeout "$limit" compute-sanitizer --tool "$tool" --print-limit 5 python3 test/gpu/run_gpu_tests.py \
    --bundles out/bundles --out "$out/$log" "$@" > "$out/$log.log" 2>&1
  echo "$log exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/$log.log"
}
# Each tool at every variant the listed and benchmarked shapes reach, each once at its smallest shape, in each
# launch mode (run_gpu_tests.py --every-variant: 82 shapes where one a kernel is 32; a kernel's wide, capped or
# many-CTA variants run only at larger shapes, which one shape a kernel never reaches). memcheck: bad accesses;
# initcheck: reads of global memory nothing wrote (a partial no split wrote, a tail past the inputs); synccheck:
# barriers misused; racecheck: shared-memory hazards. On an H100 at 6182092: initcheck 9 s and synccheck 6 s
# (82 shapes each), racecheck 38 s (39), memcheck 7 s for four kernels' 24 (results/sanitizers_every_variant_6182092.md);
# the limits leave room for slower machines. The kernels' table: memcheck's.
echo "== memcheck (every variant)"
sanitize memcheck 300 --with-bench-shapes --every-variant
grep -E "^kernel|ran " "$out/memcheck.log" | head -34
# The variants only the pool's other card launches (an H100's on an H200, an H200's on an H100: shared_act_quant's
# r2c512 or r1c512), chosen as that card would (run_gpu_tests.py --variants-as) and run on this one, under memcheck,
# which checks their values too.
other=$(python3 -c 'import torch; print("132,50" if torch.cuda.get_device_properties(0).L2_cache_size >> 20 >= 55 else "132,60")')
echo "== memcheck (every variant a card of $other launches)"
LOG=memcheck_other sanitize memcheck 300 --with-bench-shapes --every-variant --variants-as "$other"
grep -E "^results:" "$out/memcheck_other.log"
for tool in initcheck synccheck; do
  echo "== $tool (every variant)"
  sanitize $tool 150 --with-bench-shapes --every-variant
done
echo "== racecheck (every variant of the kernels with shared memory)"
# The kernels are read from the bundles' manifests (shared_bytes), so a kernel given shared memory later is
# checked too.
sanitize racecheck 200 --with-bench-shapes --every-variant --shared-memory-only
grep -m1 "^kernels declaring shared memory" "$out/racecheck.log"
grep -E "ran " "$out/racecheck.log" | head -20
echo "== exhaustive checks: silu and sigmoid, every f32"
python3 test/gpu/check_logistic_quotient.py --bundle out/bundles/logistic_all.mgb \
  --out "$out/logistic_quotient.json" > "$out/logistic_quotient.log" 2>&1
echo "logistic quotient exit $?"
python3 test/gpu/check_fast_logistic.py --bundle out/bundles/fast_logistic_all.mgb \
  --out "$out/fast_logistic.json" > "$out/fast_logistic.log" 2>&1
echo "fast logistic exit $?"
python3 test/gpu/check_silu_split.py --bundle out/bundles/silu_split_all.mgb --kernels out/bundles \
  --out "$out/silu_split.json" > "$out/silu_split.log" 2>&1
echo "silu_split exit $?"
