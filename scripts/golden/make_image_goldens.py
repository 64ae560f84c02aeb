#!/usr/bin/env python3
"""Builds the image-decoding goldens: small synthetic images in every format and mode DecodeImage
(src/mm/image_decode.h) supports, each with the RGB bytes vLLM would hand the HF processor.

Run with the dev environment (never in CI):
    /work/venv-dev/bin/python scripts/golden/make_image_goldens.py [--out tests/golden] [--fuzz-corpus fuzz/corpus/image_decode]

Each case is written as tests/golden/media_images/<name>.<ext> (the encoded file) and <name>.rgb
(height x width x 3 bytes, row-major), listed in media_images/cases.json with its size and the mode
PIL opened it in. The expected bytes are what vLLM's ImageMediaIO.load_bytes returns
(vllm/multimodal/media/image.py, `load_bytes` and `_convert_image_mode`, with `rgba_to_rgb` and
`convert_image_mode` from vllm/multimodal/image.py), restated below as vllm_load_bytes(). Pictures
are gradients plus seeded noise so that rounding differences show. With --fuzz-corpus the same
builders also write tiny seed files for fuzz/image_decode_fuzz.cc. Running it twice writes
identical files (fixed seed; Pillow's encoders are deterministic).
"""
import argparse
import io
import json
import os
import platform
import shutil
import struct
import sys

import numpy as np
import PIL
from PIL import Image, features

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_manifest import update_manifest, write_json  # noqa: E402
from image_files import (bmp_file, bmp_rows, gif_with_screen, png_chunk, png_file, rle4_encode,  # noqa: E402
                         rle8_encode)

SEED = 20260701
AREA = "media_images"
PINNED = {"pillow": "12.0.0"}


# ------------------------------------------------------------------------ vLLM's conversion
# vllm/multimodal/image.py
def rgba_to_rgb(image, background_color=(255, 255, 255)):
    """Convert an RGBA image to RGB with filled background color."""
    assert image.mode == "RGBA"
    converted = Image.new("RGB", image.size, background_color)
    converted.paste(image, mask=image.split()[3])  # 3 is the alpha channel
    return converted


def convert_image_mode(image, to_mode):
    if image.mode == to_mode:
        return image
    elif image.mode == "RGBA" and to_mode == "RGB":
        return rgba_to_rgb(image)
    else:
        return image.convert(to_mode)


# vllm/multimodal/media/image.py, ImageMediaIO(image_mode="RGB") with the default
# rgba_background_color (255, 255, 255): load_bytes() -> _convert_image_mode().
def vllm_load_bytes(data, image_mode="RGB", rgba_background_color=(255, 255, 255)):
    image = Image.open(io.BytesIO(data))
    opened_mode = image.mode
    if image.mode == image_mode:
        out = image
    elif image.mode == "RGBA" and image_mode == "RGB":
        out = rgba_to_rgb(image, rgba_background_color)
    else:
        out = convert_image_mode(image, image_mode)
    return out, opened_mode


# ------------------------------------------------------------------------ pictures
def picture(rng, h, w, channels=3):
    """Smooth gradients per channel plus noise, as uint8 [h, w, channels]."""
    y, x = np.mgrid[0:h, 0:w].astype(np.float64)
    out = []
    for c in range(channels):
        base = 127 + 100 * np.sin((x * (c + 1) / w + y / h * (2 - c * 0.4)) * 3.1)
        out.append(base + rng.normal(0, 18, (h, w)))
    return np.clip(np.stack(out, -1), 0, 255).round().astype(np.uint8)


def alpha_plane(rng, h, w):
    """Alpha covering 0 and 255 exactly and everything in between."""
    y, x = np.mgrid[0:h, 0:w]
    a = (x * 255 // max(w - 1, 1)).astype(np.int64)
    a = np.where(y % 5 == 0, 255, a)
    a = np.where(y % 7 == 3, 0, a)
    return np.clip(a + rng.integers(-20, 21, (h, w)) * (y % 3 == 1), 0, 255).astype(np.uint8)


def save(im, fmt, **kw):
    buf = io.BytesIO()
    im.save(buf, fmt, **kw)
    return buf.getvalue()


def with_chunk_after_ihdr(png, kind, data):
    return png[:33] + png_chunk(kind, data) + png[33:]


# ------------------------------------------------------------------------ cases
def build_cases(rng, h, w):
    """[(name, ext, bytes)] for a picture of h x w."""
    rgb = picture(rng, h, w)
    a = alpha_plane(rng, h, w)
    im = Image.fromarray(rgb, "RGB")
    rgba = Image.fromarray(np.dstack([rgb, a]), "RGBA")
    gray = Image.fromarray(rgb[..., 1], "L")
    la = Image.fromarray(np.dstack([rgb[..., 0], a]), "LA")
    pal = im.quantize(colors=37, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    pal16 = im.quantize(colors=13, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    cmyk_arr = np.dstack([rgb, (rgb.astype(np.int64).sum(-1) // 5 % 256).astype(np.uint8)])
    cmyk = Image.fromarray(cmyk_arr, "CMYK")
    bw = Image.fromarray((rgb[..., 0] > 127).astype(np.uint8) * 255, "L").convert("1", dither=Image.Dither.NONE)
    c = []
    # JPEG: Pillow's libjpeg-turbo encoder; decoded by PIL with ISLOW + fancy upsampling.
    c.append(("jpeg_420", "jpg", save(im, "JPEG", quality=88, subsampling=2)))
    c.append(("jpeg_422", "jpg", save(im, "JPEG", quality=88, subsampling=1)))
    c.append(("jpeg_444", "jpg", save(im, "JPEG", quality=92, subsampling=0)))
    c.append(("jpeg_gray", "jpg", save(gray, "JPEG", quality=85)))
    c.append(("jpeg_cmyk", "jpg", save(cmyk, "JPEG", quality=90)))
    c.append(("jpeg_progressive", "jpg", save(im, "JPEG", quality=80, progressive=True)))
    c.append(("jpeg_optimized_restart", "jpg", save(im, "JPEG", quality=75, optimize=True, restart_marker_rows=1)))
    exif = Image.Exif()
    exif[0x0112] = 6  # Orientation: rotate 90 CW; PIL's open and vLLM leave the pixels as stored
    c.append(("jpeg_exif_orientation", "jpg", save(im, "JPEG", quality=88, exif=exif.tobytes())))
    # PNG
    c.append(("png_rgb", "png", save(im, "PNG")))
    c.append(("png_rgba", "png", save(rgba, "PNG")))
    c.append(("png_la", "png", save(la, "PNG")))
    c.append(("png_l", "png", save(gray, "PNG")))
    c.append(("png_1bit", "png", save(bw, "PNG")))
    c.append(("png_p", "png", save(pal, "PNG")))
    c.append(("png_p4", "png", save(pal16, "PNG", bits=4)))
    c.append(("png_p_trns", "png", save(pal, "PNG", transparency=bytes([0, 128] + [255] * 10 + [40] * 25))))
    c.append(("png_l_trns", "png", save(gray, "PNG", transparency=int(rgb[0, 0, 1]))))
    c.append(("png_rgb_trns", "png", save(im, "PNG", transparency=tuple(int(v) for v in rgb[0, 0]))))
    c.append(("png_gamma_srgb", "png", with_chunk_after_ihdr(with_chunk_after_ihdr(save(im, "PNG"), b"gAMA",
                                                                                     struct.pack(">I", 100000)),
                                                             b"sRGB", b"\x00")))
    g16 = (rgb[..., 0].astype(np.uint32) * 257 // 256 * (np.arange(w) % 3 != 0)).astype(np.uint16)  # < 256 often
    g16 = np.where(np.arange(h)[:, None] % 4 == 0, rgb[..., 1].astype(np.uint16) * 250, g16)
    c.append(("png_l16", "png", png_file(g16, 16, 0)))
    r16 = rgb.astype(np.uint16) * 257 + rng.integers(0, 256, rgb.shape).astype(np.uint16) % 257
    c.append(("png_rgb16", "png", png_file(r16, 16, 2)))
    a16 = a.astype(np.uint16) * 256 + rng.integers(0, 256, a.shape).astype(np.uint16)
    c.append(("png_rgba16", "png", png_file(np.dstack([r16, a16]), 16, 6)))
    c.append(("png_la16", "png", png_file(np.dstack([r16[..., 0], a16]), 16, 4)))
    c.append(("png_gray2", "png", png_file(rgb[..., 0] >> 6, 2, 0)))
    c.append(("png_gray4", "png", png_file(rgb[..., 0] >> 4, 4, 0)))
    c.append(("png_gray4_trns", "png", png_file(rgb[..., 1] >> 4, 4, 0, before_idat=[(b"tRNS", b"\x00\x07")])))
    c.append(("png_interlaced_rgb", "png", png_file(rgb, 8, 2, interlace=True)))
    c.append(("png_interlaced_rgba16", "png", png_file(np.dstack([r16, a16]), 16, 6, interlace=True)))
    pal_bytes = list(np.asarray(pal.getpalette()[:3 * 37], dtype=np.uint8))
    idx = np.asarray(pal)
    c.append(("png_interlaced_p2", "png", png_file(idx % 4, 2, 3, interlace=True, palette=pal_bytes[:12])))
    c.append(("png_p_short_plte", "png", png_file(idx % 8, 8, 3, palette=pal_bytes[:15])))  # indices 5..7: black
    # WebP (Pillow's bundled libwebp encodes; WebPAnimDecoder decodes, mode from WebPGetFeatures)
    c.append(("webp_lossy", "webp", save(im, "WEBP", quality=80, method=4)))
    c.append(("webp_lossless", "webp", save(im, "WEBP", lossless=True)))
    c.append(("webp_lossy_alpha", "webp", save(rgba, "WEBP", quality=75, method=4)))
    c.append(("webp_lossless_alpha", "webp", save(rgba, "WEBP", lossless=True, exact=True)))
    frames = [rgba, Image.fromarray(picture(rng, h, w), "RGB").convert("RGBA")]
    c.append(("webp_animated", "webp", save(frames[0], "WEBP", save_all=True, append_images=frames[1:],
                                            duration=100, lossless=True)))
    # GIF: Pillow interlaces frames of at least 16 rows unless told not to.
    c.append(("gif_static", "gif", save(pal, "GIF", interlace=False)))
    c.append(("gif_interlaced", "gif", save(pal, "GIF", interlace=True)))
    c.append(("gif_gray", "gif", save(gray, "GIF", interlace=False, optimize=False)))  # gray-ramp table: PIL reads L
    c.append(("gif_transparent", "gif", save(pal, "GIF", transparency=3, interlace=False)))
    anim = [pal, im.transpose(Image.Transpose.FLIP_LEFT_RIGHT).quantize(colors=20), pal16]
    c.append(("gif_animated", "gif", save(anim[0], "GIF", save_all=True, append_images=anim[1:], duration=80,
                                          loop=0)))
    small = save(pal.crop((0, 0, w - 7, h - 5)), "GIF", transparency=9, interlace=False)
    c.append(("gif_frame_offset", "gif", gif_with_screen(small, w, h, 4, 3)))  # border = transparent index 9
    small = save(pal.crop((0, 0, w - 7, h - 5)), "GIF", interlace=False)
    c.append(("gif_frame_outside_screen", "gif", gif_with_screen(small, w - 10, h - 8, 5, 2)))  # canvas grows
    # BMP: Pillow writes 1/8/24/32-bit bottom-up; the rest is hand-written (image_files.py).
    c.append(("bmp_24", "bmp", save(im, "BMP")))
    c.append(("bmp_32_bgra", "bmp", save(rgba, "BMP")))  # BI_RGB 32-bit: PIL reads BGRX, alpha ignored
    c.append(("bmp_8_palette", "bmp", save(pal, "BMP")))
    c.append(("bmp_8_gray", "bmp", save(gray, "BMP")))
    c.append(("bmp_1bit", "bmp", save(bw, "BMP")))
    rows24 = [bytes(rgb[y, :, ::-1].reshape(-1)) for y in range(h)]
    c.append(("bmp_24_top_down", "bmp", bmp_file(w, -h, 24, bmp_rows(rows24, top_down=True))))
    pal4 = bytes(sum(([int(v) for v in pal_bytes[3 * i:3 * i + 3][::-1]] + [0] for i in range(12)), []))
    idx16 = idx % 12
    rows4 = [bytes((int(idx16[y, x]) << 4) | (int(idx16[y, x + 1]) if x + 1 < w else 0) for x in range(0, w, 2))
             for y in range(h)]
    c.append(("bmp_4bit", "bmp", bmp_file(w, h, 4, bmp_rows(rows4), palette=pal4, colors=12)))
    px555 = ((rgb[..., 0] >> 3).astype(np.uint16) << 10) | ((rgb[..., 1] >> 3).astype(np.uint16) << 5) | (rgb[..., 2] >> 3)
    c.append(("bmp_16_555", "bmp", bmp_file(w, h, 16, bmp_rows([px555[y].astype("<u2").tobytes() for y in range(h)]))))
    px565 = ((rgb[..., 0] >> 3).astype(np.uint16) << 11) | ((rgb[..., 1] >> 2).astype(np.uint16) << 5) | (rgb[..., 2] >> 3)
    c.append(("bmp_16_565_bitfields", "bmp", bmp_file(w, h, 16, bmp_rows([px565[y].astype("<u2").tobytes()
                                                                           for y in range(h)]),
                                                      compression=3, masks=(0xF800, 0x7E0, 0x1F))))
    bgra = np.dstack([rgb[..., ::-1], a])
    c.append(("bmp_32_v5_alpha", "bmp", bmp_file(w, h, 32, bmp_rows([bytes(bgra[y].reshape(-1)) for y in range(h)]),
                                                 header_size=124, compression=3,
                                                 masks=(0xFF0000, 0xFF00, 0xFF, 0xFF000000))))
    xbgr = np.dstack([a, rgb[..., ::-1]])  # bytes X B G R: masks R=0xFF000000, G=0xFF0000, B=0xFF00
    c.append(("bmp_32_v4_xbgr", "bmp", bmp_file(w, -h, 32, bmp_rows([bytes(xbgr[y].reshape(-1)) for y in range(h)],
                                                                    top_down=True),
                                                header_size=108, compression=3,
                                                masks=(0xFF000000, 0xFF0000, 0xFF00, 0x0))))
    pal8 = bytes(sum(([int(v) for v in pal_bytes[3 * i:3 * i + 3][::-1]] + [0] for i in range(37)), []))
    c.append(("bmp_rle8", "bmp", bmp_file(w, h, 8, rle8_encode(idx), compression=1, palette=pal8, colors=37)))
    c.append(("bmp_rle4", "bmp", bmp_file(w, h, 4, rle4_encode(idx16), compression=2, palette=pal4, colors=12)))
    pal_core = bytes(sum(([int(v) for v in pal_bytes[3 * i:3 * i + 3][::-1]] for i in range(37)), []))
    pal_core += b"\x00" * (3 * 256 - len(pal_core))
    c.append(("bmp_core_8bit", "bmp", bmp_file(w, h, 8, bmp_rows([bytes(int(v) for v in idx[y]) for y in range(h)]),
                                               palette=pal_core, core=True)))
    pal8_full = pal8 + b"\x00" * (4 * 256 - len(pal8))
    c.append(("bmp_offset_at_palette", "bmp", bmp_file(w, h, 8, bmp_rows([bytes(int(v) for v in idx[y])
                                                                          for y in range(h)]),
                                                       palette=pal8_full, offset=54)))
    return c


def write_cases(out_dir, cases, with_rgb=True):
    index = []
    for name, ext, data in cases:
        rgb_im, opened_mode = vllm_load_bytes(data)
        arr = np.asarray(rgb_im)
        assert arr.dtype == np.uint8 and arr.ndim == 3 and arr.shape[2] == 3, (name, arr.shape)
        with open(os.path.join(out_dir, f"{name}.{ext}"), "wb") as f:
            f.write(data)
        entry = {"name": name, "file": f"{name}.{ext}", "width": int(arr.shape[1]), "height": int(arr.shape[0]),
                 "pil_mode": opened_mode}
        if with_rgb:
            with open(os.path.join(out_dir, f"{name}.rgb"), "wb") as f:
                f.write(arr.tobytes())
            entry["rgb"] = f"{name}.rgb"
        index.append(entry)
    return index


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests", "golden"))
    ap.add_argument("--fuzz-corpus", help="also write tiny seed files for fuzz/image_decode_fuzz.cc here")
    args = ap.parse_args()
    if PIL.__version__ != PINNED["pillow"]:
        print(f"warning: Pillow {PIL.__version__}, goldens were made with {PINNED['pillow']}", file=sys.stderr)
    root = os.path.abspath(args.out)
    out_dir = os.path.join(root, AREA)
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    # 37 x 23: odd, not a multiple of any JPEG MCU, more than 16 rows (Pillow interlaces GIFs).
    cases = build_cases(np.random.default_rng(SEED), 23, 37)
    index = write_cases(out_dir, cases)
    modes = sorted({e["pil_mode"] for e in index})
    write_json(os.path.join(out_dir, "cases.json"), {"cases": index, "pil_modes": modes})
    versions = {"python": platform.python_version(), "pillow": PIL.__version__, "numpy": np.__version__,
                "libjpeg_turbo": features.version("libjpeg_turbo"), "libwebp": features.version("webp"),
                "zlib": features.version("zlib")}
    update_manifest(root, AREA, {"generator": "scripts/golden/make_image_goldens.py", "seed": SEED,
                                 "versions": versions})
    print(f"wrote {len(index)} cases to {out_dir} (PIL modes: {', '.join(modes)})")
    if args.fuzz_corpus:
        shutil.rmtree(args.fuzz_corpus, ignore_errors=True)
        os.makedirs(args.fuzz_corpus)
        tiny = build_cases(np.random.default_rng(SEED + 1), 9, 12)
        for name, ext, data in tiny:
            with open(os.path.join(args.fuzz_corpus, f"{name}.{ext}"), "wb") as f:
                f.write(data)
        print(f"wrote {len(tiny)} seeds to {args.fuzz_corpus}")


if __name__ == "__main__":
    main()
