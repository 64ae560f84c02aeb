#!/usr/bin/env bash
# The whole test suite, as CI runs it (README "run all tests"; .ci/run calls this):
#   1. release-with-assertions build (preset relassert) of everything
#   2. compile and link of the CUDA backend and its gpu tests (preset cuda), when nvcc is present
#   3. ctest: every label except gpu and slow; fails when no test ran
# Prints per-phase times. Options: -j N (parallel test jobs, default nproc), --no-cuda.
set -euo pipefail
cd "$(dirname "$0")/.."

jobs=$(nproc)
cuda=1
while (($#)); do
  case "$1" in
    -j) jobs=$2; shift 2 ;;
    --no-cuda) cuda=0; shift ;;
    *) echo "test.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

declare -a PHASES=()
phase() {
  local name=$1; shift
  local t0=$SECONDS
  echo "=== phase: $name"
  "$@"
  PHASES+=("$(printf '%-14s %5ds' "$name" $((SECONDS - t0)))")
}
report() {
  echo "=== phase times"
  for p in "${PHASES[@]}"; do echo "  $p"; done
}
trap report EXIT

[ -x .venv/bin/python ] && export PATH="$PWD/.venv/bin:$PATH"

phase configure cmake --preset relassert
phase build cmake --build --preset relassert
if ((cuda)); then
  if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then
    phase cuda-compile bash -c 'cmake --preset cuda >/dev/null && cmake --build --preset cuda --target gemmad_kernels_cuda kernels_cuda_tests'
  else
    echo "test.sh: nvcc not found; skipping the CUDA compile (pass --no-cuda to silence)" >&2
  fi
fi
phase ctest ctest --preset ci -j "$jobs" --timeout 900
