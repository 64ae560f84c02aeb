// The Gemma 4 image processor and the bicubic antialiased resize against transformers 5.25.0 /
// torchvision 0.29.2 / torch 2.15 CPU (tests/golden/image_processor, written by
// scripts/golden/make_image_processor_goldens.py). Every comparison is bitwise: resized bytes,
// pixel_values as little-endian f32 and positions as little-endian int64 through their sha256.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <bit>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/files.h"
#include "io/sha256.h"
#include "mm/gemma4_image_processor.h"
#include "mm/resize_bicubic_aa.h"
#include "mm/resize_rows.h"
#include "synthetic_image.h"

namespace gemmad::mm {
namespace {

using nlohmann::json;

json LoadGolden(const std::string& name) {
  auto text = ReadFileToString(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/image_processor/" + name);
  EXPECT_TRUE(text.ok()) << text.status().ToString();
  return text.ok() ? json::parse(*text) : json();
}

std::string Sha(const std::vector<uint8_t>& bytes) {
  return io::Sha256Hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

template <typename T>
void AppendLe(std::vector<uint8_t>& out, T v) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  const U u = std::bit_cast<U>(v);
  for (size_t b = 0; b < sizeof(T); ++b) out.push_back(static_cast<uint8_t>(u >> (8 * b)));
}

std::string PixelsSha(const VisionPatches& v) {
  std::vector<uint8_t> bytes;
  bytes.reserve(v.pixels.size() * 4);
  for (float f : v.pixels) AppendLe(bytes, f);
  return Sha(bytes);
}

std::string PositionsSha(const VisionPatches& v) {
  std::vector<uint8_t> bytes;
  for (int32_t p : v.positions) AppendLe(bytes, static_cast<int64_t>(p));
  return Sha(bytes);
}

Image Input(const json& c) {
  Image img = testing::SyntheticImage(c["height"], c["width"], c["seed"].get<uint64_t>());
  EXPECT_EQ(Sha(img.rgb), c["input_sha256"]) << "the C++ and Python synthetic images differ";
  return img;
}

TEST(ImageProcessorGoldenTest, MatchesTransformersBitForBit) {
  const json cases = LoadGolden("cases.json")["cases"];
  ASSERT_GE(cases.size(), 40u);
  for (const json& c : cases) {
    const std::string name = fmt::format("{}x{} B={} p={}", c["height"].get<int64_t>(), c["width"].get<int64_t>(),
                                         c["max_soft_tokens"].get<int64_t>(), c["patch_size"].get<int64_t>());
    SCOPED_TRACE(name);
    const Image img = Input(c);
    ImageProcessorConfig cfg;
    cfg.patch_size = c["patch_size"];
    cfg.pooling_kernel = c["pooling_kernel"];
    const int64_t budget = c["max_soft_tokens"];

    auto target = TargetSize(img.height, img.width, budget, cfg.patch_size, cfg.pooling_kernel);
    ASSERT_TRUE(target.ok());
    ASSERT_EQ(target->first, c["resized_height"].get<int64_t>());
    ASSERT_EQ(target->second, c["resized_width"].get<int64_t>());
    EXPECT_EQ(c["resized"].get<bool>(), *target != std::make_pair(img.height, img.width));
    EXPECT_EQ(*NumSoftTokens(img.height, img.width, budget, cfg), c["num_soft_tokens"].get<int64_t>());

    auto resized = ResizeBicubicAntialias(img, target->first, target->second);
    ASSERT_TRUE(resized.ok());
    for (const json& s : c["resized_samples"]) {
      for (int ch = 0; ch < 3; ++ch) {
        ASSERT_EQ(resized->at(s[0], s[1], ch), s[2 + ch].get<int>()) << "pixel (" << s[0] << ", " << s[1] << ")";
      }
    }
    EXPECT_EQ(Sha(resized->rgb), c["resized_sha256"]);

    auto patches = ProcessImage(img, budget, cfg);
    ASSERT_TRUE(patches.ok()) << patches.status().ToString();
    const VisionPatches& v = **patches;
    EXPECT_EQ(v.grid_h, c["grid_h"].get<int64_t>());
    EXPECT_EQ(v.grid_w, c["grid_w"].get<int64_t>());
    EXPECT_EQ(v.num_soft_tokens(), c["num_soft_tokens"].get<int64_t>());
    const int64_t row = c["pixel_row"];
    const auto& bits = c["pixel_row_f32_bits"];
    for (size_t k = 0; k < bits.size(); ++k) {
      ASSERT_EQ(std::bit_cast<uint32_t>(v.pixels[row * v.patch_dim() + k]), bits[k].get<uint32_t>()) << k;
    }
    EXPECT_EQ(PixelsSha(v), c["pixel_values_sha256"]);
    EXPECT_EQ(PositionsSha(v), c["positions_sha256"]);
  }
}

TEST(ImageProcessorGoldenTest, ResizeSweepMatchesTorch) {
  const json pairs = LoadGolden("resize_sweep.json")["pairs"];
  ASSERT_GE(pairs.size(), 150u);
  std::vector<const internal::ResizeRowKernels*> kernels = {&internal::GenericResizeRowKernels()};
  if (internal::Avx2ResizeRowKernels() != nullptr) kernels.push_back(internal::Avx2ResizeRowKernels());
  for (const json& p : pairs) {
    const Image img = Input(p);
    const int64_t oh = p["out_height"], ow = p["out_width"];
    for (const auto* k : kernels) {
      auto out = internal::ResizeBicubicAntialiasWith(*k, img, oh, ow);
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ(Sha(out->rgb), p["output_sha256"])
          << k->name << ": " << img.height << "x" << img.width << " -> " << oh << "x" << ow;
    }
  }
}

TEST(ImageProcessorGoldenTest, VideoFramesMatchBothHfPaths) {
  const json videos = LoadGolden("video.json")["videos"];
  ASSERT_EQ(videos.size(), 3u);
  for (const json& v : videos) {
    std::vector<Image> frames;
    for (const json& f : v["frames"]) {
      json spec = f;
      spec["height"] = v["height"];
      spec["width"] = v["width"];
      frames.push_back(Input(spec));
    }
    // HF's Gemma4VideoProcessor divides by 255; vLLM runs each frame through the image processor.
    auto hf = ProcessVideoFrames(frames, kVideoFrameMaxSoftTokens, {}, {}, Rescale::kDivide255);
    auto served = ProcessVideoFrames(frames);
    ASSERT_TRUE(hf.ok() && served.ok());
    ASSERT_EQ(hf->size(), frames.size());
    for (size_t i = 0; i < frames.size(); ++i) {
      const json& f = v["frames"][i];
      const VisionPatches& a = *(*hf)[i];
      EXPECT_EQ(a.grid_h * 16, v["resized_height"].get<int64_t>());
      EXPECT_EQ(a.grid_w * 16, v["resized_width"].get<int64_t>());
      EXPECT_EQ(a.num_soft_tokens(), v["num_soft_tokens_per_frame"].get<int64_t>());
      EXPECT_EQ(PositionsSha(a), v["positions_sha256"]);
      EXPECT_EQ(PixelsSha(a), f["hf_video_pixel_values_sha256"]) << "frame " << i;
      EXPECT_EQ(PixelsSha(*(*served)[i]), f["image_processor_pixel_values_sha256"]) << "frame " << i;
    }
  }
}

}  // namespace
}  // namespace gemmad::mm
