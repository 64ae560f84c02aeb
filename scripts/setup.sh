#!/usr/bin/env bash
# Idempotent set-up of a fresh Debian 12 machine for building and testing gemmad.
#   scripts/setup.sh         Debian build/test packages + .venv with scripts/requirements-test.txt
#   scripts/setup.sh --dev   also scripts/requirements-dev.txt (torch, transformers: golden regeneration)
set -euo pipefail
cd "$(dirname "$0")/.."

dev=0
for arg in "$@"; do
  case "$arg" in
    --dev) dev=1 ;;
    *) echo "setup.sh: unknown option $arg (expected --dev)" >&2; exit 2 ;;
  esac
done

PACKAGES=(
  cmake ninja-build g++ pkg-config git ccache   # ccache: rebuilds across worktrees and fresh clones (CMakeLists.txt)
  libfmt-dev nlohmann-json3-dev libgtest-dev libgmock-dev libbenchmark-dev
  libboost-dev libcurl4-openssl-dev libssl-dev
  libjpeg62-turbo-dev libpng-dev libwebp-dev libgif-dev   # image decoding (src/mm, docs/media.md)
  libavformat-dev libavcodec-dev libavutil-dev libswscale-dev   # video decoding (src/mm/video_*)
  libsndfile1-dev libsoxr-dev libfftw3-dev libvorbis-dev libogg-dev   # audio decoding, resampling, log-mel (src/mm/audio_*)
  zlib1g-dev                                  # verbose_json compression ratio (src/api/transcription_format.cc)
  libopenmpi-dev openmpi-bin                  # tensor parallel over MPI (src/dist)
  python3 python3-venv python3-pip curl
  ffmpeg openssl                     # e2e media: test videos (ffmpeg CLI), a local TLS site (openssl CLI)
  g++-aarch64-linux-gnu qemu-user   # aarch64 NEON kernel parity under qemu (scripts/cross_parity.sh)
  chromium chromium-driver          # the web chat page's browser test (tests/e2e/test_web_page.py)
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup.sh: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -q || true   # a stale list still installs when the mirror is unreachable
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.requirements-test.sha
want=$(sha256sum scripts/requirements-test.txt | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  .venv/bin/pip install -q --disable-pip-version-check -r scripts/requirements-test.txt
  echo "$want" > "$stamp"
fi

if ((dev)); then
  stamp=.venv/.requirements-dev.sha
  want=$(cat scripts/requirements-dev.txt scripts/requirements-dev-nodeps.txt | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    .venv/bin/pip install -q --disable-pip-version-check -r scripts/requirements-dev.txt
    # transformers pins `kernels>=0.19` that has no wheel for Debian 12's Python 3.11 and is not
    # needed on the CPU; its other requirements are listed in requirements-dev.txt (docs/adr/002).
    .venv/bin/pip install -q --disable-pip-version-check --no-deps -r scripts/requirements-dev-nodeps.txt
    echo "$want" > "$stamp"
  fi
fi
echo "setup.sh: ready (venv: .venv$( ((dev)) && echo ', dev packages'))"
