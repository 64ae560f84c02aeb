// Tests of DecodeVideo's errors and limits, sampling options and rotation on the committed test
// videos (tests/golden/media_video, made by scripts/golden/make_video_goldens.py). Pixel-exact
// comparisons against ffmpeg and OpenCV are in tests/media_video/video_golden_test.cc.
#include "mm/video_decode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/files.h"

namespace gemmad::mm {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<uint8_t> Golden(const std::string& name) {
  auto s = ReadFileToString(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/media_video/" + name);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::vector<uint8_t>(s->begin(), s->end()) : std::vector<uint8_t>{};
}

std::string ErrorOf(const std::vector<uint8_t>& bytes, const VideoDecodeOptions& o = {}) {
  auto r = DecodeVideo(bytes, o);
  if (r.ok()) return "ok";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << r.status().ToString();
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos);
  EXPECT_THAT(r.status().message(), StartsWith("video: "));
  return r.status().message();
}

TEST(DecodeVideoTest, SamplesLikeVllmByDefault) {
  auto r = DecodeVideo(Golden("h264_64x48_40f.mp4"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total_frames, 40);
  EXPECT_EQ(r->fps, 25.0);
  EXPECT_DOUBLE_EQ(r->duration_s, 1.6);
  ASSERT_EQ(r->frames.size(), 32u);
  EXPECT_EQ(r->frame_indices, SampleFrameIndices(40, 32));
  EXPECT_EQ(r->frames[0].width, 64);
  EXPECT_EQ(r->frames[0].height, 48);
  EXPECT_EQ(r->frames[0].rgb.size(), 64u * 48 * 3);
}

TEST(DecodeVideoTest, NumFramesOption) {
  VideoDecodeOptions o;
  o.num_frames = 4;
  auto r = DecodeVideo(Golden("h264_64x48_40f.mp4"), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->frame_indices, (std::vector<int64_t>{0, 13, 26, 39}));
  o.num_frames = -1;
  r = DecodeVideo(Golden("h264_64x48_40f.mp4"), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->frames.size(), 40u);
}

TEST(DecodeVideoTest, FewerFramesThanAskedKeepsAll) {
  auto r = DecodeVideo(Golden("mpeg4_48x32_10f.mkv"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->frame_indices, SampleFrameIndices(10, 10));
}

TEST(DecodeVideoTest, CountsFramesWhenTheContainerHasNoCount) {
  auto r = DecodeVideo(Golden("h264_64x48_50f.h264"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->total_frames, 50);
  EXPECT_EQ(r->frame_indices, SampleFrameIndices(50, 32));
}

TEST(DecodeVideoTest, RotatesLikeOpenCv) {
  // The same H.264 stream, once with a 90-degree (counter-clockwise) display matrix.
  auto plain = DecodeVideo(Golden("h264_64x48_40f.mp4"));
  auto turned = DecodeVideo(Golden("h264_rot90_64x48_40f.mp4"));
  ASSERT_TRUE(plain.ok() && turned.ok());
  ASSERT_EQ(turned->frames.size(), plain->frames.size());
  EXPECT_EQ(turned->frames[0].width, 48);
  EXPECT_EQ(turned->frames[0].height, 64);
  for (size_t i = 0; i < plain->frames.size(); ++i) {
    EXPECT_EQ(turned->frames[i].rgb, RotateClockwise(plain->frames[i], 270).rgb) << i;
  }
}

TEST(RotateClockwiseTest, QuarterTurns) {
  Image img{2, 3, {}};  // pixel value = 10 * y + x in every channel
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) img.rgb.insert(img.rgb.end(), 3, static_cast<uint8_t>(10 * y + x));
  }
  auto at = [](const Image& m, int y, int x) { return m.at(y, x, 0); };
  Image r90 = RotateClockwise(img, 90);
  ASSERT_EQ(r90.height, 3);
  ASSERT_EQ(r90.width, 2);
  EXPECT_EQ(at(r90, 0, 0), 10);  // the bottom-left pixel goes to the top-left
  EXPECT_EQ(at(r90, 0, 1), 0);
  EXPECT_EQ(at(r90, 2, 0), 12);
  Image r180 = RotateClockwise(img, 180);
  EXPECT_EQ(at(r180, 0, 0), 12);
  EXPECT_EQ(at(r180, 1, 2), 0);
  Image r270 = RotateClockwise(img, 270);
  EXPECT_EQ(at(r270, 0, 0), 2);  // the top-right pixel goes to the top-left
  EXPECT_EQ(at(r270, 2, 1), 10);
  EXPECT_EQ(RotateClockwise(RotateClockwise(img, 90), 270).rgb, img.rgb);
  EXPECT_EQ(RotateClockwise(img, 45).rgb, img.rgb);
}

TEST(DecodeVideoTest, RejectsEmptyGarbageAndNonVideo) {
  EXPECT_THAT(ErrorOf({}), HasSubstr("empty"));
  std::vector<uint8_t> garbage(5000);
  for (size_t i = 0; i < garbage.size(); ++i) garbage[i] = static_cast<uint8_t>(i * 7919 >> 3);
  EXPECT_THAT(ErrorOf(garbage), HasSubstr("cannot read the container"));
  std::string text = "this is not a video, just text\n";
  EXPECT_THAT(ErrorOf(std::vector<uint8_t>(text.begin(), text.end())), HasSubstr("cannot read the container"));
}

TEST(DecodeVideoTest, RejectsAudioOnlyAndUnsupportedCodec) {
  EXPECT_THAT(ErrorOf(Golden("aac_audio_only.m4a")), HasSubstr("no video stream"));
  EXPECT_THAT(ErrorOf(Golden("ffv1_8x6_2f.mkv")), HasSubstr("unsupported video codec 'ffv1'"));
}

TEST(DecodeVideoTest, RejectsTruncatedFiles) {
  // MP4 with its index at the end: cut, the container cannot be read.
  auto mp4 = Golden("h264_64x48_40f.mp4");
  mp4.resize(mp4.size() / 2);
  EXPECT_THAT(ErrorOf(mp4), HasSubstr("truncated"));
  // WebM cut mid-stream: the header is there, frames are missing.
  auto webm = Golden("vp9_63x47_64f.webm");
  webm.resize(webm.size() * 6 / 10);
  EXPECT_THAT(ErrorOf(webm), HasSubstr("truncated"));
}

TEST(DecodeVideoTest, EveryPrefixIsAVideoOrAClearError) {
  for (const char* name : {"h264_64x48_40f.mp4", "vp9_63x47_64f.webm", "mpeg4_48x32_10f.mkv", "gif_40x30_12f.gif",
                           "h264_64x48_50f.h264"}) {
    auto full = Golden(name);
    for (size_t n = 1; n < full.size(); n += 211) {
      std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<long>(n));
      auto r = DecodeVideo(cut);
      if (!r.ok()) {
        EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument) << name << " " << n;
      } else {
        EXPECT_FALSE(r->frames.empty());
      }
    }
  }
}

TEST(DecodeVideoTest, Limits) {
  auto mp4 = Golden("h264_64x48_40f.mp4");
  VideoDecodeOptions o;
  o.max_bytes = 1000;
  EXPECT_THAT(ErrorOf(mp4, o), HasSubstr("bytes exceed the limit of 1000 bytes"));
  o = {};
  o.max_pixels = 64 * 48 - 1;
  EXPECT_THAT(ErrorOf(mp4, o), HasSubstr("frame size 64x48 (3072 pixels) exceeds the limit of 3071 pixels"));
  o = {};
  o.max_total_frames = 39;
  EXPECT_THAT(ErrorOf(mp4, o), HasSubstr("40 frames exceed the limit of 39 frames"));
  EXPECT_THAT(ErrorOf(Golden("h264_64x48_50f.h264"), o), HasSubstr("frames exceed the limit of 39 frames"));
  o = {};
  o.max_output_bytes = 32 * 64 * 48 * 3 - 1;
  EXPECT_THAT(ErrorOf(mp4, o), HasSubstr("exceed the output limit"));
  o = {};
  o.max_decode_seconds = 1e-9;
  EXPECT_THAT(ErrorOf(mp4, o), HasSubstr("decoding took longer than the limit"));
  o = {};
  o.max_pixels = 0;
  EXPECT_THAT(ErrorOf(mp4, o), HasSubstr("limits must be positive"));
}

// A GIF whose header claims a 65535 x 65535 canvas (12 GiB as RGB) around one 1x1 image: refused
// by the pixel limit before any frame buffer is allocated.
TEST(DecodeVideoTest, HugeDeclaredSizeIsRefusedBeforeDecoding) {
  std::vector<uint8_t> gif = {'G', 'I', 'F', '8', '9', 'a', 0xFF, 0xFF, 0xFF, 0xFF, 0x80, 0, 0,
                              0, 0, 0, 0xFF, 0xFF, 0xFF,                      // 2-colour palette
                              0x2C, 0, 0, 0, 0, 1, 0, 1, 0, 0,                // 1x1 image at (0, 0)
                              0x02, 0x02, 0x44, 0x01, 0x00, 0x3B};            // LZW data, trailer
  EXPECT_THAT(ErrorOf(gif), HasSubstr("65535x65535 (4294836225 pixels) exceeds the limit"));
}

TEST(DecodeVideoTest, WritesNothingToStderr) {
  auto webm = Golden("vp9_63x47_64f.webm");
  webm.resize(webm.size() * 6 / 10);
  std::vector<uint8_t> garbage(3000, 0x47);  // MPEG-TS sync bytes, nothing valid after them
  ::testing::internal::CaptureStderr();
  (void)DecodeVideo(webm);
  (void)DecodeVideo(garbage);
  (void)DecodeVideo(Golden("aac_audio_only.m4a"));
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace gemmad::mm
