#!/usr/bin/env bash
# Here (with MLIR): the A/B bundles of @fused_reductions for the GPU machine. Each file of FILES (kernels-dsl/
# NAME.mega) is compiled from a copy with @fused_reductions added to every kernel (above its first attribute),
# into out/fused/ (the shipped bundles are out/bundles/, from ./scripts/build.sh). Prints the shuffles of each
# variant the attribute changes on sm_90a, plain and fused. Then, on the GPU machine,
# scripts/gpu-fused-reductions.sh (carry out/bundles and out/fused).
#   usage: scripts/fused-reductions-bundles.sh [FILES]   (default: gdn_core gdn_verify group_quant reduce)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
megac=build/compiler/tools/megac
files=${1:-gdn_core gdn_verify group_quant reduce}
work=$(mktemp -d)
mkdir -p out/fused
shuffles() {  # a line a kernel or variant with shuffles: its name, xor shuffles, index shuffles
  awk '/^.visible .entry/ { name = $3 } /shfl.sync.bfly/ { x[name]++ } /shfl.sync.idx/ { i[name]++ }
       END { for (k in x) printf "%s %d %d\n", k, x[k], i[k] + 0 }' "$1" | sort
}
for f in $files; do
  # Before each kernel's first attribute line (one that follows a line that is not an attribute).
  awk '/^@/ && prev !~ /^@/ { print "@fused_reductions" } { print; prev = $0 }' "kernels-dsl/$f.mega" > "$work/$f.mega"
  $megac "$work/$f.mega" -o "out/fused/$f.mgb"
  $megac "kernels-dsl/$f.mega" --target sm_90a --emit ptx -o "$work/$f.plain.ptx"
  $megac "$work/$f.mega" --target sm_90a --emit ptx -o "$work/$f.fused.ptx"
  shuffles "$work/$f.plain.ptx" > "$work/plain.txt"
  shuffles "$work/$f.fused.ptx" > "$work/fused.txt"
  echo "$f (kernel: plain xor + idx -> fused xor + idx, where they differ):"
  join "$work/plain.txt" "$work/fused.txt" | awk '$2 != $4 || $3 != $5 { printf "  %-28s %3d + %2d -> %3d + %2d\n", $1, $2, $3, $4, $5 }'
done
rm -rf "$work"
