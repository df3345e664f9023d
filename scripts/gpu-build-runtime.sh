#!/usr/bin/env bash
# On the GPU machine (no MLIR there): configures and builds the runtime, its tests and its Python extension in
# build-gpu/ (-DMEGAC_ENABLE_COMPILER=OFF), with the python3 on PATH and its pybind11; GoogleTest from
# .device/googletest when it was carried. Logs in LOGDIR (cmake.log, build.log); their tails on failure.
# Used by scripts/gpu-check.sh and scripts/gpu-profile.sh.
#   usage: scripts/gpu-build-runtime.sh LOGDIR
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
logs=${1:?usage: scripts/gpu-build-runtime.sh LOGDIR}
mkdir -p "$logs"
pybind=$(python3 -c 'import pybind11; print(pybind11.get_cmake_dir())')
gtest=()
[ -d "$root/.device/googletest" ] && gtest=(-DMEGAC_GTEST_SOURCE="$root/.device/googletest")
cmake -G Ninja -S . -B build-gpu -DMEGAC_ENABLE_COMPILER=OFF -DCMAKE_BUILD_TYPE=Release \
  -DPython3_EXECUTABLE="$(command -v python3)" -Dpybind11_DIR="$pybind" "${gtest[@]}" \
  > "$logs/cmake.log" 2>&1 || { tail -30 "$logs/cmake.log"; exit 1; }
ninja -C build-gpu -j "$(nproc)" > "$logs/build.log" 2>&1 || { tail -40 "$logs/build.log"; exit 1; }
