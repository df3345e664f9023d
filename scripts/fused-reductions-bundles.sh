#!/usr/bin/env bash
# Here (with MLIR): the A/B bundles of @fused_reductions for the GPU machine. Each kernel of KERNELS is compiled
# from a copy of its kernels-dsl/ source with @fused_reductions added under @fast_math, into out/fused/ (the
# shipped ones are out/bundles/, from ./scripts/build.sh). Prints the shuffles of each variant on sm_90a, plain
# and fused. Then, on the GPU machine, scripts/gpu-fused-reductions.sh (carry out/bundles and out/fused).
#   usage: scripts/fused-reductions-bundles.sh [KERNELS]   (default: gdn_core gdn_verify)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
megac=build/compiler/tools/megac
kernels=${1:-gdn_core gdn_verify}
work=$(mktemp -d)
mkdir -p out/fused
shuffles() {  # kernel variant: xor shuffles, index shuffles
  awk '/^.visible .entry/ { name = $3 } /shfl.sync.bfly/ { x[name]++ } /shfl.sync.idx/ { i[name]++ }
       END { for (k in x) printf "  %-28s %3d xor %3d idx\n", k, x[k], i[k] }' "$1" | sort
}
for k in $kernels; do
  grep -q '^@fast_math$' "kernels-dsl/$k.mega" || { echo "$k: no @fast_math line to add it under" >&2; exit 1; }
  sed 's/^@fast_math$/@fast_math\n@fused_reductions/' "kernels-dsl/$k.mega" > "$work/$k.mega"
  $megac "$work/$k.mega" -o "out/fused/$k.mgb"
  $megac "kernels-dsl/$k.mega" --target sm_90a --emit ptx -o "$work/$k.plain.ptx"
  $megac "$work/$k.mega" --target sm_90a --emit ptx -o "$work/$k.fused.ptx"
  echo "$k plain:"; shuffles "$work/$k.plain.ptx"
  echo "$k fused:"; shuffles "$work/$k.fused.ptx"
done
rm -rf "$work"
