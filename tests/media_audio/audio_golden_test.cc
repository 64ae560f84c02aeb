// The audio path against tests/golden/media_audio (scripts/golden/make_audio_goldens.py):
//   decoding    == librosa.load(sr=None, mono=True): bit-exact for WAV and FLAC (the same
//                  libsndfile conversion); lossy codecs within kLossyDecodeTol (libsndfile 1.2.0
//                  with Debian's mpg123/vorbis/opus against soundfile's bundled 1.2.2 builds);
//   resampling  ~= librosa.resample(soxr_hq), same length, within kResampleTol (Debian's libsoxr
//                  0.1.3 against python-soxr's bundled build: bit-exact here, but SIMD paths may
//                  round differently elsewhere);
//   features    ~= HF Gemma4AudioFeatureExtractor on librosa's 16 kHz signal, within kFeatureTol
//                  (HF's rfft is float32, ours double: the gap is HF's rounding noise);
//   end to end  PrepareAudioBytes(file) vs HF(librosa(file)): same frames and soft tokens,
//                  features within kEndToEndTol.
// Each test prints the largest error it measured.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/sha256.h"
#include "mm/audio_decode.h"
#include "mm/audio_item.h"
#include "mm/audio_resample.h"
#include "mm/gemma4_audio_features.h"

namespace gemmad::mm {
namespace {

const std::string kDir = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/media_audio/";
// Measured (x86-64, Debian 12 against the goldens' versions): lossy decoding 3.7e-8, resampling 0
// (bit-exact), features 4.8e-7, end to end 4.4e-6. The bounds leave room for other SIMD paths.
constexpr double kLossyDecodeTol = 1e-6;
constexpr double kResampleTol = 1e-6;
constexpr double kFeatureTol = 1e-5;
constexpr double kEndToEndTol = 1e-4;

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<float> ReadF32(const std::string& name) {  // little-endian float32 (x86/arm64 hosts)
  const std::vector<uint8_t> b = ReadBytes(kDir + name);
  std::vector<float> out(b.size() / 4);
  std::memcpy(out.data(), b.data(), out.size() * 4);
  return out;
}

std::string Sha256Of(const std::vector<float>& v) {
  return io::Sha256Hex(std::string_view(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float)));
}

double MaxAbsDiff(std::span<const float> a, std::span<const float> b) {
  EXPECT_EQ(a.size(), b.size());
  double m = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) m = std::max(m, std::abs(double(a[i]) - double(b[i])));
  return m;
}

const nlohmann::json& Clips() {
  static const nlohmann::json j = [] {
    std::ifstream in(kDir + "expected.json");
    return nlohmann::json::parse(in);
  }();
  return j.at("clips");
}

TEST(AudioGoldenTest, DecodesLikeLibrosa) {
  double lossy_max = 0;
  for (const auto& [name, c] : Clips().items()) {
    SCOPED_TRACE(name);
    auto r = DecodeAudio(ReadBytes(kDir + name));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->sample_rate, c.at("sample_rate").get<int>());
    EXPECT_EQ(r->channels, c.at("channels").get<int>());
    ASSERT_EQ(static_cast<int64_t>(r->samples.size()), c.at("frames").get<int64_t>());
    if (c.at("lossless").get<bool>()) {
      EXPECT_EQ(Sha256Of(r->samples), c.at("samples_sha256").get<std::string>());
      continue;
    }
    const auto idx = c.at("sample_indices").get<std::vector<int64_t>>();
    const auto want = c.at("sample_values").get<std::vector<double>>();
    for (size_t i = 0; i < idx.size(); ++i) {
      const double d = std::abs(r->samples[idx[i]] - want[i]);
      lossy_max = std::max(lossy_max, d);
      EXPECT_LE(d, kLossyDecodeTol) << "sample " << idx[i];
    }
  }
  std::cout << "lossy decoding: max |ours - librosa| at the sampled indices = " << lossy_max << "\n";
}

TEST(AudioGoldenTest, ResamplesLikeLibrosaSoxrHq) {
  double worst = 0;
  for (const auto& [name, c] : Clips().items()) {
    if (!c.at("lossless").get<bool>()) continue;  // the same input only where decoding is exact
    SCOPED_TRACE(name);
    auto decoded = DecodeAudio(ReadBytes(kDir + name));
    ASSERT_TRUE(decoded.ok());
    auto y = ResampleTo16k(decoded->samples, decoded->sample_rate);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    const std::vector<float> want = ReadF32(c.at("resampled_file").get<std::string>());
    ASSERT_EQ(static_cast<int64_t>(y->size()), c.at("resampled_length").get<int64_t>());
    const double d = MaxAbsDiff(*y, want);
    std::cout << name << ": resampled max |ours - librosa| = " << d << (Sha256Of(*y) == c.at("resampled_sha256") ? " (bit-exact)" : "") << "\n";
    worst = std::max(worst, d);
  }
  EXPECT_LE(worst, kResampleTol);
}

TEST(AudioGoldenTest, FeaturesLikeHuggingFace) {
  double worst = 0;
  for (const auto& [name, c] : Clips().items()) {
    SCOPED_TRACE(name);
    const std::vector<float> y = ReadF32(c.at("resampled_file").get<std::string>());
    for (int mels : {16, 128}) {
      const auto& g = c.at("mel" + std::to_string(mels));
      auto f = ExtractGemma4AudioFeatures(y, mels);
      ASSERT_TRUE(f.ok()) << f.status().ToString();
      ASSERT_EQ((*f)->num_frames, g.at("frames").get<int64_t>());
      EXPECT_EQ((*f)->num_soft_tokens(), g.at("soft_tokens").get<int64_t>());
      double d = 0;
      if (g.contains("file")) {
        d = MaxAbsDiff((*f)->features, ReadF32(g.at("file").get<std::string>()));
      } else {
        const auto idx = g.at("value_indices").get<std::vector<int64_t>>();
        const auto want = g.at("values").get<std::vector<double>>();
        for (size_t i = 0; i < idx.size(); ++i) d = std::max(d, std::abs((*f)->features[idx[i]] - want[i]));
      }
      EXPECT_LE(d, kFeatureTol) << mels << " mels";
      worst = std::max(worst, d);
    }
  }
  std::cout << "features: max |ours - HF| = " << worst << "\n";
}

TEST(AudioGoldenTest, PrepareAudioBytesEndToEnd) {
  double worst = 0;
  for (const auto& [name, c] : Clips().items()) {
    SCOPED_TRACE(name);
    AudioMediaOptions o;
    auto p = PrepareAudioBytes(ReadBytes(kDir + name), "", o);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    const auto& g = c.at("mel128");
    ASSERT_EQ(p->features->num_frames, g.at("frames").get<int64_t>());
    EXPECT_EQ(p->features->num_soft_tokens(), g.at("soft_tokens").get<int64_t>());
    EXPECT_EQ(p->source_samples, c.at("resampled_length").get<int64_t>());
    EXPECT_FALSE(p->truncated);
    const auto idx = g.at("value_indices").get<std::vector<int64_t>>();
    const auto want = g.at("values").get<std::vector<double>>();
    double d = 0;
    for (size_t i = 0; i < idx.size(); ++i) d = std::max(d, std::abs(p->features->features[idx[i]] - want[i]));
    EXPECT_LE(d, kEndToEndTol);
    worst = std::max(worst, d);
  }
  std::cout << "end to end: max |ours - HF(librosa)| at the sampled values = " << worst << "\n";
}

TEST(AudioGoldenTest, TokenCountsLikeHuggingFace) {
  std::ifstream in(kDir + "token_counts.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.at("batch_padding_keeps_single_clip_frames").get<bool>());
  for (const auto& row : j.at("table")) {
    const int64_t n = std::min<int64_t>(row.at("samples").get<int64_t>(), 480000);  // HF truncates to 30 s
    AudioFeatures f;
    f.num_frames = Gemma4AudioFrameCount(n);
    EXPECT_EQ(f.num_frames, row.at("frames").get<int64_t>()) << n;
    EXPECT_EQ(f.num_soft_tokens(), row.at("soft_tokens").get<int64_t>()) << n;
  }
}

}  // namespace
}  // namespace gemmad::mm
