#!/usr/bin/env bash
# Makes every picture README.md and docs/ show (docs/img/*.svg|png): the kbp render SVGs of plans,
# the cost sweep and tune frontier charts, and the viewer's screenshots (kbp-view --screenshot under
# xvfb-run); then writes docs/img/pictures.json, each picture's commands and the plan figures it
# shows, which ctest's pictures_figures checks against today's plans. The commands and figures are
# in scripts/pictures.py. Re-runnable: the input plans go to build/pictures/, the same inputs give
# the same pictures.
# Usage: scripts/pictures.sh [BUILD_DIR]   (default build; configured with -DKBP_BUILD_VIEWER=ON)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
if [ ! -f "$build/CMakeCache.txt" ]; then
  scripts/setup.sh "$build" -DKBP_BUILD_TESTS=OFF -DKBP_BUILD_BENCH=ON -DKBP_BUILD_VIEWER=ON
elif ! grep -q '^KBP_BUILD_VIEWER:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "pictures.sh: $build is configured without the viewer; reconfigure it with -DKBP_BUILD_VIEWER=ON" >&2
  exit 2
elif ! grep -q '^KBP_BUILD_BENCH:BOOL=ON' "$build/CMakeCache.txt"; then
  echo "pictures.sh: $build is configured without the benchmarks (kbp-view-load-bench makes the million-op plan); reconfigure it with -DKBP_BUILD_BENCH=ON" >&2
  exit 2
fi
cmake --build "$build" -j"$(nproc)" --target kbp kbp-view kbp-view-load-bench
command -v xvfb-run >/dev/null || { echo "pictures.sh: xvfb-run is missing (scripts/setup.sh installs it)" >&2; exit 2; }
exec python3 scripts/pictures.py make --kbp "$build/cli/kbp" --view "$build/viewer/app/kbp-view" \
  --load-bench "$build/bench/kbp-view-load-bench"
