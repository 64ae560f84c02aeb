#!/usr/bin/env bash
# Sanitizer runs (separate from CI): asan-ubsan on unit and fuzz-replay tests; tsan on unit tests;
# and the e2e suite against a sanitizer-built `gemmad serve` (asan-e2e, tsan-e2e: every server the
# tests start is the sanitized binary; reports go to build/<preset>/sanitizer-reports/).
#   scripts/sanitize.sh [asan|tsan|asan-e2e|tsan-e2e|all]   (default all) [pytest args...]
set -euo pipefail
cd "$(dirname "$0")/.."
which=${1:-all}
shift || true
if [[ $which == asan || $which == all ]]; then
  cmake --preset asan-ubsan && cmake --build --preset asan-ubsan
  (cd build/asan-ubsan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ctest -L 'unit|fuzz_replay' -LE 'slow|gpu' --output-on-failure -j "$(nproc)")
fi
if [[ $which == tsan || $which == all ]]; then
  cmake --preset tsan && cmake --build --preset tsan
  (cd build/tsan && TSAN_OPTIONS=halt_on_error=1 ctest -L unit -LE 'slow|gpu' --output-on-failure -j "$(nproc)")
fi
e2e() {  # e2e PRESET "VAR=value ..." [pytest args]; @REPORTS@ in the values becomes the reports folder
  local preset=$1 envs=$2
  shift 2
  cmake --preset "$preset" >/dev/null && cmake --build --preset "$preset" --target gemmad gemmad_testing
  local b="$PWD/build/$preset" reports="$PWD/build/$preset/sanitizer-reports"
  rm -rf "$reports" && mkdir -p "$reports"
  (cd tests/e2e && env GEMMAD_BIN="$b/gemmad" GEMMAD_TESTING_BIN="$b/gemmad-testing" GEMMAD_SOURCE_DIR="$PWD/../.." \
     GEMMAD_SHARED_DIR="$PWD/../../../shared" GEMMAD_E2E_WORK="$b/e2e_work" ${envs//@REPORTS@/$reports} \
     "$PWD/../../.venv/bin/python" -m pytest -q -p no:cacheprovider "${@:-.}") || true
  if compgen -G "$reports/*" >/dev/null; then
    echo "sanitize.sh: $preset reports in $reports:" >&2
    ls "$reports" >&2
    return 1
  fi
  echo "sanitize.sh: $preset e2e: no sanitizer report"
}
if [[ $which == asan-e2e ]]; then
  e2e asan-ubsan "ASAN_OPTIONS=detect_leaks=1:log_path=@REPORTS@/asan UBSAN_OPTIONS=print_stacktrace=1:log_path=@REPORTS@/ubsan" "$@"
fi
if [[ $which == tsan-e2e ]]; then
  e2e tsan "TSAN_OPTIONS=halt_on_error=0:second_deadlock_stack=1:log_path=@REPORTS@/tsan" "$@"
fi
