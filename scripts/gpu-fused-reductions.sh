#!/usr/bin/env bash
# On the GPU machine: @fused_reductions measured against the shipped kernels, in one call. Needs out/bundles
# (./scripts/build.sh) and out/fused (scripts/fused-reductions-bundles.sh) carried.
#   1. the runtime and its Python extension (scripts/gpu-build-runtime.sh);
#   2. correctness of the fused bundles at every listed shape (test/gpu/run_gpu_tests.py);
#   3. the semantics checks of @fused_reductions (sem_fused, sem_fused_floats against sem_plain_floats, byte for
#      byte) from out/bundles/semantics.mgb;
#   4. bench/order_probe.py: shipped and fused in one process, each also launched early, forward and reversed;
#   5. bench/cuda/hot_lines.cu, the fifty-fifth session's probe of gdn_core's launch at B = 1, whose modes 14-18
#      (the reductions' code fetched before the wait, one reduce-scatter in CUDA) never ran (~10 s).
# Writes under $OUT (default out/): fused_check/, fused_semantics/, fused_probe/ and fused.txt.
#   usage: MEGAC_COMMIT=<sha> scripts/gpu-fused-reductions.sh [KERNELS]
#          (default: gdn_core,gdn_verify,group_quant,group_quant_ue8m0,reduce_rows)
#   FUSED_CASES="kernel:NAME=INT,... ..." times only those cases; FUSED_QUICK=1 leaves out step 2 (the probe still
#   checks each column against the reference at every case it times) and step 5: for a short call.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/out}
kernels=${1:-gdn_core,gdn_verify,group_quant,group_quant_ue8m0,reduce_rows}
export PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1
{
  echo "== commit ${MEGAC_COMMIT:-unknown}; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  scripts/gpu-build-runtime.sh "$out/fused_build" || exit 1
  if [ "${FUSED_QUICK:-0}" != 1 ]; then
    echo "== correctness of out/fused ($kernels)"
    python3 test/gpu/run_gpu_tests.py --bundles out/fused --out "$out/fused_check" --kernels "$kernels" | tail -8
  fi
  echo "== semantics"
  python3 test/gpu/run_semantics.py --bundle out/bundles/semantics.mgb --out "$out/fused_semantics" | grep -E "fused|floats|seed"
  echo "== order probe"
  cases="gdn_core:B=1,HV=16,HK=4 gdn_core:B=1,HV=8,HK=2 gdn_core:B=8,HV=16,HK=4 gdn_core:B=32,HV=16,HK=4"
  cases="$cases gdn_core:B=128,HV=16,HK=4 gdn_core:B=256,HV=16,HK=4"
  cases="$cases gdn_verify:B=1,T=4,HV=8,HK=2 gdn_verify:B=8,T=4,HV=8,HK=2 gdn_verify:B=112,T=4,HV=8,HK=2"
  # group_quant's wide32 variant (M * K >= 2^24, K a multiple of 4096) and reduce_rows
  cases="$cases group_quant:M=4096,K=4096 group_quant:M=16384,K=4096 reduce_rows:T=4096 reduce_rows:T=16384"
  python3 bench/order_probe.py --bundles out/bundles --alt fused=out/fused --no-twins --early --rounds 7 \
    --out "$out/fused_probe" --cases "${FUSED_CASES:-$cases}"
  if [ "${FUSED_QUICK:-0}" != 1 ]; then
    echo "== hot_lines.cu"
    nvcc -arch=sm_90a -O3 -o "$out/hot_lines" bench/cuda/hot_lines.cu && "$out/hot_lines" && rm -f "$out/hot_lines"
  fi
} 2>&1 | tee "$out/fused.txt"
