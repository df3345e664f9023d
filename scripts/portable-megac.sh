#!/usr/bin/env bash
# A megac for a machine without LLVM 22: the GPU host, where scripts/gpu-session.sh times megac's compiles
# on the machine that times Triton's. The build's megac objects are linked again, statically, against the
# static LLVM and MLIR libraries that llvm-22-dev and libmlir-22-dev ship (the build links their shared
# libraries) and against libstdc++: the result needs glibc, zlib and zstd only. Same sources: the script
# checks that it prints the build's megac's PTX for every kernel of kernels-dsl/, on sm_90a and sm_103a.
#   usage: scripts/portable-megac.sh   -> out/portable/megac and megac.gz (gzip: the device tool's carry limit)
#   MEGAC_BUILD_DIR (default build/), MEGAC_PORTABLE_OUT (default out/portable/)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MEGAC_BUILD_DIR:-$root/build}
out=${MEGAC_PORTABLE_OUT:-$root/out/portable}
llvm=/usr/lib/llvm-22/lib
cmake --build "$build" --target megac > /dev/null
mkdir -p "$out"
# One group: the archives' order does not matter, and only the members megac uses are linked (about 5 s);
# zlib and zstd by their runtime names, which need no -dev package.
mapfile -t ours < <(find "$build/compiler" "$build/dialects" "$build/runtime" -name '*.a' | sort)
c++ -no-pie -s -Wl,--gc-sections -o "$out/megac" \
  "$build/compiler/tools/CMakeFiles/megac.dir/megac.cpp.o" \
  -Wl,--start-group "${ours[@]}" "$llvm"/libMLIR*.a "$llvm"/libLLVM*.a -Wl,--end-group \
  -static-libstdc++ -static-libgcc -l:libz.so.1 -l:libzstd.so.1 -ldl -lpthread
for f in "$root"/kernels-dsl/*.mega; do
  for target in sm_90a sm_103a; do
    "$build/compiler/tools/megac" "$f" --target $target --emit ptx -o "$out/check.build.ptx"
    "$out/megac" "$f" --target $target --emit ptx -o "$out/check.portable.ptx"
    if ! cmp -s "$out/check.build.ptx" "$out/check.portable.ptx"; then
      echo "portable-megac: $out/megac prints other PTX than $build/compiler/tools/megac for $f ($target)" >&2
      exit 1
    fi
  done
done
rm "$out"/check.*.ptx
gzip -9 -c "$out/megac" > "$out/megac.gz"
echo "portable megac: $out/megac ($(du -h "$out/megac.gz" | cut -f1) gzipped: $out/megac.gz)"
