#!/usr/bin/env bash
# Installs, builds and runs kbp's whole test suite (Release). With --sanitize it then builds it
# once more with AddressSanitizer + UBSan (the reader, the bad-input corpus and everything else)
# and runs it again; .ci/run passes --sanitize.
# Usage: scripts/test.sh [--sanitize]
set -euo pipefail
cd "$(dirname "$0")/.."
sanitize=0
for a in "$@"; do
  case "$a" in
    --sanitize) sanitize=1 ;;
    *) echo "usage: scripts/test.sh [--sanitize]" >&2; exit 2 ;;
  esac
done

scripts/setup.sh build -DKBP_BUILD_TESTS=ON -DKBP_BUILD_BENCH=ON -DKBP_BUILD_VIEWER=ON -DKBP_UNITY=ON
ctest --test-dir build --output-on-failure -j"$(nproc)"
((sanitize)) || exit 0

# -O1 with line tables only: a sanitized TU at -O2 -g took 28 s against 14 s (planner/choose_kernels.cpp,
# g++ 12), and the sanitizer build was most of CI's time. The window is left out: the viewer's model
# and its tests build and run without it, and the window's screenshot tests ran above.
scripts/setup.sh build-asan -DKBP_SANITIZE=ON -DKBP_BUILD_TESTS=ON -DKBP_BUILD_BENCH=OFF -DKBP_BUILD_VIEWER=OFF -DKBP_UNITY=ON \
  -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g1"
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)"
