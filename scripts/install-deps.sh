#!/usr/bin/env bash
# Installs what megac needs on Debian 12, only when something is missing.
# Idempotent; run as root (or through sudo).
set -euo pipefail

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools pybind11-dev
          bolt-22 ccache ninja-build cmake g++ libgtest-dev python3-dev python3-pytest python3-numpy)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "megac: installing ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ! -x /usr/local/cuda/bin/ptxas ] && ! command -v ptxas >/dev/null; then
  echo "megac: note: ptxas not found (CUDA toolkit): PTX is still produced, but no cubins or register reports"
fi
