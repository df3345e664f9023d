#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test (ctest drives lit,
# GoogleTest and pytest). GPU tests skip with a message where there is no GPU.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
"$root/scripts/configure.sh"
build=${MEGAC_BUILD_DIR:-$root/build}
ctest --test-dir "$build" --output-on-failure -j "${MEGAC_JOBS:-$(nproc)}"
