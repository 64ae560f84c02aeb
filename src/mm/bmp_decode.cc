// BMP pixels, the way PIL's raw and BmpRleDecoder decoders read them given the layout that
// ParseBmpLayout (bmp_layout.cc) took from the headers, then vLLM's conversion: P through the
// palette, "1" and L as gray, RGB as is, RGBA (32-bit BITFIELDS with an alpha mask) composited
// onto white. Rows are stored bottom-up unless the layout says top-down.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "mm/bmp_layout.h"
#include "mm/image_decode_internal.h"

namespace gemmad::mm::internal {

namespace {

uint64_t UnpackBits(BmpRaw raw) {
  switch (raw) {
    case BmpRaw::kBits1: return 1;
    case BmpRaw::kBits4: return 4;
    case BmpRaw::kBits8: return 8;
    case BmpRaw::kBgr15:
    case BmpRaw::kBgr16: return 16;
    case BmpRaw::kBgr24: return 24;
    case BmpRaw::kBytes32: return 32;
  }
  return 8;
}

uint8_t Scale(uint32_t v, uint32_t max) { return static_cast<uint8_t>(v * 255 / max); }  // PIL's unpackers

// One pixel of `layout.mode` from an 8-bit value (palette index or gray level).
void IndexedPixel(const BmpLayout& layout, uint8_t v, uint8_t* out) {
  if (layout.mode == BmpMode::kP) {
    std::memcpy(out, layout.palette[v].data(), 3);
  } else {
    out[0] = out[1] = out[2] = v;
  }
}

void UnpackRow(const BmpLayout& layout, const uint8_t* in, uint8_t* out) {
  const uint64_t w = layout.width;
  for (uint64_t x = 0; x < w; ++x, out += 3) {
    switch (layout.raw) {
      case BmpRaw::kBits1: {
        const bool set = ((in[x >> 3] >> (7 - (x & 7))) & 1) != 0;
        if (layout.mode == BmpMode::kOne) {
          out[0] = out[1] = out[2] = set ? 255 : 0;
        } else {
          IndexedPixel(layout, set ? 1 : 0, out);
        }
        break;
      }
      case BmpRaw::kBits4: IndexedPixel(layout, (x & 1) != 0 ? in[x >> 1] & 15 : in[x >> 1] >> 4, out); break;
      case BmpRaw::kBits8: IndexedPixel(layout, in[x], out); break;
      case BmpRaw::kBgr15:
      case BmpRaw::kBgr16: {
        const uint32_t p = in[2 * x] | (in[2 * x + 1] << 8);
        const bool is16 = layout.raw == BmpRaw::kBgr16;
        out[0] = Scale(is16 ? (p >> 11) & 31 : (p >> 10) & 31, 31);
        out[1] = is16 ? Scale((p >> 5) & 63, 63) : Scale((p >> 5) & 31, 31);
        out[2] = Scale(p & 31, 31);
        break;
      }
      case BmpRaw::kBgr24:
        out[0] = in[3 * x + 2];
        out[1] = in[3 * x + 1];
        out[2] = in[3 * x];
        break;
      case BmpRaw::kBytes32: {
        const uint8_t* p = in + 4 * x;
        const auto& at = layout.byte_of;
        if (layout.mode == BmpMode::kRgba) {
          const uint8_t a = p[at[3]];
          out[0] = OverWhite(p[at[0]], a);
          out[1] = OverWhite(p[at[1]], a);
          out[2] = OverWhite(p[at[2]], a);
        } else {
          out[0] = p[at[0]];
          out[1] = p[at[1]];
          out[2] = p[at[2]];
        }
        break;
      }
    }
  }
}

uint64_t RowOf(const BmpLayout& layout, uint64_t i) { return layout.top_down ? i : layout.height - 1 - i; }

// Ok when the file holds every stored row PIL's raw decoder reads (checked before allocating).
Status CheckRawData(std::span<const uint8_t> bytes, const BmpLayout& layout) {
  const uint64_t row_bytes = (layout.width * UnpackBits(layout.raw) + 7) / 8;
  // PIL's raw decoder refuses a stride shorter than the unpacker's row (e.g. a 4-bit file whose
  // gray-ramp palette makes PIL read it as 8-bit L).
  if (layout.stride < row_bytes) return CorruptError("BMP", "rows shorter than the pixel format");
  const uint64_t need = layout.stride * (layout.height - 1) + row_bytes;
  if (layout.data_offset > bytes.size() || bytes.size() - layout.data_offset < need) return TruncatedError("BMP");
  return OkStatus();
}

void DecodeRaw(std::span<const uint8_t> bytes, const BmpLayout& layout, Image* image) {
  const uint8_t* data = bytes.data() + layout.data_offset;
  for (uint64_t i = 0; i < layout.height; ++i) {
    UnpackRow(layout, data + i * layout.stride, image->rgb.data() + RowOf(layout, i) * layout.width * 3);
  }
}

// PIL's BmpRleDecoder.decode, step for step (including its quirks: the delta escape reads two
// bytes it ignores before the two it uses, absolute runs re-align on the file position, and the
// result is one linear run of indices that may overshoot the image).
Status DecodeRle(std::span<const uint8_t> bytes, const BmpLayout& layout, Image* image) {
  const uint64_t w = layout.width, dest = layout.width * layout.height;
  std::vector<uint8_t> data;  // grows with what the stream produces (at most dest + 255)
  uint64_t pos = layout.data_offset, x = 0;
  const uint64_t size = bytes.size();
  auto take = [&](uint64_t n) {  // like fd.read(n): what is there, and the position moves past it
    const uint64_t at = pos;
    const uint64_t got = pos < size ? std::min(n, size - pos) : 0;
    pos += got;
    return std::pair<uint64_t, uint64_t>(at, got);
  };
  while (data.size() < dest) {
    if (pos >= size || size - pos < 2) break;
    const uint8_t count = bytes[pos], byte = bytes[pos + 1];
    pos += 2;
    if (count != 0) {
      const uint64_t n = x + count > w ? (w > x ? w - x : 0) : count;
      for (uint64_t i = 0; i < n; ++i) {
        data.push_back(layout.rle4 ? ((i & 1) == 0 ? byte >> 4 : byte & 15) : byte);
      }
      x += n;
    } else if (byte == 0) {  // end of line
      while (data.size() % w != 0) data.push_back(0);
      x = 0;
    } else if (byte == 1) {  // end of bitmap
      break;
    } else if (byte == 2) {  // delta
      if (take(2).second < 2) break;
      auto [at, got] = take(2);
      if (got < 2) return TruncatedError("BMP");
      // Whatever passes `dest` is never looked at (the loop ends), so the skip is clamped there.
      data.resize(std::min(dest, data.size() + bytes[at] + uint64_t{bytes[at + 1]} * w), 0);
      x = data.size() % w;
    } else {  // absolute run
      const uint64_t want = layout.rle4 ? byte / 2 : byte;
      auto [at, got] = take(want);
      for (uint64_t i = 0; i < got; ++i) {
        const uint8_t v = bytes[at + i];
        if (layout.rle4) {
          data.push_back(v >> 4);
          data.push_back(v & 15);
        } else {
          data.push_back(v);
        }
      }
      if (got < want) break;
      x += byte;
      if (pos % 2 != 0) pos += 1;
    }
  }
  if (data.size() < dest) return TruncatedError("BMP");
  for (uint64_t i = 0; i < layout.height; ++i) {
    uint8_t* out = image->rgb.data() + RowOf(layout, i) * w * 3;
    for (uint64_t col = 0; col < w; ++col) IndexedPixel(layout, data[i * w + col], out + 3 * col);
  }
  return OkStatus();
}

}  // namespace

Result<Image> DecodeBmp(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits) {
  GEMMAD_ASSIGN_OR_RETURN(BmpLayout layout, ParseBmpLayout(bytes));
  if (Status s = CheckDimensions("BMP", layout.width, layout.height, limits); !s.ok()) return s;
  if (!layout.rle) {
    if (Status s = CheckRawData(bytes, layout); !s.ok()) return s;
  }
  Image image = NewImage(layout.width, layout.height);
  if (layout.rle) {
    if (Status s = DecodeRle(bytes, layout, &image); !s.ok()) return s;
  } else {
    DecodeRaw(bytes, layout, &image);
  }
  return image;
}

}  // namespace gemmad::mm::internal
