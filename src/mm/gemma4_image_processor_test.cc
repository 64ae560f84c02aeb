#include "mm/gemma4_image_processor.h"

#include <gtest/gtest.h>

#include <cmath>

namespace gemmad::mm {
namespace {

// Pixel (y, x, c) = (7y + 3x + 50c) mod 256: every position is recognisable after patchify.
Image PatternImage(int64_t h, int64_t w) {
  Image img;
  img.height = h;
  img.width = w;
  img.rgb.resize(static_cast<size_t>(h * w * 3));
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      for (int c = 0; c < 3; ++c) img.rgb[(y * w + x) * 3 + c] = static_cast<uint8_t>((7 * y + 3 * x + 50 * c) % 256);
    }
  }
  return img;
}

// multimodal.md §2.3, "Worked values": input -> resized -> soft tokens for every budget.
TEST(Gemma4ImageProcessorTest, WorkedValuesTable) {
  struct Row {
    int64_t h, w;
    std::array<std::array<int64_t, 3>, 5> want;  // per budget 70..1120: th, tw, tokens
  };
  const Row rows[] = {
      {224, 224, {{{384, 384, 64}, {528, 528, 121}, {768, 768, 256}, {1104, 1104, 529}, {1584, 1584, 1089}}}},
      {480, 640, {{{336, 432, 63}, {480, 624, 130}, {672, 912, 266}, {960, 1296, 540}, {1344, 1824, 1064}}}},
      {1080, 1920, {{{288, 528, 66}, {384, 720, 120}, {576, 1056, 264}, {816, 1488, 527}, {1200, 2112, 1100}}}},
      {16000, 16, {{{3360, 48, 70}, {6720, 48, 140}, {13440, 48, 280}, {26880, 48, 560}, {50784, 48, 1058}}}},
      {3, 900, {{{48, 3360, 70}, {48, 6720, 140}, {48, 13440, 280}, {48, 19632, 409}, {48, 27792, 579}}}},
  };
  const int64_t budgets[] = {70, 140, 280, 560, 1120};
  for (const Row& r : rows) {
    for (int b = 0; b < 5; ++b) {
      auto t = TargetSize(r.h, r.w, budgets[b], 16, 3);
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      EXPECT_EQ(t->first, r.want[b][0]) << r.h << "x" << r.w << " B=" << budgets[b];
      EXPECT_EQ(t->second, r.want[b][1]) << r.h << "x" << r.w << " B=" << budgets[b];
      auto n = NumSoftTokens(r.h, r.w, budgets[b]);
      ASSERT_TRUE(n.ok());
      EXPECT_EQ(*n, r.want[b][2]) << r.h << "x" << r.w << " B=" << budgets[b];
      EXPECT_LE(*n, budgets[b]);
    }
  }
  // Any square gives the square row's sizes.
  EXPECT_EQ(*TargetSize(5000, 5000, 280, 16, 3), std::make_pair(int64_t{768}, int64_t{768}));
}

TEST(Gemma4ImageProcessorTest, InvalidBudgetsUseVllmsMessage) {
  for (int64_t ok : {70, 140, 280, 560, 1120}) EXPECT_TRUE(ValidateMaxSoftTokens(ok).ok()) << ok;
  for (int64_t bad : {0, -70, 64, 69, 71, 256, 281, 2240}) {
    Status s = ValidateMaxSoftTokens(bad);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_EQ(s.field(), "max_soft_tokens");
    EXPECT_EQ(NumSoftTokens(224, 224, bad).status(), s);
    EXPECT_EQ(ProcessImage(PatternImage(4, 4), bad).status(), s);
  }
  EXPECT_EQ(ValidateMaxSoftTokens(64).message(),
            "Unsupported max_soft_tokens value: 64. Valid values are (70, 140, 280, 560, 1120).");
}

TEST(Gemma4ImageProcessorTest, RejectsEmptyAndInconsistentImages) {
  EXPECT_EQ(TargetSize(0, 10, 280, 16, 3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TargetSize(10, 0, 280, 16, 3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(NumSoftTokens(0, 0, 280).status().code(), StatusCode::kInvalidArgument);
  Image empty;
  EXPECT_EQ(ProcessImage(empty, 280).status().code(), StatusCode::kInvalidArgument);
  Image zero_width = PatternImage(5, 0);
  EXPECT_EQ(ProcessImage(zero_width, 280).status().code(), StatusCode::kInvalidArgument);
  Image short_buffer = PatternImage(5, 5);
  short_buffer.rgb.resize(10);
  EXPECT_EQ(ProcessImage(short_buffer, 280).status().code(), StatusCode::kInvalidArgument);
  ImageProcessorConfig bad_cfg;
  bad_cfg.patch_size = 0;
  EXPECT_EQ(ProcessImage(PatternImage(5, 5), 280, bad_cfg).status().code(), StatusCode::kInvalidArgument);
  bad_cfg = {};
  bad_cfg.pooling_kernel = 9;
  EXPECT_EQ(NumSoftTokens(5, 5, 280, bad_cfg).status().code(), StatusCode::kInvalidArgument);
}

TEST(Gemma4ImageProcessorTest, ExtremeAspectRatiosStayWithinTheBudget) {
  // 1 x 100000: the height rounds to zero, so 48 x min(100000 * 48, 280 * 48).
  Image strip = PatternImage(1, 100000);
  auto patches = ProcessImage(strip, 280);
  ASSERT_TRUE(patches.ok()) << patches.status().ToString();
  EXPECT_EQ((*patches)->grid_h, 3);
  EXPECT_EQ((*patches)->grid_w, 13440 / 16);
  EXPECT_EQ((*patches)->num_soft_tokens(), 280);
  EXPECT_EQ((*patches)->pixels.size(), size_t{3 * 840 * 768});
  // Header-only counting of absurd sizes allocates nothing and stays capped.
  EXPECT_EQ(*NumSoftTokens(1, kMaxImageSide, 1120), 1120);
  EXPECT_EQ(*NumSoftTokens(kMaxImageSide, 2, 70), 70);
  EXPECT_EQ(TargetSize(1, int64_t{1} << 40, 280, 16, 3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TargetSize(int64_t{1} << 40, 1, 280, 16, 3).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(TargetSize(10, 10, 0, 16, 3).status().code(), StatusCode::kInvalidArgument);
}

TEST(Gemma4ImageProcessorTest, PatchifyOrderPositionsAndRescale) {
  // 336 x 432 is its own target at B=70: no resize, so every value is traceable.
  Image img = PatternImage(336, 432);
  auto out = ProcessImage(img, 70);
  ASSERT_TRUE(out.ok());
  const VisionPatches& v = **out;
  ASSERT_EQ(v.grid_h, 21);
  ASSERT_EQ(v.grid_w, 27);
  EXPECT_EQ(v.num_soft_tokens(), 63);
  EXPECT_EQ(v.patch_size, 16);
  EXPECT_EQ(v.pooling_kernel, 3);
  const float inv = static_cast<float>(1.0 / 255.0);
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{26}, int64_t{27}, int64_t{300}, v.num_patches() - 1}) {
    const int64_t px = n % 27, py = n / 27;
    EXPECT_EQ(v.positions[2 * n], px);
    EXPECT_EQ(v.positions[2 * n + 1], py);
    for (int64_t r = 0; r < 16; ++r) {
      for (int64_t c = 0; c < 16; ++c) {
        for (int ch = 0; ch < 3; ++ch) {
          const uint8_t u = img.at(py * 16 + r, px * 16 + c, ch);
          ASSERT_EQ(v.pixels[n * 768 + (r * 16 + c) * 3 + ch], static_cast<float>(u) * inv);
        }
      }
    }
  }
}

TEST(Gemma4ImageProcessorTest, RescaleModesDifferByOneUlpWhereTheyDiffer) {
  Image img = PatternImage(336, 432);
  auto mul = ProcessImage(img, 70, {}, {}, Rescale::kMultiplyInv255);
  auto div = ProcessImage(img, 70, {}, {}, Rescale::kDivide255);
  ASSERT_TRUE(mul.ok() && div.ok());
  int64_t differ = 0;
  for (size_t i = 0; i < (*mul)->pixels.size(); ++i) {
    const float a = (*mul)->pixels[i], b = (*div)->pixels[i];
    if (a != b) {
      ++differ;
      ASSERT_TRUE(std::nextafter(a, b) == b) << a << " vs " << b;
    }
    const float u = std::round(b * 255.0f);
    ASSERT_EQ(b, u / 255.0f);
  }
  EXPECT_GT(differ, 0);
}

TEST(Gemma4ImageProcessorTest, TinyProcessorCounts) {
  ImageProcessorConfig tiny;
  tiny.patch_size = 4;
  tiny.default_max_soft_tokens = 70;
  // unit 12, pixel budget 630 * 16 = 10080: 40 x 56 -> s = 2.12 -> 84 x 108 -> 7 * 9 tokens.
  auto t = TargetSize(40, 56, 70, 4, 3);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, std::make_pair(int64_t{84}, int64_t{108}));
  EXPECT_EQ(*NumSoftTokens(40, 56, 70, tiny), 63);
  auto out = ProcessImage(PatternImage(40, 56), 70, tiny);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)->grid_h, 21);
  EXPECT_EQ((*out)->grid_w, 27);
  EXPECT_EQ((*out)->patch_dim(), 48);
  EXPECT_EQ((*out)->num_soft_tokens(), 63);
}

TEST(Gemma4ImageProcessorTest, VideoFramesShareTheFirstFramesTarget) {
  std::vector<Image> frames = {PatternImage(120, 160), PatternImage(120, 160), PatternImage(90, 200)};
  frames[1].rgb[0] = 255;
  auto out = ProcessVideoFrames(frames);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 3u);
  const auto target = *TargetSize(120, 160, 70, 16, 3);  // 336 x 432
  for (const auto& f : *out) {
    EXPECT_EQ(f->grid_h * 16, target.first);
    EXPECT_EQ(f->grid_w * 16, target.second);
    EXPECT_EQ(f->num_soft_tokens(), 63);
  }
  // A frame of the first frame's size is processed exactly like an image at the frame budget.
  auto single = ProcessImage(frames[1], 70);
  ASSERT_TRUE(single.ok());
  EXPECT_EQ((*out)[1]->pixels, (*single)->pixels);
  EXPECT_NE((*out)[0]->pixels, (*out)[1]->pixels);

  EXPECT_EQ(ProcessVideoFrames({}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ProcessVideoFrames(frames, 100).status().code(), StatusCode::kInvalidArgument);
  frames[2].rgb.clear();
  auto bad = ProcessVideoFrames(frames);
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("video frame 2"), std::string::npos);
}

}  // namespace
}  // namespace gemmad::mm
