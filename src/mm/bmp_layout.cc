// ParseBmpLayout: PIL's BmpImagePlugin._bitmap (Pillow 12) decision by decision: header sizes
// 12/40/52/56/64/108/124, a top-down image when the height's top byte is 0xFF, BITFIELDS masks
// limited to PIL's table, 32-bit BI_RGB read as BGRX (alpha ignored), palettes whose entries are
// the gray ramp (or black/white for two colours) read as L (or "1"), and PIL's palette offset rule.
#include "mm/bmp_layout.h"

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "mm/image_decode_internal.h"

namespace gemmad::mm::internal {

namespace {

constexpr uint32_t kRaw = 0, kRle8 = 1, kRle4 = 2, kBitfields = 3;

uint32_t U16(const uint8_t* p) { return p[0] | (p[1] << 8); }
uint32_t U32(const uint8_t* p) {
  return p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
}

Status Unsupported(const std::string& what) { return InvalidArgumentError("image: unsupported BMP " + what); }

struct Masks32 {
  uint32_t r, g, b, a;
  std::array<int8_t, 4> byte_of;  // R, G, B, A byte positions of PIL's raw mode
};

// PIL's SUPPORTED[32] with MASK_MODES: BGRX, XBGR, BGXR, ABGR, RGBA, BGRA, BGAR, and all-zero
// masks read as BGRA.
constexpr Masks32 kMasks32[] = {
    {0xFF0000, 0xFF00, 0xFF, 0x0, {2, 1, 0, -1}},
    {0xFF000000, 0xFF0000, 0xFF00, 0x0, {3, 2, 1, -1}},
    {0xFF000000, 0xFF00, 0xFF, 0x0, {3, 1, 0, -1}},
    {0xFF000000, 0xFF0000, 0xFF00, 0xFF, {3, 2, 1, 0}},
    {0xFF, 0xFF00, 0xFF0000, 0xFF000000, {0, 1, 2, 3}},
    {0xFF0000, 0xFF00, 0xFF, 0xFF000000, {2, 1, 0, 3}},
    {0xFF000000, 0xFF00, 0xFF, 0xFF0000, {3, 1, 0, 2}},
    {0x0, 0x0, 0x0, 0x0, {2, 1, 0, 3}},
};

Status ApplyBitfields(uint32_t bits, uint32_t r, uint32_t g, uint32_t b, uint32_t a, BmpLayout* out) {
  if (bits == 32) {
    for (const Masks32& m : kMasks32) {
      if (m.r == r && m.g == g && m.b == b && m.a == a) {
        out->raw = BmpRaw::kBytes32;
        out->byte_of = m.byte_of;
        out->mode = m.byte_of[3] >= 0 ? BmpMode::kRgba : BmpMode::kRgb;
        return OkStatus();
      }
    }
  } else if (bits == 24 && r == 0xFF0000 && g == 0xFF00 && b == 0xFF) {
    out->raw = BmpRaw::kBgr24;
    return OkStatus();
  } else if (bits == 16 && g == 0x7E0 && r == 0xF800 && b == 0x1F) {
    out->raw = BmpRaw::kBgr16;
    return OkStatus();
  } else if (bits == 16 && r == 0x7C00 && g == 0x3E0 && b == 0x1F) {
    out->raw = BmpRaw::kBgr15;
    return OkStatus();
  }
  return Unsupported("bitfields layout");
}

// The palette of a 1/4/8-bit image (`pos` is where it starts), or its gray/black-white reading.
Status ReadPalette(std::span<const uint8_t> bytes, uint64_t pos, uint64_t colors, uint32_t padding, BmpLayout* out,
                   uint64_t* end) {
  if (colors == 0 || colors > 65536) return Unsupported(fmt::format("palette size ({})", colors));
  const uint64_t avail = pos < bytes.size() ? bytes.size() - pos : 0;
  const uint64_t len = std::min<uint64_t>(avail, padding * colors);
  const uint8_t* p = bytes.data() + std::min<uint64_t>(pos, bytes.size());
  *end = pos + len;
  bool gray = true;
  for (uint64_t i = 0; i < colors && gray; ++i) {
    const uint64_t want = colors == 2 ? (i == 0 ? 0 : 255) : (i & 255);
    gray = i * padding + 3 <= len && p[i * padding] == want && p[i * padding + 1] == want && p[i * padding + 2] == want;
  }
  if (gray) {
    out->mode = colors == 2 ? BmpMode::kOne : BmpMode::kL;
    out->raw = colors == 2 ? BmpRaw::kBits1 : BmpRaw::kBits8;
    return OkStatus();
  }
  const uint64_t entries = len / padding;
  if (entries > 256) return InvalidArgumentError(fmt::format("image: BMP palette of {} colours exceeds 256", entries));
  for (uint64_t i = 0; i < entries; ++i) {  // stored B, G, R (, reserved)
    out->palette[i] = {p[i * padding + 2], p[i * padding + 1], p[i * padding]};
  }
  return OkStatus();
}

}  // namespace

Result<BmpLayout> ParseBmpLayout(std::span<const uint8_t> bytes) {
  if (bytes.size() < 18) return TruncatedError("BMP");
  uint64_t offset = U32(bytes.data() + 10);
  const uint32_t header_size = U32(bytes.data() + 14);
  static constexpr uint32_t kHeaderSizes[] = {12, 40, 52, 56, 64, 108, 124};
  if (std::find(std::begin(kHeaderSizes), std::end(kHeaderSizes), header_size) == std::end(kHeaderSizes)) {
    return Unsupported(fmt::format("header size ({})", header_size));
  }
  if (bytes.size() < 14 + uint64_t{header_size}) return TruncatedError("BMP");
  const uint8_t* h = bytes.data() + 18;  // the info header after its size field
  uint64_t pos = 14 + uint64_t{header_size};
  BmpLayout out;
  uint32_t bits = 0, compression = kRaw, padding = 4;
  uint64_t colors = 0;
  if (header_size == 12) {
    out.width = U16(h);
    out.height = U16(h + 2);
    bits = U16(h + 6);
    padding = 3;
  } else {
    out.top_down = h[7] == 0xFF;
    out.width = U32(h);
    out.height = out.top_down ? (uint64_t{1} << 32) - U32(h + 4) : U32(h + 4);
    bits = U16(h + 10);
    compression = U32(h + 12);
    colors = U32(h + 28);
  }
  uint32_t masks[4] = {0, 0, 0, 0};
  if (compression == kBitfields) {
    const uint8_t* m = h + 36;  // inside the header from V2 on, else the 12 bytes after it
    if (header_size < 52) {
      if (bytes.size() < pos + 12) return TruncatedError("BMP");
      pos += 12;
    }
    for (int i = 0; i < 3; ++i) masks[i] = U32(m + 4 * i);
    if (header_size >= 56) masks[3] = U32(m + 12);
  }
  if (colors == 0) colors = bits < 64 ? uint64_t{1} << bits : 0;
  if (offset == 14 + uint64_t{header_size} && bits <= 8) offset += 4 * colors;

  switch (bits) {
    case 1: out.raw = BmpRaw::kBits1; break;
    case 4: out.raw = BmpRaw::kBits4; break;
    case 8: out.raw = BmpRaw::kBits8; break;
    case 16: out.raw = BmpRaw::kBgr15; out.mode = BmpMode::kRgb; break;
    case 24: out.raw = BmpRaw::kBgr24; out.mode = BmpMode::kRgb; break;
    case 32: out.raw = BmpRaw::kBytes32; out.mode = BmpMode::kRgb; break;
    default: return Unsupported(fmt::format("bit depth ({})", bits));
  }
  if (compression == kBitfields) {
    if (Status s = ApplyBitfields(bits, masks[0], masks[1], masks[2], masks[3], &out); !s.ok()) return s;
  } else if (compression == kRle8 || compression == kRle4) {
    out.rle = true;
    out.rle4 = compression == kRle4;
  } else if (compression != kRaw) {
    return Unsupported(fmt::format("compression ({})", compression));
  }
  if (out.mode == BmpMode::kP) {
    if (Status s = ReadPalette(bytes, pos, colors, padding, &out, &pos); !s.ok()) return s;
  }
  if (out.rle && out.mode != BmpMode::kP && out.mode != BmpMode::kL) {
    return Unsupported("RLE image of this pixel format");  // PIL has no "P" unpacker into RGB or "1"
  }
  // PIL: ((width * bits + 31) >> 3) & ~3 with the file's bit depth, whatever the raw mode.
  out.stride = ((out.width * bits + 31) >> 3) & ~uint64_t{3};
  out.data_offset = offset != 0 ? offset : pos;
  return out;
}

}  // namespace gemmad::mm::internal
