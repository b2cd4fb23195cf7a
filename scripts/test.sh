#!/usr/bin/env bash
# Installs, builds and runs kbp's whole test suite; then builds it once more with
# AddressSanitizer + UBSan (the reader, the bad-input corpus and everything else) and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh build -DKBP_BUILD_TESTS=ON -DKBP_BUILD_BENCH=ON -DKBP_BUILD_VIEWER=ON
ctest --test-dir build --output-on-failure -j"$(nproc)"

scripts/setup.sh build-asan -DKBP_SANITIZE=ON -DKBP_BUILD_TESTS=ON -DKBP_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j"$(nproc)"
