#!/usr/bin/env bash
# Builds the optimised gemmad binary: build/release/gemmad.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target gemmad
echo "built build/release/gemmad"
