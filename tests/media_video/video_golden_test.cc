// DecodeVideo on the committed test videos against tests/golden/media_video/expected.json
// (scripts/golden/make_video_goldens.py): vLLM's frame count, fps and kept indices, and the sha256
// of every sampled RGB frame in both colour modes, equal to the ffmpeg CLI's conversion (the
// opencv mode was also checked equal to OpenCV's own decode). Plus vLLM's sampling rule against
// numpy (sampling.json) and its timestamp text against Python (timestamps.json).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/files.h"
#include "io/sha256.h"
#include "mm/video_decode.h"
#include "mm/video_prompt.h"
#include "mm/video_sampling.h"

namespace gemmad::mm {
namespace {

using nlohmann::json;

std::string GoldenPath(const std::string& name) {
  return std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/media_video/" + name;
}

std::string ReadGolden(const std::string& name) {
  auto s = ReadFileToString(GoldenPath(name));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? *s : std::string();
}

json ReadJson(const std::string& name) { return json::parse(ReadGolden(name)); }

Result<DecodedVideo> Decode(const std::string& name, VideoRgbConversion mode) {
  std::string bytes = ReadGolden(name);
  VideoDecodeOptions o;
  o.rgb_conversion = mode;
  return DecodeVideo(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), o);
}

TEST(VideoGoldenTest, MetadataIndicesAndPixelsMatchBothModes) {
  json expected = ReadJson("expected.json");
  ASSERT_GE(expected["videos"].size(), 7u);
  for (auto& [name, e] : expected["videos"].items()) {
    for (auto [mode, key] : {std::pair{VideoRgbConversion::kOpenCv, "sha256_opencv"},
                             std::pair{VideoRgbConversion::kAccurate, "sha256_accurate"}}) {
      SCOPED_TRACE(name + " " + key);
      auto r = Decode(name, mode);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_EQ(r->total_frames, e["total_frames"].get<int64_t>());
      EXPECT_EQ(r->fps, e["fps"].get<double>());  // exact: both are num / den of the same rational
      EXPECT_DOUBLE_EQ(r->duration_s, e["duration_s"].get<double>());
      EXPECT_EQ(r->frame_indices, e["frame_indices"].get<std::vector<int64_t>>());
      auto shas = e[key].get<std::vector<std::string>>();
      ASSERT_EQ(r->frames.size(), shas.size());
      for (size_t i = 0; i < shas.size(); ++i) {
        const Image& f = r->frames[i];
        EXPECT_EQ(f.width, e["width"].get<int64_t>());
        EXPECT_EQ(f.height, e["height"].get<int64_t>());
        std::string_view bytes(reinterpret_cast<const char*>(f.rgb.data()), f.rgb.size());
        EXPECT_EQ(io::Sha256Hex(bytes), shas[i]) << "frame " << r->frame_indices[i];
      }
    }
  }
}

// One video's frames as raw RGB, so that a difference shows as pixels, not only as a hash.
TEST(VideoGoldenTest, RawFramesMaxDifferenceIsZero) {
  json expected = ReadJson("expected.json");
  for (auto& [name, raw_name] : expected["raw_frames"].items()) {
    std::string raw = ReadGolden(raw_name.get<std::string>());
    auto r = Decode(name, VideoRgbConversion::kOpenCv);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    std::string ours;
    for (const Image& f : r->frames) ours.append(reinterpret_cast<const char*>(f.rgb.data()), f.rgb.size());
    ASSERT_EQ(ours.size(), raw.size()) << name;
    int max_diff = 0;
    for (size_t i = 0; i < raw.size(); ++i) {
      max_diff = std::max(max_diff, std::abs(static_cast<uint8_t>(ours[i]) - static_cast<uint8_t>(raw[i])));
    }
    EXPECT_EQ(max_diff, 0) << name;
  }
}

TEST(VideoGoldenTest, SamplingEqualsNumpyLinspace) {
  json rows = ReadJson("sampling.json");
  ASSERT_GT(rows.size(), 500u);
  for (const json& row : rows) {
    const int64_t total = row["total"].get<int64_t>();
    const int64_t n = row["num_frames"].get<int64_t>();
    EXPECT_EQ(SampleFrameIndices(total, n), row["indices"].get<std::vector<int64_t>>()) << total << " " << n;
  }
}

TEST(VideoGoldenTest, TimestampsEqualVllmPython) {
  json rows = ReadJson("timestamps.json");
  ASSERT_GT(rows.size(), 100u);
  for (const json& row : rows) {
    const int64_t index = row["index"].get<int64_t>();
    const double fps = row["fps"].get<double>();
    EXPECT_EQ(FrameTimestamp(index, fps), row["text"].get<std::string>()) << index << " @ " << fps;
  }
}

}  // namespace
}  // namespace gemmad::mm
