// DecodeImage's contract beyond pixel values (those are tests/media's goldens): format sniffing,
// limits checked on the declared size before decoding, one-line InvalidArgument messages for
// garbage, truncation (every prefix of every seed file), zero sizes, bombs and unsupported
// variants, determinism, and silence on stderr.
#include "mm/image_decode.h"

#include <gtest/gtest.h>

#include <chrono>
#include <dirent.h>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace gemmad::mm {
namespace {

using Bytes = std::vector<uint8_t>;

const std::string kGolden = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/media_images/";
const std::string kSeeds = std::string(GEMMAD_SOURCE_DIR) + "/fuzz/corpus/image_decode/";

Bytes ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

Bytes Str(std::string_view s) { return Bytes(s.begin(), s.end()); }

void PutLe32(Bytes& b, size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

uint32_t Crc32(const uint8_t* p, size_t n) {  // PNG's CRC (ISO 3309), for patched chunks
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
  }
  return ~c;
}

std::string Message(const Bytes& b, const ImageDecodeLimits& limits = {}) {
  Result<Image> r = DecodeImage(b, limits);
  if (r.ok()) return "ok";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  return r.status().message();
}

// A BMP with a 40-byte header, 24-bit, the given size and no pixel data.
Bytes BmpHeader(uint32_t width, uint32_t height, uint16_t bits = 24, uint32_t compression = 0) {
  Bytes b(54, 0);
  b[0] = 'B';
  b[1] = 'M';
  PutLe32(b, 10, 54);
  PutLe32(b, 14, 40);
  PutLe32(b, 18, width);
  PutLe32(b, 22, height);
  b[26] = 1;
  b[28] = static_cast<uint8_t>(bits);
  PutLe32(b, 30, compression);
  return b;
}

TEST(ImageDecode, SniffsTheMagicBytes) {
  EXPECT_EQ(SniffImageFormat(ReadFile(kGolden + "jpeg_420.jpg")), ImageFormat::kJpeg);
  EXPECT_EQ(SniffImageFormat(ReadFile(kGolden + "png_rgb.png")), ImageFormat::kPng);
  EXPECT_EQ(SniffImageFormat(ReadFile(kGolden + "webp_lossy.webp")), ImageFormat::kWebp);
  EXPECT_EQ(SniffImageFormat(ReadFile(kGolden + "gif_static.gif")), ImageFormat::kGif);
  EXPECT_EQ(SniffImageFormat(ReadFile(kGolden + "bmp_24.bmp")), ImageFormat::kBmp);
  EXPECT_EQ(SniffImageFormat(Str("RIFF\x10\0\0\0WEBPJUNK")), ImageFormat::kUnknown);
  EXPECT_EQ(SniffImageFormat(Str("RIFF\x10\0\0\0WAVEfmt ")), ImageFormat::kUnknown);
  EXPECT_EQ(SniffImageFormat(Str("GIF88a")), ImageFormat::kUnknown);
  EXPECT_EQ(SniffImageFormat(Str("\xFF\xD8")), ImageFormat::kUnknown);
  EXPECT_EQ(SniffImageFormat({}), ImageFormat::kUnknown);
  EXPECT_EQ(ImageFormatName(ImageFormat::kWebp), "WebP");
}

TEST(ImageDecode, RefusesEmptyGarbageAndOversizedInput) {
  EXPECT_EQ(Message({}), "image: empty data");
  EXPECT_EQ(Message(Str("<html><body>not an image</body></html>")),
            "image: unsupported format (not JPEG, PNG, WebP, GIF or BMP)");
  EXPECT_EQ(Message(Str("%PDF-1.7")), "image: unsupported format (not JPEG, PNG, WebP, GIF or BMP)");
  ImageDecodeLimits small;
  small.max_bytes = 100;
  EXPECT_EQ(Message(ReadFile(kGolden + "png_rgb.png"), small).rfind("image: ", 0), 0u);
  EXPECT_NE(Message(ReadFile(kGolden + "png_rgb.png"), small).find("exceeds the limit of 100 bytes"),
            std::string::npos);
}

TEST(ImageDecode, PixelLimitAppliesToEveryFormat) {
  ImageDecodeLimits limits;
  limits.max_pixels = 37 * 23 - 1;  // one below the goldens' size
  for (const char* f : {"jpeg_420.jpg", "png_rgb.png", "png_interlaced_rgb.png", "webp_lossy.webp",
                        "webp_animated.webp", "gif_static.gif", "bmp_24.bmp", "bmp_rle8.bmp"}) {
    EXPECT_EQ(Message(ReadFile(kGolden + f), limits),
              "image: 37x23 pixels exceeds the limit of 850 pixels") << f;
  }
  limits.max_pixels = 37 * 23;
  EXPECT_EQ(Message(ReadFile(kGolden + "png_rgb.png"), limits), "ok");
}

// Declared sizes far beyond the limit are refused from the header, without touching the
// (absent) pixel data: the patched files below hold only the original, tiny, payload.
TEST(ImageDecode, HugeDeclaredSizesAreRefusedFromTheHeader) {
  const std::string want = "image: 40000x40000 pixels exceeds the limit of 89478485 pixels";
  EXPECT_EQ(Message(BmpHeader(40000, 40000)), want);

  Bytes png = ReadFile(kGolden + "png_rgb.png");  // IHDR data at 16..28, its CRC at 29..32
  for (int i = 0; i < 2; ++i) {
    png[16 + 4 * i] = 0;
    png[17 + 4 * i] = 0;
    png[18 + 4 * i] = 40000 >> 8;
    png[19 + 4 * i] = 40000 & 255;
  }
  uint32_t crc = Crc32(png.data() + 12, 17);
  for (int i = 0; i < 4; ++i) png[29 + i] = static_cast<uint8_t>(crc >> (24 - 8 * i));
  EXPECT_EQ(Message(png), want);

  Bytes jpeg = ReadFile(kGolden + "jpeg_420.jpg");
  for (size_t i = 2; i + 8 < jpeg.size(); ++i) {
    if (jpeg[i] == 0xFF && jpeg[i + 1] == 0xC0) {  // SOF0: FF C0 len(2) precision height(2) width(2)
      jpeg[i + 5] = jpeg[i + 7] = 40000 >> 8;
      jpeg[i + 6] = jpeg[i + 8] = 40000 & 255;
      break;
    }
  }
  EXPECT_EQ(Message(jpeg), want);

  Bytes gif = ReadFile(kGolden + "gif_static.gif");
  gif[6] = gif[8] = 40000 & 255;  // logical screen, little-endian
  gif[7] = gif[9] = 40000 >> 8;
  EXPECT_EQ(Message(gif), want);

  Bytes webp = ReadFile(kGolden + "webp_animated.webp");  // VP8X at 12; canvas width-1, height-1 at 24, 27
  ASSERT_EQ(std::string(webp.begin() + 12, webp.begin() + 16), "VP8X");
  for (size_t at : {24u, 27u}) {
    webp[at] = (40000 - 1) & 255;
    webp[at + 1] = (40000 - 1) >> 8;
    webp[at + 2] = 0;
  }
  EXPECT_EQ(Message(webp), want);
}

// An image bomb: a valid PNG whose few hundred bytes inflate to 25 million gray pixels. The
// pixel limit refuses it from the IHDR, before inflating anything, so it returns at once.
TEST(ImageDecode, BombIsRefusedBeforeDecoding) {
  Bytes png = ReadFile(kGolden + "png_l.png");  // 8-bit gray; make it claim 5000 x 5000
  png[16] = png[20] = 0;
  png[17] = png[21] = 0;
  png[18] = png[22] = 5000 >> 8;
  png[19] = png[23] = 5000 & 255;
  uint32_t crc = Crc32(png.data() + 12, 17);
  for (int i = 0; i < 4; ++i) png[29 + i] = static_cast<uint8_t>(crc >> (24 - 8 * i));
  ImageDecodeLimits limits;
  limits.max_pixels = 1'000'000;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(Message(png, limits), "image: 5000x5000 pixels exceeds the limit of 1000000 pixels");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
  // Under the default limit it is decoded as far as its data goes: truncated, not a crash.
  EXPECT_EQ(Message(png), "image: truncated PNG data");
}

TEST(ImageDecode, ZeroSizeIsRefused) {
  EXPECT_EQ(Message(BmpHeader(0, 23)), "image: BMP declares a zero-size image (0x23)");
  EXPECT_EQ(Message(BmpHeader(37, 0)), "image: BMP declares a zero-size image (37x0)");
  Bytes gif = Str(std::string("GIF89a\0\0\0\0\0\0\0,\0\0\0\0\0\0\0\0\0\x02\x02\x44\x01\0;", 28));
  EXPECT_EQ(Message(gif), "image: GIF declares a zero-size image (0x0)");
}

TEST(ImageDecode, UnsupportedVariantsSayWhat) {
  EXPECT_EQ(Message(BmpHeader(4, 4, 2)), "image: unsupported BMP bit depth (2)");
  EXPECT_EQ(Message(BmpHeader(4, 4, 24, 4)), "image: unsupported BMP compression (4)");
  Bytes bitfields = BmpHeader(4, 4, 32, 3);  // masks after the 40-byte header: R=0xFF, G=0xFF00, B=0xFF0000
  bitfields.insert(bitfields.end(), {0xFF, 0, 0, 0, 0, 0xFF, 0, 0, 0, 0, 0xFF, 0});
  EXPECT_EQ(Message(bitfields), "image: unsupported BMP bitfields layout");
  bitfields.resize(bitfields.size() - 1);  // PIL cannot read the third mask either
  EXPECT_EQ(Message(bitfields), "image: truncated BMP data");
  Bytes b = BmpHeader(4, 4);
  PutLe32(b, 14, 20);
  EXPECT_EQ(Message(b), "image: unsupported BMP header size (20)");
}

TEST(ImageDecode, TruncatedFilesSayTruncated) {
  for (const char* f : {"jpeg_420.jpg", "jpeg_progressive.jpg", "png_rgb.png", "png_interlaced_rgb.png",
                        "webp_lossy.webp", "webp_lossless.webp", "webp_animated.webp", "gif_static.gif",
                        "gif_interlaced.gif", "bmp_24.bmp", "bmp_rle8.bmp"}) {
    Bytes b = ReadFile(kGolden + f);
    const ImageFormat format = SniffImageFormat(b);
    b.resize(b.size() / 2);
    EXPECT_EQ(Message(b), "image: truncated " + std::string(ImageFormatName(format)) + " data") << f;
  }
}

// Every prefix and a bit flip at every position of every corpus file that decodes: decoded or
// refused with a one-line "image: " message, never a crash (ASan builds check memory safety here
// too). The corpus also holds what fuzz campaigns merged in, some of it refused: those must be
// refused with such a message.
TEST(ImageDecode, EveryPrefixAndBitFlipOfTheSeedsIsHandled) {
  DIR* dir = opendir(kSeeds.c_str());
  ASSERT_NE(dir, nullptr) << kSeeds;
  int files = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] == '.') continue;
    const Bytes full = ReadFile(kSeeds + e->d_name);
    if (const std::string m = Message(full); m != "ok") {
      EXPECT_EQ(m.rfind("image: ", 0), 0u) << e->d_name << ": " << m;
      EXPECT_EQ(m.find('\n'), std::string::npos) << e->d_name << ": " << m;
      continue;
    }
    ++files;
    for (size_t n = 0; n < full.size(); ++n) {
      Bytes prefix(full.begin(), full.begin() + static_cast<long>(n));
      std::string m = Message(prefix);
      if (m != "ok") {
        EXPECT_EQ(m.rfind("image: ", 0), 0u) << e->d_name << " prefix " << n << ": " << m;
      }
      Bytes flipped = full;
      flipped[n] ^= static_cast<uint8_t>(1u << (n % 8));
      m = Message(flipped);
      if (m != "ok") {
        EXPECT_EQ(m.find('\n'), std::string::npos) << e->d_name << " flip " << n << ": " << m;
      }
    }
  }
  closedir(dir);
  EXPECT_GE(files, 20);
}

// libjpeg and libpng print warnings and errors to stderr by default; ours never do.
TEST(ImageDecode, NothingIsPrintedToStderr) {
  Bytes jpeg = ReadFile(kGolden + "jpeg_420.jpg");
  Bytes corrupt_jpeg = jpeg;
  for (size_t i = corrupt_jpeg.size() / 2; i < corrupt_jpeg.size() / 2 + 40; ++i) corrupt_jpeg[i] = 0x5A;
  Bytes png = ReadFile(kGolden + "png_gamma_srgb.png");
  Bytes bad_crc_png = png;
  bad_crc_png[33 + 8 + 4] ^= 1;  // gAMA data (after IHDR), CRC now wrong
  Bytes truncated_png(png.begin(), png.begin() + static_cast<long>(png.size() / 2));
  testing::internal::CaptureStderr();
  std::string jpeg_result = Message(corrupt_jpeg);  // libjpeg warns (corrupt data) and decodes
  std::string png_crc = Message(bad_crc_png);
  std::string png_trunc = Message(truncated_png);
  std::string jpeg_trunc = Message(Bytes(jpeg.begin(), jpeg.begin() + 300));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(png_crc.rfind("image: invalid PNG data (", 0), 0u) << png_crc;
  EXPECT_EQ(png_trunc, "image: truncated PNG data");
  EXPECT_EQ(jpeg_trunc, "image: truncated JPEG data");
  EXPECT_FALSE(jpeg_result.empty());
}

TEST(ImageDecode, IsDeterministic) {
  for (const char* f : {"jpeg_progressive.jpg", "webp_lossy_alpha.webp", "gif_animated.gif", "bmp_rle4.bmp"}) {
    Bytes b = ReadFile(kGolden + f);
    Result<Image> a = DecodeImage(b), c = DecodeImage(b);
    ASSERT_TRUE(a.ok() && c.ok()) << f;
    EXPECT_EQ(a->rgb, c->rgb) << f;
  }
}

}  // namespace
}  // namespace gemmad::mm
