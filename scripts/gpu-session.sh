#!/usr/bin/env bash
# The evidence of one GPU session, in two calls of the device tool on one warm machine, on bundles compiled
# here into out/bundles/ and compile times in out/compile_ms.json (scripts/compile_times.py):
#   part 1: scripts/gpu-check.sh (runtime tests, every kernel at every shape), scripts/gpu-final.sh (slots,
#           sm_103a SASS, memcheck, racecheck), test/gpu/run_qwen35_slots.py and the whole pytest GPU
#           suite (python/tests/test_kernels_gpu.py: every kernel at every listed shape, again through pytest);
#   part 2: megac's compile times on this machine (scripts/compile_times.py with the portable megac of
#           scripts/portable-megac.sh, carried gzipped in out/portable/), then the benchmark of every kernel in
#           one run_bench.py call (BENCH_ARGS adds options, e.g. --no-compile to leave out torch.compile, whose
#           compiles are most of a full run's time).
# Each part leaves one tarball in $OUT (session_part1.tgz, session_part2.tgz), packed again after each stage and
# when `timeout` stops it, so a part cut short still brings back what it ran.
#   usage: MEGAC_COMMIT=<sha> [MEGAC_CARD=H200] scripts/gpu-session.sh 1|2
# MEGAC_CARD: leave at once (exit 3) on a card whose name lacks it: a call for an H200 may be lent an H100, and
# the issue's numbers are the H200's.
set -uo pipefail
if [ -n "${MEGAC_CARD:-}" ]; then
  card=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
  case "$card" in
  *"$MEGAC_CARD"*) ;;
  *) echo "gpu-session: this card is '$card', not the $MEGAC_CARD that MEGAC_CARD asks for"; exit 3 ;;
  esac
fi
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
final=${OUT:-$root/out}
work=$root/out/session
mkdir -p "$work"
export PYTHONPATH=build-gpu/python PYTHONUNBUFFERED=1
# What each part writes under $work, and packs into $OUT/session_part<N>.tgz.
case "${1:-}" in
1) part=1; outputs=(check final slots check.txt final.txt slots.txt pytest.txt) ;;
2) part=2; outputs=(compile_host.txt compile_ms_host.json bench bench.txt) ;;
*) echo "usage: scripts/gpu-session.sh 1|2"; exit 2 ;;
esac
# Packs what this part has written so far (part 2's unpacked megac, 62 MB, is past what a device call brings
# back, so it is not an output). A stage cut by `timeout` (SIGTERM to the whole process group) is packed as it
# stands; a stop without a signal the script sees (the device call's own limit) keeps the last finished stage.
# scripts/session_results.py reports a missing stage as missing.
pack() {
  local name present=()
  for name in "${outputs[@]}"; do [ -e "$work/$name" ] && present+=("$name"); done
  tar czf "$final/session_part$part.tgz" -C "$work" -T /dev/null "${present[@]}"
}
trap 'echo "gpu-session: stopped; packed what part $part wrote"; pack; exit 124' TERM
# An earlier run's outputs on the same machine must not be packed as this run's.
for name in "${outputs[@]}"; do rm -rf "${work:?}/$name"; done
if [ "$part" = 1 ]; then
  echo "== check"; OUT=$work/check scripts/gpu-check.sh > "$work/check.txt" 2>&1; tail -28 "$work/check.txt"
  pack
  echo "== final"; OUT=$work/final scripts/gpu-final.sh > "$work/final.txt" 2>&1; tail -24 "$work/final.txt"
  pack
  echo "== qwen35 slots"
  python3 test/gpu/run_qwen35_slots.py --bundles out/bundles --out "$work/slots" > "$work/slots.txt" 2>&1
  tail -2 "$work/slots.txt"
  pack
  echo "== pytest"
  MEGAC_BUNDLES=out/bundles MEGAC_PYTHON_BUILD=build-gpu/python python3 -m pytest -q \
    python/tests/test_kernels_gpu.py python/tests/test_early_launch_gpu.py python/tests/test_replicas_gpu.py \
    python/tests/test_streaming_gpu.py python/tests/test_semantics_gpu.py python/tests/test_device_facts_gpu.py \
    > "$work/pytest.txt" 2>&1
  tail -2 "$work/pytest.txt"
else
  # A machine released after part 1 comes back bare: build the runtime again.
  [ -d build-gpu ] || scripts/gpu-build-runtime.sh "$work/build2" > /dev/null || exit 1
  # megac's compile times measured on this machine, which times Triton's cold compiles, when a portable
  # megac came along (scripts/portable-megac.sh); else those of the machine that built the bundles.
  compile_ms=out/compile_ms.json
  if [ -f out/portable/megac.gz ]; then
    echo "== megac compile times on this machine"
    gunzip -c out/portable/megac.gz > "$work/megac" && chmod +x "$work/megac"
    { grep -m1 "model name" /proc/cpuinfo; echo "cores: $(nproc)"; } > "$work/compile_host.txt"
    python3 scripts/compile_times.py --megac "$work/megac" --runs 21 > "$work/compile_ms_host.json" \
      && compile_ms=$work/compile_ms_host.json
    cat "$work/compile_host.txt"
    pack
  fi
  echo "== bench (megac compile times: $compile_ms)"
  # shellcheck disable=SC2086
  MEGAC_COMPILE_MS=$compile_ms OUT="$work/bench" scripts/gpu-bench.sh \
    --budget-s "${BENCH_BUDGET_S:-540}" ${BENCH_ARGS:-} > "$work/bench.txt" 2>&1
  tail -6 "$work/bench.txt"
fi
# Each part packs what it wrote, so either may run first.
pack
