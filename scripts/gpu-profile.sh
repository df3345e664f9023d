#!/usr/bin/env bash
# On the GPU machine: Nsight Compute's counters for kernels at one shape each, megac against Triton, to find
# what limits a kernel (issue slots, memory, latency, occupancy) before changing it. Builds the runtime's
# Python extension first when build-gpu/ lacks it.
#   usage: scripts/gpu-profile.sh OUTFILE BUNDLE_DIR KERNEL:NAME=INT,... [...]
# e.g.   scripts/gpu-profile.sh $OUT/nvfp4.txt out/bundles nvfp4_quant:M=8192,K=4096
# The sections read: speed of light, occupancy, launch statistics, warp stall reasons, scheduler and
# instruction statistics, memory workload. --clock-control none: the clocks stay as the benchmark sees them.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=$1 bundles=$2
shift 2
if ! ls build-gpu/python/megac/_runtime*.so > /dev/null 2>&1; then
  scripts/gpu-build-runtime.sh "$(mktemp -d)" || exit 1
fi
PYTHONPATH=build-gpu/python ncu --clock-control none --nvtx --nvtx-include "profile/" \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
  --section SchedulerStats --section InstructionStats --section MemoryWorkloadAnalysis \
  python3 bench/profile_kernels.py --bundles "$bundles" "$@" > "$out" 2>&1
echo "gpu-profile: $? ($(grep -c '^  [a-zA-Z_]' "$out") kernel reports) -> $out"
