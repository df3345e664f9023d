#!/usr/bin/env bash
# Here (with MLIR), exploratory: gdn_core's narrow variants (rows4, prefetch, rows8) with q.q, k.k and q.k summed
# over fewer lanes, for bench/order_probe.py --alt on the GPU machine. In the shipped kernel those three sums read
# q and k as the state's rows do (4 values a lane, 32 lanes: five shuffle levels each, beside the rows' own two
# sums); here q and k are loaded a second time, replicated, SPT values a lane, so that each of the three sums
# takes log2(128 / SPT) shuffle levels (the fifty-fifth session's probe: three sums over 8 lanes cost 0.17 us less
# than over 32 after the wait, results/tuning_gdn_b1_hot_lines_52ee055.md). The second load's address is written
# reassociated so that it is not merged with the first (it would then be converted by shuffles instead).
# Writes out/qkSPT/gdn_core.mgb for each SPT, and out/qkSPTf/ with @fused_reductions too; prints each variant's
# shuffles and global loads on sm_90a.
#   usage: scripts/gdn-qk-bundles.sh [SPTS]   (default: 16 32)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
megac=build/compiler/tools/megac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 - kernels-dsl/gdn_core.mega "$work/qk.mega" <<'EOF'
import sys
src = open(sys.argv[1]).read()
old = """        let rq = rsqrt(sum(qv * qv) + 1e-6) * 0.08838834764831845;
        let rk = rsqrt(sum(kv * kv) + 1e-6);
        let qk = sum(qv * kv);"""
new = """        let head = (request * HK + kh) * D + arange(0, D);
        let qr = with_layout(load(q + head), spt0 = QK_SPT, tpw0 = 32, wpc0 = 4) as f32;
        let kr = with_layout(load(k + head), spt0 = QK_SPT, tpw0 = 32, wpc0 = 4) as f32;
        let rq = rsqrt(sum(qr * qr) + 1e-6) * 0.08838834764831845;
        let rk = rsqrt(sum(kr * kr) + 1e-6);
        let qk = sum(qr * kr);"""
assert src.count(old) == 1, "gdn_core.mega's narrow branch changed: update this script"
src = src.replace(old, new).replace("const BV = 32;", "const BV = 32;\nconst QK_SPT = 4;", 1)
open(sys.argv[2], "w").write(src)
EOF
awk '/^@/ && prev !~ /^@/ { print "@fused_reductions" } { print; prev = $0 }' "$work/qk.mega" > "$work/qkf.mega"
counts() {  # a line a narrow variant: shuffles, global loads
  awk '/^.visible .entry/ { n = $3 } /shfl.sync/ { s[n]++ } /ld.global/ { l[n]++ }
       END { for (k in s) if (k ~ /rows4|rows8|prefetch/) printf "  %-24s %3d shuffles %3d loads\n", k, s[k], l[k] }' "$1" | sort
}
$megac kernels-dsl/gdn_core.mega --target sm_90a --emit ptx -o "$work/shipped.ptx"
echo "shipped:"; counts "$work/shipped.ptx"
for spt in ${1:-16 32}; do
  for form in "" f; do
    src=$work/qk$form.mega
    mkdir -p "out/qk$spt$form"
    $megac "$src" -D QK_SPT="$spt" -o "out/qk$spt$form/gdn_core.mgb"
    $megac "$src" -D QK_SPT="$spt" --target sm_90a --emit ptx -o "$work/qk.ptx"
    echo "qk$spt$form:"; counts "$work/qk.ptx"
  done
done
