#!/usr/bin/env bash
# Builds the llama.cpp peer (the vendor/llama.cpp of the llama-cpp-python 0.3.36 sdist, commit
# 0c1e570) into DEST. Nothing of llama.cpp is committed to this repository; this script is the
# recipe. It is the one of docs/cpu-performance.md §9 (CMake Release, Ninja, GGML_NATIVE=OFF with
# the host's x86 extensions listed explicitly, AMX left off: the native build enables ggml's AMX
# path, which crashed on Q8_0/Q4_0 on the development VM), with shared libraries so that
# scripts/golden/make_gguf_real_goldens.py can load libllama.so through ctypes. No CUDA, no
# OpenSSL/curl, no web UI for llama-server (the build would try to download it).
#
# Usage: scripts/build_llamacpp_peer.sh DEST [SDIST] [JOBS]
#   DEST   build root; gets DEST/src (the unpacked vendor/llama.cpp) and DEST/build
#          (binaries in DEST/build/bin: llama-bench, llama-simple, llama-quantize, llama-cli, llama-server,
#          llama-tokenize, libllama.so, libggml*.so)
#   SDIST  default /work/peer/sdist/llama_cpp_python-0.3.36.tar.gz
#   JOBS   default 2
# Env: GGML_ISA_FLAGS overrides the explicit extension list (e.g. "-DGGML_NATIVE=ON" on another
#      host); PEER_TARGETS overrides the second batch of targets.
set -euo pipefail

if [[ $# -lt 1 ]]; then
  sed -n '2,17p' "$0" >&2
  exit 2
fi
DEST=$(mkdir -p "$1" && cd "$1" && pwd)
SDIST=${2:-/work/peer/sdist/llama_cpp_python-0.3.36.tar.gz}
JOBS=${3:-2}
SDIST_SHA256=832db0699007f1be95a7e41ef12e88926b02ba836461e36a36372db2760c1a2e

got=$(sha256sum "$SDIST" | cut -d' ' -f1)
if [[ "$got" != "$SDIST_SHA256" ]]; then
  echo "build_llamacpp_peer: $SDIST has sha256 $got, expected $SDIST_SHA256" >&2
  exit 1
fi

# Unpack the sdist's vendored llama.cpp (and the submodule's HEAD file, which names the commit).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tar -xzf "$SDIST" -C "$tmp" \
  llama_cpp_python-0.3.36/vendor/llama.cpp \
  llama_cpp_python-0.3.36/.git/modules/vendor/llama.cpp/HEAD
COMMIT=$(cut -c1-40 "$tmp/llama_cpp_python-0.3.36/.git/modules/vendor/llama.cpp/HEAD")
rm -rf "$DEST/src"
mv "$tmp/llama_cpp_python-0.3.36/vendor/llama.cpp" "$DEST/src"
rm -f "$DEST/src/.git"  # a gitdir link into the sdist's .git, which has no objects
echo "$COMMIT" > "$DEST/COMMIT"

# The extensions this CPU has, each named explicitly (GGML_NATIVE=OFF): a flag the CPU lacks makes
# ggml emit instructions that die with SIGILL (AVX_VNNI on AMD Zen 4, which has AVX512_VNNI only).
# AMX is left off even where the CPU has it (the native build's AMX path crashed on Q8_0/Q4_0).
has() { grep -m1 '^flags' /proc/cpuinfo | tr ' ' '\n' | grep -qx "$1"; }
onoff() { if has "$1"; then echo ON; else echo OFF; fi; }
DETECTED="-DGGML_NATIVE=OFF -DGGML_SSE42=$(onoff sse4_2) -DGGML_AVX=$(onoff avx) -DGGML_AVX2=$(onoff avx2) \
-DGGML_BMI2=$(onoff bmi2) -DGGML_FMA=$(onoff fma) -DGGML_F16C=$(onoff f16c) -DGGML_AVX_VNNI=$(onoff avx_vnni) \
-DGGML_AVX512=$(onoff avx512f) -DGGML_AVX512_VBMI=$(onoff avx512vbmi) -DGGML_AVX512_VNNI=$(onoff avx512_vnni) \
-DGGML_AVX512_BF16=$(onoff avx512_bf16) -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
ISA=${GGML_ISA_FLAGS:-$DETECTED}
echo "build_llamacpp_peer: $(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2-) -> $ISA"
echo "$ISA" > "$DEST/ISA_FLAGS"

# shellcheck disable=SC2086  # ISA is a list of flags
cmake -S "$DEST/src" -B "$DEST/build" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release \
  -DBUILD_SHARED_LIBS=ON \
  -DGGML_CUDA=OFF -DGGML_METAL=OFF -DGGML_VULKAN=OFF \
  -DLLAMA_OPENSSL=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
  -DLLAMA_BUILD_COMMIT="${COMMIT:0:7}" -DLLAMA_BUILD_NUMBER=0 \
  $ISA

# The library and the small tools first (what the golden scripts and the bench need), then
# the interactive tools.
cmake --build "$DEST/build" -j "$JOBS" --target llama llama-bench llama-simple llama-tokenize llama-quantize
# shellcheck disable=SC2086  # a list of targets
cmake --build "$DEST/build" -j "$JOBS" --target ${PEER_TARGETS:-llama-cli llama-server}

ls -l "$DEST/build/bin"
echo "llama.cpp ${COMMIT:0:7} built in $DEST/build/bin"
