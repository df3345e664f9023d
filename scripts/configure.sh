#!/usr/bin/env bash
# Configures and builds everything into build/ (Ninja, ccache when present).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${MEGAC_BUILD_DIR:-$root/build}
if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
    -DPython3_EXECUTABLE=/usr/bin/python3 >/dev/null
fi
ninja -C "$build" -j "${MEGAC_JOBS:-$(nproc)}"
