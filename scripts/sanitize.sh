#!/usr/bin/env bash
# Sanitizer runs (separate from CI): asan-ubsan on unit and fuzz-replay tests; tsan on unit tests.
#   scripts/sanitize.sh [asan|tsan|all]   (default all)
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
if [[ $which == asan || $which == all ]]; then
  cmake --preset asan-ubsan && cmake --build --preset asan-ubsan
  (cd build/asan-ubsan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ctest -L 'unit|fuzz_replay' -LE 'slow|gpu' --output-on-failure -j "$(nproc)")
fi
if [[ $which == tsan || $which == all ]]; then
  cmake --preset tsan && cmake --build --preset tsan
  (cd build/tsan && TSAN_OPTIONS=halt_on_error=1 ctest -L unit -LE 'slow|gpu' --output-on-failure -j "$(nproc)")
fi
