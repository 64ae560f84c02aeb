// ExtractGemma4AudioFeatures: the spec's token table (multimodal.md §4.7), the frame layout
// (valid frames only, the 160-sample left pad), the HTK filter bank, and the arithmetic of one
// frame against a direct DFT. Parity with Hugging Face is in tests/media_audio.
#include "mm/gemma4_audio_features.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

namespace gemmad::mm {
namespace {

std::vector<float> Noise(int64_t n, uint32_t seed) {
  std::vector<float> x(static_cast<size_t>(n));
  for (auto& v : x) {
    seed = seed * 1664525u + 1013904223u;
    v = static_cast<float>((seed >> 8) * (1.0 / 16777216.0) - 0.5);
  }
  return x;
}

TEST(Gemma4AudioFeaturesTest, SpecTokenTable) {
  struct Row {
    int64_t samples, frames, tokens;
  };
  // multimodal.md §4.7 (HF test_processing_gemma4.py plus arithmetic); 640000 is truncated first.
  for (const Row& r : {Row{160, 0, 0}, Row{16000, 99, 25}, Row{38560, 240, 60}, Row{48000, 299, 75},
                       Row{48800, 304, 76}, Row{99360, 620, 155}, Row{160000, 999, 250}, Row{480000, 2999, 750},
                       Row{640000, 2999, 750}}) {
    AudioFeatures f;
    f.num_frames = Gemma4AudioFrameCount(std::min<int64_t>(r.samples, 480000));
    EXPECT_EQ(f.num_frames, r.frames) << r.samples;
    EXPECT_EQ(f.num_soft_tokens(), r.tokens) << r.samples;
  }
  EXPECT_EQ(Gemma4AudioFrameCount(0), 0);
  EXPECT_EQ(Gemma4AudioFrameCount(161), 1);
  EXPECT_EQ(Gemma4AudioFrameCount(320), 1);
  EXPECT_EQ(Gemma4AudioFrameCount(321), 2);
}

TEST(Gemma4AudioFeaturesTest, ShapeAndTooShortClips) {
  for (int64_t n : {0, 100, 160}) {
    auto f = ExtractGemma4AudioFeatures(Noise(n, 1), 128);
    ASSERT_TRUE(f.ok());
    EXPECT_EQ((*f)->num_frames, 0);
    EXPECT_TRUE((*f)->features.empty());
  }
  auto f = ExtractGemma4AudioFeatures(Noise(16000, 1), 128);
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->num_mels, 128);
  EXPECT_EQ((*f)->num_frames, 99);
  EXPECT_EQ((*f)->features.size(), 99u * 128);
  EXPECT_FALSE(ExtractGemma4AudioFeatures(Noise(400, 1), 0).ok());
  EXPECT_FALSE(ExtractGemma4AudioFeatures(Noise(400, 1), 5000).ok());
}

TEST(Gemma4AudioFeaturesTest, SilenceIsTheFloor) {
  auto f = ExtractGemma4AudioFeatures(std::vector<float>(1000, 0.0f), 16);
  ASSERT_TRUE(f.ok());
  for (float v : (*f)->features) EXPECT_EQ(v, static_cast<float>(std::log(0.001)));
}

TEST(Gemma4AudioFeaturesTest, FramesDependOnlyOnTheirSamples) {
  // Appending samples adds frames but never changes earlier ones (no batch padding effects).
  const std::vector<float> x = Noise(5000, 7);
  auto a = ExtractGemma4AudioFeatures(std::span<const float>(x).first(3000), 32);
  auto b = ExtractGemma4AudioFeatures(x, 32);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_LT((*a)->num_frames, (*b)->num_frames);
  EXPECT_TRUE(std::equal((*a)->features.begin(), (*a)->features.end(), (*b)->features.begin()));
}

TEST(Gemma4AudioFeaturesTest, HtkFilterBankLikeHuggingFace) {
  // Facts of transformers' mel_filter_bank(257, 128, 0, 8000, 16000, None, "htk"): filter 0 falls
  // between bins (all zero), filter 1 is bin 1 alone, filter 127 covers bins 246..256.
  const std::vector<double> fb = Gemma4MelFilterBank(128);
  ASSERT_EQ(fb.size(), 257u * 128);
  double sum = 0;
  for (double v : fb) {
    ASSERT_TRUE(v >= 0.0 && v <= 1.0);
    sum += v;
  }
  EXPECT_NEAR(sum, 252.78513714066457, 1e-9);
  for (int64_t k = 0; k < 257; ++k) {
    EXPECT_EQ(fb[k * 128 + 0], 0.0) << k;
    EXPECT_EQ(fb[k * 128 + 1] > 0, k == 1) << k;
    EXPECT_EQ(fb[k * 128 + 127] > 0, k >= 246) << k;
  }
  EXPECT_NEAR(fb[255 * 128 + 127], 0.18567580937764422, 1e-12);
}

TEST(Gemma4AudioFeaturesTest, OneFrameAgainstADirectDft) {
  const std::vector<float> x = Noise(400, 3);
  const int64_t mels = 16;
  auto f = ExtractGemma4AudioFeatures(x, mels);
  ASSERT_TRUE(f.ok());
  ASSERT_EQ((*f)->num_frames, 2);
  const std::vector<double> fb = Gemma4MelFilterBank(mels);
  // Frame 1 reads samples 0..319 of x (after the 160-sample pad, it starts at padded index 160).
  std::vector<double> seg(320);
  for (int n = 0; n < 320; ++n) {
    const float w = static_cast<float>(0.5 - 0.5 * std::cos(2 * std::numbers::pi * n / 320.0));
    seg[n] = static_cast<double>(x[n] * w);
  }
  for (int64_t m = 0; m < mels; ++m) {
    double mel = 0;
    for (int k = 0; k < 257; ++k) {
      double re = 0, im = 0;
      for (int n = 0; n < 320; ++n) {
        re += seg[n] * std::cos(2 * std::numbers::pi * k * n / 512.0);
        im -= seg[n] * std::sin(2 * std::numbers::pi * k * n / 512.0);
      }
      mel += std::hypot(re, im) * fb[k * mels + m];
    }
    EXPECT_NEAR((*f)->features[1 * mels + m], std::log(mel + 0.001), 2e-6) << m;
  }
}

}  // namespace
}  // namespace gemmad::mm
