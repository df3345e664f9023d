#!/usr/bin/env bash
# A megac for a machine without LLVM 22: the GPU host, where scripts/gpu-session.sh times megac's compiles
# on the machine that times Triton's. The build's megac objects are linked again, statically, against the
# static LLVM and MLIR libraries that llvm-22-dev and libmlir-22-dev ship (the build links their shared
# libraries) and against libstdc++: the result needs glibc, zlib and zstd only.
# Then BOLT (llvm-bolt, Debian's bolt-22) lays its machine code out from a profile of megac compiling
# test/gpu/ and test/lit/codegen/ (not kernels-dsl/, whose compiles the benchmark times): the hot code of
# LLVM's and megac's passes packed into a few megabytes instead of spread over 40, which takes the kernels'
# compiles 13-15% down in the median (docs/benchmarks.md, Compile times). BOLT changes where the code lies,
# not what it does: the script checks that the result prints the build's megac's PTX for every kernel of
# kernels-dsl/, on sm_90a and sm_103a (and ctest lit_portable_megac runs the lit suite with it). The profile
# comes from a run on threads, so two runs of the script may lay the code out a little differently.
#   usage: scripts/portable-megac.sh   -> out/portable/megac and megac.gz (gzip: the device tool's carry limit)
#   MEGAC_BUILD_DIR (default build/), MEGAC_PORTABLE_OUT (default out/portable/),
#   MEGAC_PORTABLE_BOLT=0: the static link alone, without BOLT (for comparisons)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MEGAC_BUILD_DIR:-$root/build}
out=${MEGAC_PORTABLE_OUT:-$root/out/portable}
bolt=${MEGAC_PORTABLE_BOLT:-1}
llvm=/usr/lib/llvm-22/lib
bolt_bin=/usr/lib/llvm-22/bin/llvm-bolt
if [ "$bolt" != 0 ] && [ ! -x "$bolt_bin" ]; then
  echo "portable-megac: $bolt_bin not found: install bolt-22 (scripts/install-deps.sh does)," \
       "or set MEGAC_PORTABLE_BOLT=0 for a megac without BOLT's layout" >&2
  exit 1
fi
cmake --build "$build" --target megac > /dev/null
mkdir -p "$out"
work=$(mktemp -d "$out/work.XXXXXX")
trap 'rm -rf "$work"' EXIT
# One group: the archives' order does not matter, and only the members megac uses are linked (about 5 s);
# zlib and zstd by their runtime names, which need no -dev package. -q keeps the relocations, which BOLT
# needs to move functions.
mapfile -t ours < <(find "$build/compiler" "$build/dialects" "$build/runtime" -name '*.a' | sort)
c++ -no-pie -Wl,-q -Wl,--gc-sections -o "$work/megac.linked" \
  "$build/compiler/tools/CMakeFiles/megac.dir/megac.cpp.o" \
  -Wl,--start-group "${ours[@]}" "$llvm"/libMLIR*.a "$llvm"/libLLVM*.a -Wl,--end-group \
  -static-libstdc++ -static-libgcc -l:libz.so.1 -l:libzstd.so.1 -ldl -lpthread
if [ "$bolt" != 0 ]; then
  # The profile: an instrumented megac compiles the training sources once, for every target, in one process:
  # every source of test/gpu/ and test/lit/codegen/, those that expect an error too (megac goes on to the next
  # file and exits 1; a crash is a larger status).
  train=("$root"/test/gpu/*.mega "$root"/test/lit/codegen/*.mega)
  "$bolt_bin" "$work/megac.linked" -instrument -instrumentation-file="$work/train.fdata" \
    -o "$work/megac.instrumented" > "$work/bolt.log" 2>&1 || { cat "$work/bolt.log" >&2; exit 1; }
  status=0
  "$work/megac.instrumented" "${train[@]}" --no-ptxas > "$work/train.out" 2> "$work/train.log" || status=$?
  rows=$(grep -c ' no ptxas$' "$work/train.out" || true)
  if [ "$status" -gt 1 ] || [ "$rows" -lt 100 ]; then
    echo "portable-megac: the training compile exited $status with $rows report rows (at least 100 expected):" >&2
    tail -20 "$work/train.log" >&2
    exit 1
  fi
  "$bolt_bin" "$work/megac.linked" -data="$work/train.fdata" -o "$work/megac.laid-out" \
    -reorder-blocks=ext-tsp -reorder-functions=cdsort -split-functions -split-all-cold -split-eh \
    -icf=all -use-gnu-stack > "$work/bolt.log" 2>&1 || { cat "$work/bolt.log" >&2; exit 1; }
  strip -o "$out/megac" "$work/megac.laid-out"
else
  strip -o "$out/megac" "$work/megac.linked"
fi
for f in "$root"/kernels-dsl/*.mega; do
  for target in sm_90a sm_103a; do
    "$build/compiler/tools/megac" "$f" --target $target --emit ptx -o "$work/check.build.ptx"
    "$out/megac" "$f" --target $target --emit ptx -o "$work/check.portable.ptx"
    if ! cmp -s "$work/check.build.ptx" "$work/check.portable.ptx"; then
      echo "portable-megac: $out/megac prints other PTX than $build/compiler/tools/megac for $f ($target)" >&2
      exit 1
    fi
  done
done
gzip -9 -c "$out/megac" > "$out/megac.gz"
echo "portable megac$([ "$bolt" != 0 ] && echo ", laid out by BOLT"): $out/megac ($(du -h "$out/megac.gz" | cut -f1) gzipped: $out/megac.gz)"
