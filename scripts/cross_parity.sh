#!/usr/bin/env bash
# The kernel parity test for aarch64 (NEON table, plus generic), cross-compiled with Debian's
# g++-aarch64-linux-gnu and run under qemu-aarch64 (preset `aarch64`: kernels-only build, no
# arm64 libraries needed). The x86-64 build registers this as the ctest `kernels_parity_aarch64`
# (label parity); scripts/setup.sh installs the toolchain, so CI always runs it.
#   scripts/cross_parity.sh [BUILD_DIR]   default build/aarch64
# Exit 77 (ctest: skipped, with the message below) only when the cross toolchain or qemu is absent.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
dir=${1:-$src/build/aarch64}

missing=()
command -v aarch64-linux-gnu-g++ >/dev/null || missing+=("g++-aarch64-linux-gnu")
command -v qemu-aarch64 >/dev/null || command -v qemu-aarch64-static >/dev/null || missing+=("qemu-user")
if ((${#missing[@]})); then
  echo "cross_parity.sh: SKIPPED: the aarch64 NEON parity test needs ${missing[*]} (scripts/setup.sh installs them)"
  exit 77
fi

jobs=$(nproc)
t0=$SECONDS
cd "$src"
cmake --preset aarch64 -B "$dir" >/dev/null
if ! cmake --build "$dir" -j "$jobs" >"$dir/build.log" 2>&1; then
  tail -n 60 "$dir/build.log"
  echo "cross_parity.sh: aarch64 build failed (log: $dir/build.log)"
  exit 1
fi
t1=$SECONDS
ctest --test-dir "$dir" --output-on-failure --no-tests=error -j "$jobs"
echo "cross_parity.sh: aarch64 build $((t1 - t0))s, tests under qemu $((SECONDS - t1))s"
