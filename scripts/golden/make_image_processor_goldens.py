#!/usr/bin/env python3
"""Builds the Gemma 4 image-processor goldens with Hugging Face transformers and torchvision.

Run with the dev environment (scripts/requirements-dev.txt + requirements-dev-nodeps.txt; never in CI):
    /work/venv-dev/bin/python scripts/golden/make_image_processor_goldens.py [--out tests/golden]

Inputs are synthetic RGB images that both this script and the C++ test generate
(synthetic_image() here, tests/mm/synthetic_image.cc there), so no pixels are stored; each case
records the sha256 of its input so a drift between the two generators is reported as such.
Definition (all integer arithmetic, pixel index i = y * W + x):
    draw(i)     = splitmix64 output mix(seed + (i + 1) * 0x9E3779B97F4A7C15) (mod 2^64), with
                  mix(z) = z ^= z >> 30; z *= 0xBF58476D1CE4E5B9; z ^= z >> 27; z *= 0x94D049BB133111EB; z ^ (z >> 31)
    noise_c     = (draw(i) >> 8c) & 255
    grad_c      = (255x // max(W-1, 1) + 2 * (255y // max(H-1, 1)) + 85c) mod 256
    8x8 blocks ((x >> 3) + (y >> 3)) mod 3 are smooth (grad_c), textured ((grad_c + noise_c) >> 1)
    or hard edges (255 if noise_c & 128 else 0, which makes bicubic overshoot and clamp).

Writes tests/golden/image_processor/:
  cases.json   Gemma4ImageProcessor (torchvision backend, CPU) for the released settings (patch 16,
               pooling 3) at every budget and for the tiny vision config (patch 4, pooling 3, budget 70):
               target size, sha256 of the resized uint8 HWC bytes (+ sampled pixels), sha256 of the
               real patch rows of pixel_values as little-endian f32 (+ one row's leading values as
               f32 bit patterns), sha256 of the real positions as little-endian int64 [P, 2], counts.
  resize_sweep.json  torchvision resize(uint8, BICUBIC, antialias=True) alone on many (size -> size)
               pairs, small to 4032x3024 and 1x100000: sha256 of input and output bytes.
  video.json   Gemma4VideoProcessor (do_sample_frames=False) on short frame lists: frame target size,
               soft tokens per frame, sha256 of every frame's real patches; plus the same frames
               through the image processor at budget 70 (vLLM's video path).
Checks along the way: the resized image, rescaled and patchified here, equals HF's pixel_values
bit for bit; HF's padding rows are zero with positions -1.
"""
import argparse
import hashlib
import os
import platform
import sys

import numpy as np
import PIL
import torch
import torchvision
import transformers
from torchvision.transforms.v2 import functional as tvF
from transformers.models.gemma4.image_processing_gemma4 import Gemma4ImageProcessor
from transformers.models.gemma4.video_processing_gemma4 import Gemma4VideoProcessor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_manifest import update_manifest, write_json  # noqa: E402

PINNED = {"transformers": "5.25.0", "torch": "2.15.0", "torchvision": "0.29.2", "PIL": "12.0.0"}
AREA = "image_processor"
BUDGETS = (70, 140, 280, 560, 1120)
# (height, width); 336x432 is its own target at budget 70 (no resize there).
SIZES = ((40, 56), (5, 7), (224, 224), (480, 640), (3, 900), (1, 1), (97, 211), (336, 432))
# Tiny vision config (multimodal.md §8.2): patch 4, pooling 3, budget 70; 84x108 is its own target.
TINY_SIZES = ((40, 56), (5, 7), (224, 224), (3, 900), (1, 1), (97, 211), (84, 108))
SEED_BASE = 20260701
SAMPLED_PIXELS = 32
ROW_VALUES = 96

M64 = (1 << 64) - 1


def check_pins():
    got = {"transformers": transformers.__version__, "torch": torch.__version__.split("+")[0],
           "torchvision": torchvision.__version__.split("+")[0], "PIL": PIL.__version__}
    for k, v in PINNED.items():
        if got[k] != v:
            raise SystemExit(f"{k} {got[k]} != pinned {v} (scripts/requirements-dev*.txt)")


def synthetic_image(h, w, seed):
    """uint8 [h, w, 3] as documented above (numpy uint64 arithmetic wraps mod 2^64)."""
    with np.errstate(over="ignore"):
        i = np.arange(h * w, dtype=np.uint64)
        z = np.uint64(seed) + (i + np.uint64(1)) * np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    y, x = np.divmod(np.arange(h * w, dtype=np.int64), w)
    region = ((x >> 3) + (y >> 3)) % 3
    out = np.empty((h * w, 3), dtype=np.uint8)
    for c in range(3):
        noise = ((z >> np.uint64(8 * c)) & np.uint64(255)).astype(np.int64)
        grad = (255 * x // max(w - 1, 1) + 2 * (255 * y // max(h - 1, 1)) + 85 * c) % 256
        v = np.where(region == 0, grad, np.where(region == 1, (grad + noise) >> 1, np.where(noise & 128, 255, 0)))
        out[:, c] = v.astype(np.uint8)
    return out.reshape(h, w, 3)


def sha(a):
    return hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()


def sample_points(h, w, n, seed):
    """n (y, x) points: the four corners, then a fixed LCG walk."""
    pts = [(0, 0), (0, w - 1), (h - 1, 0), (h - 1, w - 1)]
    s = seed & M64
    while len(pts) < n:
        s = (s * 6364136223846793005 + 1442695040888963407) & M64
        pts.append(((s >> 33) % h, (s >> 13) % w))
    return pts


def patchify_reference(resized_hwc, p, divide):
    """What the processor must produce from the resized image (float32, (r, c, ch) order)."""
    u = resized_hwc.astype(np.float32)
    f = u / np.float32(255) if divide else u * np.float32(1 / 255)
    gh, gw = resized_hwc.shape[0] // p, resized_hwc.shape[1] // p
    return f.reshape(gh, p, gw, p, 3).transpose(0, 2, 1, 3, 4).reshape(gh * gw, p * p * 3)


def positions(gh, gw):
    n = np.arange(gh * gw, dtype=np.int64)
    return np.stack([n % gw, n // gw], axis=1)


def image_case(img, seed, budget, patch, pool):
    proc = Gemma4ImageProcessor(patch_size=patch, pooling_kernel_size=pool, max_soft_tokens=budget)
    out = proc(images=[img], input_data_format="channels_last", return_tensors="pt")
    pv, pos = out["pixel_values"][0].numpy(), out["image_position_ids"][0].numpy()
    n_tokens = int(out["num_soft_tokens_per_image"][0])
    chw = torch.from_numpy(img).permute(2, 0, 1).contiguous()
    resized = proc.aspect_ratio_preserving_resize(chw, patch, budget * pool * pool, pool,
                                                  tvF.InterpolationMode.BICUBIC)
    resized = resized.permute(1, 2, 0).contiguous().numpy()
    th, tw = resized.shape[:2]
    gh, gw = th // patch, tw // patch
    real = gh * gw
    mine = patchify_reference(resized, patch, divide=False)
    assert np.array_equal(mine.view(np.uint32), pv[:real].view(np.uint32)), "resized image != HF pixel_values"
    assert np.array_equal(pos[:real], positions(gh, gw)), "positions"
    assert not pv[real:].any() and (pos[real:] == -1).all(), "padding"
    assert n_tokens == (gh // pool) * (gw // pool)
    h, w = img.shape[:2]
    row = real // 2
    return {
        "height": h, "width": w, "seed": seed, "input_sha256": sha(img),
        "max_soft_tokens": budget, "patch_size": patch, "pooling_kernel": pool,
        "resized_height": th, "resized_width": tw, "resized": (th, tw) != (h, w),
        "resized_sha256": sha(resized),
        "resized_samples": [[int(y), int(x)] + resized[y, x].tolist() for y, x in sample_points(th, tw, SAMPLED_PIXELS, seed)],
        "grid_h": gh, "grid_w": gw, "num_soft_tokens": n_tokens,
        "pixel_values_sha256": sha(pv[:real].astype("<f4")),
        "pixel_row": row, "pixel_row_f32_bits": pv[row, :ROW_VALUES].view(np.uint32).tolist(),
        "positions_sha256": sha(pos[:real].astype("<i8")),
    }


def resize_sweep():
    rng = np.random.default_rng(SEED_BASE)
    pairs = [(3024, 4032, 1200, 1600), (3024, 4032, 1344, 1824), (4032, 3024, 1824, 1344), (1, 100000, 48, 13440),
             (100000, 1, 13440, 48), (1080, 1920, 576, 1056), (2, 3, 1000, 1), (1000, 1, 2, 3), (1, 1, 1, 7),
             (7, 1, 1, 1), (255, 256, 256, 255), (17, 23, 17, 1000), (640, 480, 640, 47)]
    for _ in range(140):
        h, w, th, tw = (int(v) for v in rng.integers(1, 320, 4))
        pairs.append((h, w, th, tw))
    out = []
    for k, (h, w, th, tw) in enumerate(pairs):
        seed = SEED_BASE + 1000 + k
        img = synthetic_image(h, w, seed)
        # A channels-last view: torch 2.15 trips an internal assert on the contiguous CHW 7x1 -> 1x1
        # resize (an output that is both memory formats); the bytes are the same either way.
        chw = torch.from_numpy(img).permute(2, 0, 1)
        res = tvF.resize(chw, [th, tw], interpolation=tvF.InterpolationMode.BICUBIC, antialias=True)
        out.append({"height": h, "width": w, "out_height": th, "out_width": tw, "seed": seed, "input_sha256": sha(img),
                    "output_sha256": sha(res.permute(1, 2, 0).contiguous().numpy())})
    return out


def video_cases():
    vp = Gemma4VideoProcessor()
    assert vp.max_soft_tokens == 70 and vp.patch_size == 16 and vp.pooling_kernel_size == 3
    cases = []
    for v, (h, w, n_frames) in enumerate(((120, 160, 4), (50, 300, 3), (336, 432, 2))):
        seeds = [SEED_BASE + 5000 + 10 * v + f for f in range(n_frames)]
        frames = np.stack([synthetic_image(h, w, s) for s in seeds])
        out = vp(videos=[frames], do_sample_frames=False, return_tensors="pt")
        pv, pos = out["pixel_values_videos"].numpy(), out["video_position_ids"].numpy()
        n_tokens = int(out["num_soft_tokens_per_video"][0])
        assert int(out["num_frames_per_video"][0]) == n_frames and pv.shape[0] == n_frames
        real = int((pos[0, :, 0] >= 0).sum())
        gw = int(pos[0, :real, 0].max()) + 1
        gh = real // gw
        th, tw = gh * 16, gw * 16
        frames_out = []
        for f in range(n_frames):
            chw = torch.from_numpy(frames[f]).permute(2, 0, 1).contiguous()
            resized = chw if (th, tw) == (h, w) else tvF.resize(chw, [th, tw], interpolation=tvF.InterpolationMode.BICUBIC, antialias=True)
            resized = resized.permute(1, 2, 0).contiguous().numpy()
            # HF's video processor fuses rescale into normalize: x / 255.0f.
            assert np.array_equal(patchify_reference(resized, 16, divide=True).view(np.uint32), pv[f, :real].view(np.uint32))
            assert np.array_equal(pos[f, :real], positions(gh, gw)) and not pv[f, real:].any()
            image = image_case(frames[f], seeds[f], 70, 16, 3)
            assert (image["resized_height"], image["resized_width"]) == (th, tw)
            frames_out.append({"seed": seeds[f], "input_sha256": sha(frames[f]), "resized_sha256": sha(resized),
                               "hf_video_pixel_values_sha256": sha(pv[f, :real].astype("<f4")),
                               "image_processor_pixel_values_sha256": image["pixel_values_sha256"]})
        cases.append({"height": h, "width": w, "resized_height": th, "resized_width": tw, "grid_h": gh, "grid_w": gw,
                      "num_soft_tokens_per_frame": n_tokens, "positions_sha256": sha(pos[0, :real].astype("<i8")),
                      "frames": frames_out})
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    args = ap.parse_args()
    check_pins()
    torch.set_num_threads(1)
    root = os.path.abspath(args.out)
    area = os.path.join(root, AREA)
    os.makedirs(area, exist_ok=True)
    cases = []
    for k, (h, w) in enumerate(SIZES):
        img = synthetic_image(h, w, SEED_BASE + k)
        for budget in BUDGETS:
            cases.append(image_case(img, SEED_BASE + k, budget, 16, 3))
    for k, (h, w) in enumerate(TINY_SIZES):
        img = synthetic_image(h, w, SEED_BASE + 100 + k)
        cases.append(image_case(img, SEED_BASE + 100 + k, 70, 4, 3))
    write_json(os.path.join(area, "cases.json"), {"cases": cases})
    write_json(os.path.join(area, "resize_sweep.json"), {"pairs": resize_sweep()})
    write_json(os.path.join(area, "video.json"), {"videos": video_cases()})
    versions = {"python": platform.python_version(), "torch": torch.__version__, "torchvision": torchvision.__version__,
                "transformers": transformers.__version__, "numpy": np.__version__, "pillow": PIL.__version__}
    update_manifest(root, AREA, {"generator": "scripts/golden/make_image_processor_goldens.py", "seed": SEED_BASE,
                                 "versions": versions, "torch_threads": 1, "device": "cpu"})
    print(f"{AREA}: {len(cases)} processor cases written to {area}")


if __name__ == "__main__":
    main()
