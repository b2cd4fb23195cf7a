#!/usr/bin/env bash
# Builds kbp's libFuzzer targets (tests/fuzz/, clang++ with ASan + UBSan) in build-fuzz and runs
# each for SECONDS (default 30) on its seeds, one after another; fails on any finding (a crash,
# a leak, an input that runs longer than 10 s, a broken promise of entry_points.hpp).
#   scripts/fuzz.sh [SECONDS] [TARGET...]     TARGET: blueprint, config, data (default: all)
# A finding is left in build-fuzz/findings/; replay it with `build-fuzz/tests/fuzz/fuzz_TARGET FILE`,
# fix it, and add it to tests/fuzz/regressions/TARGET/ so the normal suite replays it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(blueprint config data)

cmake -S . -B build-fuzz -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKBP_FUZZ=ON \
  -DKBP_BUILD_TESTS=OFF -DKBP_BUILD_BENCH=OFF -DKBP_BUILD_VIEWER=OFF >/dev/null
cmake --build build-fuzz -j"$(nproc)" --target "${targets[@]/#/fuzz_}"

mkdir -p build-fuzz/findings
for target in "${targets[@]}"; do
  # New inputs go to the build folder's corpus; the repository's seeds are only read.
  mkdir -p "build-fuzz/corpus/$target"
  echo "fuzz_$target: ${seconds} s"
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "build-fuzz/tests/fuzz/fuzz_$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
      -artifact_prefix="build-fuzz/findings/$target-" "build-fuzz/corpus/$target" "tests/fuzz/$target" \
    > "build-fuzz/fuzz_$target.log" 2>&1 || {
      tail -n 40 "build-fuzz/fuzz_$target.log"
      echo "fuzz_$target: a finding (build-fuzz/findings/, log build-fuzz/fuzz_$target.log)" >&2
      exit 1
    }
  grep -E '^#[0-9]+.*DONE|^stat::number_of_executed_units|^stat::average_exec_per_sec' "build-fuzz/fuzz_$target.log" || true
done
