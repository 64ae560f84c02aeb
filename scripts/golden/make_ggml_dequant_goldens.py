#!/usr/bin/env python3
"""Builds the ggml dequantization goldens: for each ggml type gemmad dequantizes
(src/tensor/ggml_quants.h) a run of blocks and what gguf-py's `gguf.quants.dequantize` makes of them.

Run with an environment that has gguf-py (gguf==0.19.0, pinned in scripts/requirements-dev.txt)
and numpy (never in CI):
    .venv/bin/python scripts/golden/make_ggml_dequant_goldens.py [--out tests/golden]

Per type, tests/golden/ggml_dequant/<TYPE>.blocks holds the raw blocks and <TYPE>.f32 the floats
(little-endian float32, bit patterns compared exactly by tests/tensor/ggml_dequant_golden_test.cc);
cases.json lists them. The blocks are seeded random bytes whose f16 scale fields are overwritten
with finite values: mostly normal f16 of moderate magnitude (2^-14 .. 2^5, either sign), plus edge
blocks: all scales 0, all scales negative, payload bytes all 0xFF (largest nibbles / indices),
payload all 0x00, a subnormal d with the largest finite f16 as the second scale. F16 and BF16 cover
all 65536 bit patterns (NaNs and infinities included), F32 random bit patterns. MXFP4's E8M0
exponent byte stays random (0, 1 and 255 included), so some of its outputs are +-inf on both
sides. Q8_K is absent: gguf-py has no dequantizer for it (src/tensor/ggml_quants_test.cc covers
it). Running it twice writes identical files.
"""
import argparse
import importlib.metadata
import os
import platform
import shutil
import sys

import gguf
import numpy as np
from gguf import GGMLQuantizationType as T
from gguf.constants import GGML_QUANT_SIZES

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_manifest import update_manifest, write_json  # noqa: E402

SEED = 20261205
AREA = "ggml_dequant"
PINNED_GGUF = "0.19.0"

# Byte offsets of each type's f16 scale fields within a block (ggml-common.h): the first is the
# scale d, the others (m / dmin) follow it.
SCALE_FIELDS = {
    T.Q4_0: [0], T.Q4_1: [0, 2], T.Q5_0: [0], T.Q5_1: [0, 2], T.Q8_0: [0],
    T.Q2_K: [80, 82], T.Q3_K: [108], T.Q4_K: [0, 2], T.Q5_K: [0, 2], T.Q6_K: [208],
    T.IQ4_NL: [0], T.IQ4_XS: [0], T.MXFP4: [],
}
BLOCKS = {32: 16, 256: 8}  # blocks per type, by block size


def random_normal_f16(rng, size):
    """Finite normal f16 bit patterns with |x| in [2^-14, 2^5), random sign."""
    sign = rng.integers(0, 2, size, dtype=np.uint16) << 15
    exp = rng.integers(1, 20, size, dtype=np.uint16) << 10
    mant = rng.integers(0, 1024, size, dtype=np.uint16)
    return sign | exp | mant


def quant_blocks(rng, qtype):
    block_size, type_size = GGML_QUANT_SIZES[qtype]
    nb = BLOCKS[block_size]
    raw = rng.integers(0, 256, (nb, type_size), dtype=np.uint8)
    fields = SCALE_FIELDS[qtype]
    scale_bytes = {o + k for o in fields for k in (0, 1)}
    payload = [i for i in range(type_size) if i not in scale_bytes]

    def set_f16(block, values):
        for off, v in zip(fields, values):
            raw[block, off:off + 2] = np.array([v], dtype="<u2").view(np.uint8)

    for b in range(nb):
        set_f16(b, random_normal_f16(rng, len(fields)))
    set_f16(0, [0] * len(fields))                                      # d = 0 (and m / dmin = 0)
    set_f16(1, random_normal_f16(rng, len(fields)) | 0x8000)           # every scale negative
    raw[2, payload] = 0xFF                                             # largest nibbles / indices
    raw[3, payload] = 0x00
    set_f16(4, [int(rng.integers(1, 1024))] + [0x7BFF] * (len(fields) - 1))  # subnormal d, 65504
    return raw.reshape(1, -1), nb * block_size


def plain_blocks(rng, qtype):
    if qtype in (T.F16, T.BF16):
        bits = np.arange(65536, dtype="<u2")
        return bits.view(np.uint8).reshape(1, -1), 65536
    specials = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 1, 0x7F7FFFFF],
                        dtype="<u4")
    bits = np.concatenate([specials, rng.integers(0, 2**32, 1016, dtype=np.uint64).astype("<u4")])
    return bits.view(np.uint8).reshape(1, -1), bits.size


TYPES = [T.F32, T.F16, T.BF16, T.Q4_0, T.Q4_1, T.Q5_0, T.Q5_1, T.Q8_0, T.Q2_K, T.Q3_K, T.Q4_K, T.Q5_K,
         T.Q6_K, T.IQ4_NL, T.IQ4_XS, T.MXFP4]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    args = ap.parse_args()
    version = importlib.metadata.version("gguf")
    if version != PINNED_GGUF:
        print(f"warning: gguf {version}, goldens were made with {PINNED_GGUF}", file=sys.stderr)
    root = os.path.abspath(args.out)
    out_dir = os.path.join(root, AREA)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    rng = np.random.default_rng(SEED)
    cases = []
    for qtype in TYPES:
        plain = qtype in (T.F32, T.F16, T.BF16)
        data, n = plain_blocks(rng, qtype) if plain else quant_blocks(rng, qtype)
        with np.errstate(over="ignore", invalid="ignore"):
            out = gguf.quants.dequantize(data, qtype)
        out = np.ascontiguousarray(out, dtype=np.float32).reshape(-1)
        assert out.size == n, (qtype.name, out.shape, n)
        name = qtype.name
        with open(os.path.join(out_dir, f"{name}.blocks"), "wb") as f:
            f.write(data.tobytes())
        with open(os.path.join(out_dir, f"{name}.f32"), "wb") as f:
            f.write(out.astype("<f4").tobytes())
        cases.append({"type": name, "id": int(qtype), "elements": n, "blocks": f"{name}.blocks",
                      "floats": f"{name}.f32"})
    write_json(os.path.join(out_dir, "cases.json"), {"cases": cases})
    versions = {"python": platform.python_version(), "gguf": version, "numpy": np.__version__}
    update_manifest(root, AREA, {"generator": "scripts/golden/make_ggml_dequant_goldens.py", "seed": SEED,
                                 "versions": versions})
    print(f"wrote {len(cases)} types to {out_dir}")


if __name__ == "__main__":
    main()
