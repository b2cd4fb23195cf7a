#!/usr/bin/env bash
# Installs what kbp needs from Debian 12's packages (only what is missing) and builds it.
# The desktop viewer's packages are installed too; -DKBP_BUILD_VIEWER=OFF (a cmake argument) builds
# without its window (its model and that model's tests still build).
# Usage: scripts/setup.sh [BUILD_DIR] [extra cmake args...]   (run as root, or with sudo)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config nlohmann-json3-dev libsimdjson-dev libssl-dev libgraphviz-dev catch2 python3 python3-jsonschema
  # the desktop viewer: Dear ImGui (with its GLFW and OpenGL 3 backends), GLFW, OpenGL with Mesa's
  # software rasteriser, stb_image_write for screenshots, DejaVu Sans; Xvfb for its tests
  libimgui-dev libglfw3-dev libgl-dev libgl1-mesa-dri libglx-mesa0 libstb-dev fonts-dejavu-core xvfb xauth)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "kbp setup: installing ${missing[*]}" >&2
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

build="${1:-build}"
shift || true
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j"$(nproc)"
