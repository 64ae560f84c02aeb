// JPEG through libjpeg-turbo with PIL's settings (JpegDecode.c): ISLOW DCT and fancy upsampling
// (the library defaults), output JCS_GRAYSCALE / JCS_RGB / JCS_CMYK by component count as PIL's
// SOF handler picks L / RGB / CMYK. PIL always reads CMYK with Adobe polarity ("CMYK;I":
// stored = 255 - decoded) and converts CMYK to RGB as MULDIV255(255 - C, 255 - K), so
// R = MULDIV255(decoded C, decoded K). EXIF orientation is ignored, as PIL's open does.
//
// libjpeg reports errors by longjmp: the two functions that call setjmp keep every object with a
// destructor in the JpegJob their caller owns, so a longjmp skips no destructor; messages are
// formatted into the job, never printed.
#include <csetjmp>
#include <cstdio>  // jpeglib.h needs FILE and size_t first
#include <limits>
#include <vector>

#include <jerror.h>
#include <jpeglib.h>

#include <fmt/format.h>

#include "mm/image_decode_internal.h"

namespace gemmad::mm::internal {

namespace {

// libjpeg-turbo's own fuzzers stop at 500 scans; real progressive files have about ten. Each
// scan re-walks the coefficient buffer, so unbounded scans are a CPU bomb.
constexpr int kMaxScans = 1000;

struct JpegError {
  jpeg_error_mgr pub;  // first: libjpeg sees a jpeg_error_mgr*
  std::jmp_buf jump;
  char message[JMSG_LENGTH_MAX] = {};
  bool hit_eof = false;  // the source ran dry (libjpeg then pads with an EOI marker and warns)
};

struct JpegJob {
  jpeg_decompress_struct cinfo{};
  JpegError err{};
  jpeg_progress_mgr progress{};
  std::vector<uint8_t> row;
  Image image;
  ~JpegJob() { jpeg_destroy_decompress(&cinfo); }
};

JpegError* ErrorOf(j_common_ptr cinfo) { return reinterpret_cast<JpegError*>(cinfo->err); }

[[noreturn]] void OnError(j_common_ptr cinfo) {
  (*cinfo->err->format_message)(cinfo, ErrorOf(cinfo)->message);
  std::longjmp(ErrorOf(cinfo)->jump, 1);
}

// Warnings (level -1) and traces are never printed. PIL ignores warnings too; the one that
// matters, premature end of data, is remembered and turned into an error by the caller.
void OnEmit(j_common_ptr cinfo, int level) {
  if (level < 0 && cinfo->err->msg_code == JWRN_JPEG_EOF) ErrorOf(cinfo)->hit_eof = true;
}

void OnOutput(j_common_ptr /*cinfo*/) {}

void OnProgress(j_common_ptr cinfo) {
  auto* d = reinterpret_cast<j_decompress_ptr>(cinfo);
  if (cinfo->is_decompressor && d->input_scan_number > kMaxScans) {
    std::snprintf(ErrorOf(cinfo)->message, JMSG_LENGTH_MAX, "more than %d progressive scans", kMaxScans);
    std::longjmp(ErrorOf(cinfo)->jump, 1);
  }
}

// Phase 1: set up and read the header. False when libjpeg failed (message in job->err).
bool ReadJpegHeader(JpegJob* job, const uint8_t* data, size_t size, long max_memory) {
  if (setjmp(job->err.jump)) return false;
  job->cinfo.err = jpeg_std_error(&job->err.pub);
  job->err.pub.error_exit = OnError;
  job->err.pub.emit_message = OnEmit;
  job->err.pub.output_message = OnOutput;
  jpeg_create_decompress(&job->cinfo);
  // Bounds the big buffers (a progressive image's coefficients); past it libjpeg-turbo asks for
  // backing store, which it does not have, and fails cleanly.
  job->cinfo.mem->max_memory_to_use = max_memory;
  job->progress.progress_monitor = OnProgress;
  job->cinfo.progress = &job->progress;
  jpeg_mem_src(&job->cinfo, data, static_cast<unsigned long>(size));
  jpeg_read_header(&job->cinfo, TRUE);
  return true;
}

uint8_t MulDiv255(unsigned a, unsigned b) {  // PIL's MULDIV255
  unsigned t = a * b + 128;
  return static_cast<uint8_t>(((t >> 8) + t) >> 8);
}

void ConvertRow(const uint8_t* in, int components, uint64_t width, uint8_t* out) {
  for (uint64_t x = 0; x < width; ++x, out += 3) {
    if (components == 1) {
      out[0] = out[1] = out[2] = in[x];
    } else if (components == 3) {
      out[0] = in[3 * x];
      out[1] = in[3 * x + 1];
      out[2] = in[3 * x + 2];
    } else {
      const uint8_t* p = in + 4 * x;
      out[0] = MulDiv255(p[0], p[3]);
      out[1] = MulDiv255(p[1], p[3]);
      out[2] = MulDiv255(p[2], p[3]);
    }
  }
}

// Phase 2: decode every scanline into job->image (allocated by the caller).
bool ReadJpegPixels(JpegJob* job) {
  if (setjmp(job->err.jump)) return false;
  jpeg_start_decompress(&job->cinfo);
  const uint64_t width = job->cinfo.output_width;
  const int components = job->cinfo.output_components;
  while (job->cinfo.output_scanline < job->cinfo.output_height) {
    JSAMPROW rows[1] = {job->row.data()};
    const uint64_t y = job->cinfo.output_scanline;
    if (jpeg_read_scanlines(&job->cinfo, rows, 1) != 1) return true;  // cannot happen with a memory source
    ConvertRow(job->row.data(), components, width, job->image.rgb.data() + y * width * 3);
  }
  return true;
}

}  // namespace

Result<Image> DecodeJpeg(std::span<const uint8_t> bytes, const ImageDecodeLimits& limits) {
  JpegJob job;
  const int64_t budget = std::min<int64_t>(limits.max_pixels, std::numeric_limits<long>::max() / 16) * 8 + (64 << 20);
  if (!ReadJpegHeader(&job, bytes.data(), bytes.size(), static_cast<long>(budget))) {
    if (job.err.hit_eof) return TruncatedError("JPEG");
    return CorruptError("JPEG", job.err.message);
  }
  jpeg_decompress_struct& c = job.cinfo;
  switch (c.num_components) {
    case 1: c.out_color_space = JCS_GRAYSCALE; break;
    case 3: c.out_color_space = JCS_RGB; break;
    case 4: c.out_color_space = JCS_CMYK; break;
    default:
      return InvalidArgumentError(fmt::format("image: unsupported JPEG with {} components (1, 3 or 4 expected)",
                                              c.num_components));
  }
  if (Status s = CheckDimensions("JPEG", c.image_width, c.image_height, limits); !s.ok()) return s;
  job.image = NewImage(c.image_width, c.image_height);
  job.row.resize(static_cast<size_t>(c.image_width) * static_cast<size_t>(c.num_components));
  if (!ReadJpegPixels(&job)) {
    if (job.err.hit_eof) return TruncatedError("JPEG");
    return CorruptError("JPEG", job.err.message);
  }
  // A source that ran dry before the last row was padded with gray by libjpeg; PIL refuses it.
  if (job.err.hit_eof || c.output_scanline < c.output_height) return TruncatedError("JPEG");
  return std::move(job.image);
}

}  // namespace gemmad::mm::internal
