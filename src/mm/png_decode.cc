// PNG through libpng, matching PIL's PngImagePlugin modes and vLLM's conversion:
//   gray 1/2/4/8 bit  -> L (values scaled as PIL's "1", "L;2", "L;4" unpackers) -> 3 copies
//   gray 16 bit       -> I;16, and PIL's I;16 -> RGB clips: min(v, 255) in every channel
//   gray+alpha 8 bit  -> LA: alpha dropped (convert("RGB")), gray copied
//   gray+alpha 16 bit -> RGBA from the high bytes ("LA;16B"), so composited onto white
//   RGB 8/16 bit      -> RGB (16-bit: the high byte, "RGB;16B")
//   RGBA 8/16 bit     -> composited onto white (16-bit: high bytes)
//   palette 1-8 bit   -> P -> palette colours; indices past the PLTE entries are black
// tRNS never adds alpha (PIL keeps it as info["transparency"], which convert("RGB") and vLLM's
// RGB pass-through ignore); gamma, sBIT and colour-profile chunks are ignored as PIL ignores them.
// Adam7 interlacing is undone by libpng. Only the first (IDAT) image of an APNG is read.
//
// libpng reports errors by longjmp: the functions that call setjmp keep every object with a
// destructor in the PngJob their caller owns; messages are stored, never printed.
#include <png.h>

#include <algorithm>
#include <csetjmp>
#include <cstring>
#include <vector>

#include "mm/image_decode_internal.h"

namespace gemmad::mm::internal {

namespace {

struct PngJob {
  png_structp png = nullptr;
  png_infop info = nullptr;
  const uint8_t* data = nullptr;
  size_t size = 0;
  size_t pos = 0;
  bool truncated = false;
  char message[200] = {};
  // After the header: what libpng will hand us per pixel.
  png_uint_32 width = 0, height = 0;
  int bit_depth = 0, color_type = 0, interlace = 0;
  uint8_t palette[256][3] = {};
  std::vector<uint8_t> buffer;  // one row, or the whole image when interlaced
  std::vector<png_bytep> rows;
  Image image;
  ~PngJob() {
    if (png != nullptr) png_destroy_read_struct(&png, info != nullptr ? &info : nullptr, nullptr);
  }
};

PngJob* JobOf(png_structp png) { return static_cast<PngJob*>(png_get_io_ptr(png)); }

[[noreturn]] void OnError(png_structp png, png_const_charp message) {
  auto* job = static_cast<PngJob*>(png_get_error_ptr(png));
  std::snprintf(job->message, sizeof(job->message), "%s", message);
  png_longjmp(png, 1);
}

void OnWarning(png_structp /*png*/, png_const_charp /*message*/) {}

void OnRead(png_structp png, png_bytep out, size_t n) {
  PngJob* job = JobOf(png);
  if (job->size - job->pos < n) {
    job->truncated = true;
    png_error(png, "truncated");
  }
  std::memcpy(out, job->data + job->pos, n);
  job->pos += n;
}

// Phase 1: signature, IHDR and the chunks before the image data; transforms set up.
bool ReadPngHeader(PngJob* job) {
  if (setjmp(png_jmpbuf(job->png))) return false;
  png_structp png = job->png;
  // libpng's default 1,000,000-pixel side limit is stricter than PIL's; our pixel limit applies.
  png_set_user_limits(png, 0x7fffffff, 0x7fffffff);
  // PIL verifies every chunk's CRC and refuses a mismatch; libpng only warns for ancillary ones.
  png_set_crc_action(png, PNG_CRC_ERROR_QUIT, PNG_CRC_ERROR_QUIT);
  png_read_info(png, job->info);
  png_get_IHDR(png, job->info, &job->width, &job->height, &job->bit_depth, &job->color_type, &job->interlace,
               nullptr, nullptr);
  return true;
}

// Phase 2: transforms, then every row into job->buffer and on into job->image.
void ConvertRow(const PngJob& job, const uint8_t* in, uint8_t* out);

bool ReadPngPixels(PngJob* job) {
  if (setjmp(png_jmpbuf(job->png))) return false;
  png_structp png = job->png;
  const int type = job->color_type;
  if (job->bit_depth == 16 && type != PNG_COLOR_TYPE_GRAY) png_set_strip_16(png);
  if (job->bit_depth < 8 && type == PNG_COLOR_TYPE_GRAY) png_set_expand_gray_1_2_4_to_8(png);
  if (job->bit_depth < 8 && type == PNG_COLOR_TYPE_PALETTE) png_set_packing(png);
  const int passes = png_set_interlace_handling(png);
  png_read_update_info(png, job->info);
  const size_t row_bytes = png_get_rowbytes(png, job->info);
  const uint64_t width = job->width;
  if (passes > 1) {
    job->buffer.resize(row_bytes * job->height);
    job->rows.resize(job->height);
    for (png_uint_32 y = 0; y < job->height; ++y) job->rows[y] = job->buffer.data() + y * row_bytes;
    png_read_image(png, job->rows.data());
    for (png_uint_32 y = 0; y < job->height; ++y) {
      ConvertRow(*job, job->rows[y], job->image.rgb.data() + y * width * 3);
    }
  } else {
    job->buffer.resize(row_bytes);
    for (png_uint_32 y = 0; y < job->height; ++y) {
      png_read_row(png, job->buffer.data(), nullptr);
      ConvertRow(*job, job->buffer.data(), job->image.rgb.data() + y * width * 3);
    }
  }
  return true;
}

void ConvertRow(const PngJob& job, const uint8_t* in, uint8_t* out) {
  const uint64_t w = job.width;
  switch (job.color_type) {
    case PNG_COLOR_TYPE_GRAY:
      for (uint64_t x = 0; x < w; ++x) {
        uint8_t v = job.bit_depth == 16 ? (in[2 * x] != 0 ? 255 : in[2 * x + 1]) : in[x];
        out[3 * x] = out[3 * x + 1] = out[3 * x + 2] = v;
      }
      break;
    case PNG_COLOR_TYPE_GRAY_ALPHA:
      for (uint64_t x = 0; x < w; ++x) {
        uint8_t g = in[2 * x];
        if (job.bit_depth == 16) g = OverWhite(g, in[2 * x + 1]);
        out[3 * x] = out[3 * x + 1] = out[3 * x + 2] = g;
      }
      break;
    case PNG_COLOR_TYPE_RGB: std::memcpy(out, in, w * 3); break;
    case PNG_COLOR_TYPE_RGB_ALPHA: RgbaOverWhite(in, w, out); break;
    case PNG_COLOR_TYPE_PALETTE:
      for (uint64_t x = 0; x < w; ++x) std::memcpy(out + 3 * x, job.palette[in[x]], 3);
      break;
    default: break;
  }
}

Status PngFailure(const PngJob& job) {
  // "Not enough image data": the image data chunks ended before the last row.
  if (job.truncated || std::strcmp(job.message, "Not enough image data") == 0) return TruncatedError("PNG");
  return CorruptError("PNG", job.message);
}

}  // namespace

Result<Image> DecodePng(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits) {
  PngJob job;
  job.data = bytes.data();
  job.size = bytes.size();
  job.png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &job, OnError, OnWarning);
  if (job.png == nullptr) return InvalidArgumentError("image: cannot set up the PNG decoder");
  job.info = png_create_info_struct(job.png);
  if (job.info == nullptr) return InvalidArgumentError("image: cannot set up the PNG decoder");
  png_set_read_fn(job.png, &job, OnRead);
  if (!ReadPngHeader(&job)) return PngFailure(job);
  if (Status s = CheckDimensions("PNG", job.width, job.height, limits); !s.ok()) return s;
  if (job.color_type == PNG_COLOR_TYPE_PALETTE) {
    png_colorp entries = nullptr;
    int count = 0;
    if (png_get_PLTE(job.png, job.info, &entries, &count) != 0) {
      for (int i = 0; i < std::min(count, 256); ++i) {
        job.palette[i][0] = entries[i].red;
        job.palette[i][1] = entries[i].green;
        job.palette[i][2] = entries[i].blue;
      }
    }
  }
  job.image = NewImage(job.width, job.height);
  if (!ReadPngPixels(&job)) return PngFailure(job);
  return std::move(job.image);
}

}  // namespace gemmad::mm::internal
