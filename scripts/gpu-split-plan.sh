#!/usr/bin/env bash
# On the GPU machine: attention's split plan rounded down (split_plan's fill) against the shipped one, rounded up,
# for megac and for Triton's launcher, in one process (bench/attn_splits_probe.py --fill). The two differ among
# the benchmark's shapes only at B = 32, ctx = 32768 (Hkv = 1): 8 splits a request, 256 programs, against 9 and
# 288, whose last 24 run after the first 264 (two a SM) as a tail; B = 32, ctx = 4096 (the same plan either way)
# is the control. Needs out/bundles carried; builds the runtime (scripts/gpu-build-runtime.sh) unless built.
# Writes under $OUT (default out/): split_plan/ and split_plan.txt. Each case also times megac's and Triton's
# split and merge kernels apart. SPLIT_CASES and SPLIT_ARGS replace the cases and the probe's plan options
# (default "--waves= --fill": no other wave counts, the plan rounded down).
#   usage: MEGAC_COMMIT=<sha> [SPLIT_CASES="kernel:NAME=INT,... ..."] [SPLIT_ARGS="--waves 3,4"] \
#            scripts/gpu-split-plan.sh
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${OUT:-$root/out}
export PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1
{
  echo "== commit ${MEGAC_COMMIT:-unknown}; $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)"
  scripts/gpu-build-runtime.sh "$out/split_plan_build" || exit 1
  cases="attn_decode_q1:B=32,ctx=32768,Hq=8,Hkv=1 attn_decode_verify:B=32,ctx=32768,Hq=8,Hkv=1,T=4"
  cases=${SPLIT_CASES:-$cases attn_decode_q1:B=32,ctx=4096,Hq=8,Hkv=1}
  read -ra args <<< "${SPLIT_ARGS:---waves= --fill}"
  python3 bench/attn_splits_probe.py --bundles out/bundles --out "$out/split_plan" "${args[@]}" \
    --rounds 7 --cases "$cases"
} 2>&1 | tee "$out/split_plan.txt"
