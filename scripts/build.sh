#!/usr/bin/env bash
# The main job: install what is missing, build everything, compile every
# kernel in kernels-dsl/ for sm_90a, sm_100a and sm_103a into out/bundles/,
# and print one row per kernel, variant and target.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/configure.sh"
build=${MEGAC_BUILD_DIR:-$root/build}
mkdir -p "$root/out/bundles"
for f in "$root"/kernels-dsl/*.mega; do
  name=$(basename "$f" .mega)
  "$build/compiler/tools/megac" "$f" -o "$root/out/bundles/$name.mgb"
done
# The GPU test of early launch (test/gpu/run_early_launch.py) runs these.
"$build/compiler/tools/megac" "$root/test/gpu/early_launch.mega" -o "$root/out/bundles/early_launch.mgb"
# The exhaustive checks of silu's and sigmoid's divisions and of gdn_norm_gate_fp8's silu
# (scripts/gpu-final.sh), the test of in-place
# updates through replicated layouts (test/gpu/run_replicas.py), that of streaming stores
# (test/gpu/run_streaming.py) and that of the language's semantics (test/gpu/run_semantics.py) run these.
# (semantics.mega's sem_spill spills on purpose, under a register cap: megac's warning about it is expected.
# Its warnings about two capped variants of kernels-dsl/ are estimates; ptxas fits those without spilling.)
for check in logistic_all fast_logistic_all silu_split_all replicas streaming semantics; do
  "$build/compiler/tools/megac" "$root/test/gpu/$check.mega" --target sm_90a -o "$root/out/bundles/$check.mgb"
done
"$build/compiler/tools/megac" "$root"/kernels-dsl/*.mega --emit report
echo "bundles: $root/out/bundles/"
