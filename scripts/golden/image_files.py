"""Hand-written image files for make_image_goldens.py: the variants Pillow cannot write (16-bit and
Adam7-interlaced PNG, low-bit gray PNG, BMP with other headers, bit depths, bitfields, top-down rows
and RLE) and byte patches of Pillow's GIF output. Standard library + numpy only.
"""
import struct
import zlib

import numpy as np


# ---------------------------------------------------------------------------------------- PNG

def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def _pack_row(samples, depth):
    """One row of integer samples (already interleaved) at `depth` bits, big-endian."""
    samples = np.asarray(samples).reshape(-1)
    if depth == 16:
        return samples.astype(">u2").tobytes()
    if depth == 8:
        return samples.astype(np.uint8).tobytes()
    per_byte = 8 // depth
    out = bytearray()
    for i in range(0, len(samples), per_byte):
        b = 0
        for j in range(per_byte):
            v = int(samples[i + j]) if i + j < len(samples) else 0
            b |= v << (8 - depth * (j + 1))
        out.append(b)
    return bytes(out)


ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]


def png_file(pixels, depth, color_type, interlace=False, before_idat=(), palette=None):
    """pixels: [H, W] or [H, W, C] integer samples. Filter type 0 on every row."""
    pixels = np.asarray(pixels)
    h, w = pixels.shape[:2]
    raw = bytearray()
    if not interlace:
        for y in range(h):
            raw += b"\x00" + _pack_row(pixels[y], depth)
    else:
        for x0, y0, dx, dy in ADAM7:
            sub = pixels[y0::dy, x0::dx]
            if sub.shape[0] == 0 or sub.shape[1] == 0:
                continue
            for y in range(sub.shape[0]):
                raw += b"\x00" + _pack_row(sub[y], depth)
    out = b"\x89PNG\r\n\x1a\n" + png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, depth, color_type, 0, 0, int(interlace)))
    for kind, data in before_idat:
        out += png_chunk(kind, data)
    if palette is not None:
        out += png_chunk(b"PLTE", bytes(palette))
    return out + png_chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + png_chunk(b"IEND", b"")


# ---------------------------------------------------------------------------------------- BMP

def bmp_file(width, height_field, bits, data, header_size=40, compression=0, palette=b"", masks=None,
             colors=0, offset=None, core=False):
    """A BMP with a BITMAPCOREHEADER (core=True, 12 bytes) or a 40..124-byte info header. masks:
    (r, g, b[, a]) written inside a >= 52-byte header, or after a 40-byte one."""
    if core:
        info = struct.pack("<IHHHH", 12, width, height_field, 1, bits)
        after = b""
    else:
        info = struct.pack("<IiiHHIIiiII", header_size, width, height_field, 1, bits, compression, len(data),
                           2835, 2835, colors, 0)
        after = b""
        if masks is not None and header_size >= 52:
            info += struct.pack("<" + "I" * len(masks), *masks)
        elif masks is not None:
            after = struct.pack("<III", *masks[:3])
        info += b"\x00" * (header_size - len(info))
    start = 14 + len(info) + len(after) + len(palette)
    off = start if offset is None else offset
    size = start + len(data)
    return b"BM" + struct.pack("<IHHI", size, 0, 0, off) + info + after + palette + data


def bmp_rows(rows_bytes, top_down=False):
    """Row bytes (top row first) padded to 4 bytes and stored bottom-up unless top_down."""
    out = [r + b"\x00" * (-len(r) % 4) for r in rows_bytes]
    return b"".join(out if top_down else out[::-1])


def rle8_encode(indices):
    """RLE8 stream of [H, W] indices (bottom row first), with encoded and absolute runs, an
    end-of-line after every row and end-of-bitmap at the end."""
    out = bytearray()
    for row in indices[::-1]:
        x, w = 0, len(row)
        while x < w:
            run = 1
            while x + run < w and row[x + run] == row[x] and run < 255:
                run += 1
            if run >= 3 or w - x < 3:
                out += bytes([run, row[x]])
                x += run
                continue
            n = min(w - x, 7 + (x % 5))  # an absolute run, odd lengths included (padded)
            out += bytes([0, n]) + bytes(int(v) for v in row[x:x + n])
            if n % 2:
                out += b"\x00"
            x += n
        out += b"\x00\x00"
    return bytes(out + b"\x00\x01")


def rle4_encode(indices):
    """RLE4 stream: encoded runs of two alternating nibbles and even-length absolute runs."""
    out = bytearray()
    for row in indices[::-1]:
        x, w = 0, len(row)
        while x < w:
            if x % 3 == 0 or w - x < 4:
                n = min(w - x, 5)
                hi, lo = int(row[x]), int(row[x + 1]) if x + 1 < w else 0
                out += bytes([n, (hi << 4) | lo])
                # Only exact when the run really alternates; make it so in the picture.
                x += n
            else:
                n = min(w - x, 6) // 2 * 2
                out += bytes([0, n])
                vals = [int(v) for v in row[x:x + n]]
                out += bytes((vals[i] << 4) | vals[i + 1] for i in range(0, n, 2))
                if (n // 2) % 2:
                    out += b"\x00"
                x += n
        out += b"\x00\x00"
    return bytes(out + b"\x00\x01")


# ---------------------------------------------------------------------------------------- GIF

def gif_first_descriptor(data):
    """Offset of the first image descriptor (the ',' byte) in a GIF."""
    flags = data[10]
    pos = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    while True:
        b = data[pos]
        if b == 0x2C:
            return pos
        if b != 0x21:
            raise ValueError(f"unexpected GIF byte {b:#x} at {pos}")
        pos += 2
        while data[pos]:
            pos += data[pos] + 1
        pos += 1


def gif_with_screen(data, screen_w, screen_h, left, top):
    """A copy whose logical screen is screen_w x screen_h and whose first frame sits at (left, top)."""
    d = bytearray(data)
    d[6:10] = struct.pack("<HH", screen_w, screen_h)
    at = gif_first_descriptor(d)
    d[at + 1:at + 5] = struct.pack("<HH", left, top)
    return bytes(d)
