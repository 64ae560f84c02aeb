// GIF through giflib, first frame only, as PIL's GifImagePlugin reads frame 0: the canvas is the
// logical screen, grown to hold the frame if it sticks out; pixels outside the frame hold the
// frame's transparent index when its graphic control extension sets one, else index 0; the
// frame's local colour table, else the global one, maps indices to RGB (convert("RGB") keeps the
// colour stored under the transparent index). A table that is exactly the gray ramp (entry i ==
// (i, i, i)), or no table, makes PIL open the frame as L, so the index itself is the gray value;
// otherwise indices past the table are black. Interlaced rows are put back in order.
#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "mm/image_decode_internal.h"

namespace gemmad::mm::internal {

namespace {

struct GifSource {
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t pos = 0;
  bool truncated = false;
};

int OnRead(GifFileType* gif, GifByteType* out, int n) {
  auto* src = static_cast<GifSource*>(gif->UserData);
  const size_t want = n > 0 ? static_cast<size_t>(n) : 0;
  const size_t k = std::min(want, src->size - src->pos);
  std::memcpy(out, src->data + src->pos, k);
  src->pos += k;
  if (k < want) src->truncated = true;
  return static_cast<int>(k);
}

struct GifCloser {
  void operator()(GifFileType* gif) const {
    int error = 0;
    DGifCloseFile(gif, &error);
  }
};
using GifPtr = std::unique_ptr<GifFileType, GifCloser>;

Status GifFailure(const GifSource& src, int error) {
  if (src.truncated) return TruncatedError("GIF");
  const char* text = GifErrorString(error);
  return CorruptError("GIF", text != nullptr ? text : "giflib error");
}

bool IsGrayRamp(const ColorMapObject& map) {
  for (int i = 0; i < map.ColorCount; ++i) {
    const GifColorType& c = map.Colors[i];
    if (c.Red != i || c.Green != i || c.Blue != i) return false;
  }
  return true;
}

// File order -> row for an interlaced frame of `height` rows (passes start 0, 4, 2, 1).
std::vector<uint32_t> InterlacedRows(uint32_t height) {
  std::vector<uint32_t> rows;
  rows.reserve(height);
  constexpr uint32_t kStart[4] = {0, 4, 2, 1}, kStep[4] = {8, 8, 4, 2};
  for (int pass = 0; pass < 4; ++pass) {
    for (uint32_t y = kStart[pass]; y < height; y += kStep[pass]) rows.push_back(y);
  }
  return rows;
}

Result<Image> DecodeFrame(GifFileType* gif, const GifSource& src, int transparency, const ImageDecodeLimits& limits) {
  const GifImageDesc& desc = gif->Image;
  if (desc.Left < 0 || desc.Top < 0 || desc.Width < 0 || desc.Height < 0) return CorruptError("GIF", "bad frame");
  const auto left = static_cast<uint64_t>(desc.Left), top = static_cast<uint64_t>(desc.Top);
  const auto fw = static_cast<uint64_t>(desc.Width), fh = static_cast<uint64_t>(desc.Height);
  const uint64_t cw = std::max<uint64_t>(static_cast<uint64_t>(std::max(gif->SWidth, 0)), left + fw);
  const uint64_t ch = std::max<uint64_t>(static_cast<uint64_t>(std::max(gif->SHeight, 0)), top + fh);
  if (Status s = CheckDimensions("GIF", cw, ch, limits); !s.ok()) return s;

  std::vector<uint8_t> indices(cw * ch, static_cast<uint8_t>(transparency >= 0 ? transparency : 0));
  if (fw > 0 && fh > 0) {
    std::vector<GifPixelType> line(fw);
    std::vector<uint32_t> order;
    if (desc.Interlace) order = InterlacedRows(static_cast<uint32_t>(fh));
    for (uint64_t i = 0; i < fh; ++i) {
      if (DGifGetLine(gif, line.data(), static_cast<int>(fw)) == GIF_ERROR) return GifFailure(src, gif->Error);
      const uint64_t y = desc.Interlace ? order[i] : i;
      std::memcpy(indices.data() + (top + y) * cw + left, line.data(), fw);
    }
  }

  const ColorMapObject* map = desc.ColorMap != nullptr ? desc.ColorMap : gif->SColorMap;
  const bool lookup = map != nullptr && !IsGrayRamp(*map);
  uint8_t table[256][3] = {};
  for (int i = 0; i < 256; ++i) {
    if (!lookup) {
      table[i][0] = table[i][1] = table[i][2] = static_cast<uint8_t>(i);
    } else if (i < map->ColorCount) {
      table[i][0] = map->Colors[i].Red;
      table[i][1] = map->Colors[i].Green;
      table[i][2] = map->Colors[i].Blue;
    }
  }
  Image image = NewImage(cw, ch);
  for (size_t i = 0; i < indices.size(); ++i) std::memcpy(image.rgb.data() + 3 * i, table[indices[i]], 3);
  return image;
}

}  // namespace

Result<Image> DecodeGif(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits) {
  GifSource src{bytes.data(), bytes.size(), 0, false};
  int error = 0;
  GifPtr gif(DGifOpen(&src, OnRead, &error));
  if (!gif) return GifFailure(src, error);
  int transparency = -1;  // from the last graphic control extension before the first image
  for (;;) {
    GifRecordType type = UNDEFINED_RECORD_TYPE;
    if (DGifGetRecordType(gif.get(), &type) == GIF_ERROR) return GifFailure(src, gif->Error);
    if (type == TERMINATE_RECORD_TYPE) return CorruptError("GIF", "no image");
    if (type == IMAGE_DESC_RECORD_TYPE) {
      if (DGifGetImageDesc(gif.get()) == GIF_ERROR) return GifFailure(src, gif->Error);
      return DecodeFrame(gif.get(), src, transparency, limits);
    }
    if (type != EXTENSION_RECORD_TYPE) return CorruptError("GIF", "unexpected record");
    int code = 0;
    GifByteType* block = nullptr;
    if (DGifGetExtension(gif.get(), &code, &block) == GIF_ERROR) return GifFailure(src, gif->Error);
    // block[0] is the sub-block length; PIL reads flags = data[0], index = data[3].
    if (code == GRAPHICS_EXT_FUNC_CODE && block != nullptr && block[0] >= 4 && (block[1] & 1) != 0) {
      transparency = block[4];
    }
    while (block != nullptr) {
      if (DGifGetExtensionNext(gif.get(), &block) == GIF_ERROR) return GifFailure(src, gif->Error);
    }
  }
}

}  // namespace gemmad::mm::internal
