// PrepareAudio / PrepareAudioBytes: truncation to 30 s (and that decoding only 31 s of a longer
// clip changes nothing), the too-short error, format hints in errors, data: URLs, cancellation,
// and the content hash (equal content, equal hash; stereo with equal channels = mono).
#include "mm/audio_item.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "io/base64.h"
#include "mm/audio_decode.h"
#include "mm/audio_resample.h"
#include "mm/gemma4_audio_features.h"
#include "mm/wav_for_tests.h"

namespace gemmad::mm {
namespace {

using ::testing::HasSubstr;

std::vector<float> Tone(int rate, double seconds, int channels = 1) {  // [frames, channels]
  const auto frames = static_cast<int64_t>(std::llround(rate * seconds));
  std::vector<float> x(static_cast<size_t>(frames * channels));
  for (int64_t f = 0; f < frames; ++f) {
    const float v = 0.3f * std::sin(2 * 3.14159265f * 440.0f * f / rate) + 0.1f * std::sin(0.37f * f);
    for (int c = 0; c < channels; ++c) x[f * channels + c] = v;
  }
  return x;
}

TEST(PrepareAudioTest, TruncatesTo30Seconds) {
  const std::vector<uint8_t> wav = MakeWav({16000, 1}, Tone(16000, 35.0));
  auto p = PrepareAudioBytes(wav, "wav", {});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->truncated);
  EXPECT_EQ(p->source_samples, 560000);
  EXPECT_EQ(p->features->num_frames, 2999);
  EXPECT_EQ(p->features->num_soft_tokens(), 750);
  AudioDecodeOptions all;
  all.keep_seconds = 0;
  auto decoded = DecodeAudio(wav, all);
  ASSERT_TRUE(decoded.ok());
  auto want = ExtractGemma4AudioFeatures(std::span<const float>(decoded->samples).first(480000), 128);
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(p->features->features, (*want)->features);
}

TEST(PrepareAudioTest, DecodingOnly31SecondsKeepsTheResampledFirst30) {
  // 44.1 kHz, 32.5 s: the whole clip decoded and resampled, then truncated, equals the default
  // path that decodes 31 s (the resampler's filter is far shorter than the 1 s margin).
  const std::vector<uint8_t> wav = MakeWav({44100, 1}, Tone(44100, 32.5));
  auto p = PrepareAudioBytes(wav, "", {});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->truncated);
  EXPECT_EQ(p->source_samples, Resampled16kLength(1433250, 44100));
  AudioDecodeOptions all;
  all.keep_seconds = 0;
  auto decoded = DecodeAudio(wav, all);
  ASSERT_TRUE(decoded.ok());
  auto y = ResampleTo16k(decoded->samples, 44100);
  ASSERT_TRUE(y.ok());
  ASSERT_EQ(static_cast<int64_t>(y->size()), p->source_samples);
  y->resize(480000);
  auto want = ExtractGemma4AudioFeatures(*y, 128);
  ASSERT_TRUE(want.ok());
  EXPECT_EQ(p->features->features, (*want)->features);
  EXPECT_EQ(p->hash, HashAudioFeatures(**want));
}

TEST(PrepareAudioTest, TooShortClip) {
  auto p = PrepareAudioBytes(MakeWav({16000, 1}, Tone(16000, 0.01)), "", {});  // 160 samples
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("no complete 20 ms frame (0.0100 s"));
  EXPECT_TRUE(PrepareAudioBytes(MakeWav({16000, 1}, Tone(16000, 161.0 / 16000)), "", {}).ok());
}

TEST(PrepareAudioTest, ErrorsNameTheFormatHint) {
  const std::vector<uint8_t> garbage(500, 0x11);
  auto p = PrepareAudioBytes(garbage, "mp3", {});
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("(sent as \"mp3\")"));
  EXPECT_EQ(PrepareAudioBytes({}, "", {}).status().code(), StatusCode::kInvalidArgument);
}

TEST(PrepareAudioTest, CancelledAndDeadline) {
  const std::vector<uint8_t> wav = MakeWav({16000, 1}, Tone(16000, 1.0));
  AudioMediaOptions o;
  o.source.cancelled = [] { return true; };
  EXPECT_EQ(PrepareAudioBytes(wav, "", o).status().code(), StatusCode::kCancelled);
  o = {};
  o.decode_timeout_ms = -1;
  EXPECT_EQ(PrepareAudioBytes(wav, "", o).status().code(), StatusCode::kDeadlineExceeded);
}

TEST(PrepareAudioTest, DataUrlEqualsBytes) {
  const std::vector<uint8_t> wav = MakeWav({22050, 1}, Tone(22050, 0.5));
  const std::string url = "data:audio/wav;base64," + io::EncodeBase64(std::string(wav.begin(), wav.end()));
  auto a = PrepareAudio(url, {});
  auto b = PrepareAudioBytes(wav, "wav", {});
  ASSERT_TRUE(a.ok() && b.ok()) << a.status().ToString();
  EXPECT_EQ(a->hash, b->hash);
  EXPECT_EQ(a->features->features, b->features->features);
  EXPECT_EQ(a->features->num_frames, 49);
}

TEST(PrepareAudioTest, HashFollowsTheFeatures) {
  // Stereo with two equal channels mixes to exactly the mono signal: same features, same hash.
  auto mono = PrepareAudioBytes(MakeWav({16000, 1}, Tone(16000, 0.3)), "", {});
  auto stereo = PrepareAudioBytes(MakeWav({16000, 2}, Tone(16000, 0.3, 2)), "", {});
  auto longer = PrepareAudioBytes(MakeWav({16000, 1}, Tone(16000, 0.31)), "", {});
  AudioMediaOptions tiny;
  tiny.num_mels = 16;
  auto fewer_mels = PrepareAudioBytes(MakeWav({16000, 1}, Tone(16000, 0.3)), "", tiny);
  ASSERT_TRUE(mono.ok() && stereo.ok() && longer.ok() && fewer_mels.ok());
  EXPECT_EQ(mono->hash, stereo->hash);
  EXPECT_EQ(mono->hash, HashAudioFeatures(*mono->features));
  EXPECT_NE(mono->hash, longer->hash);
  EXPECT_NE(mono->hash, fewer_mels->hash);
  EXPECT_EQ(fewer_mels->features->num_mels, 16);
}

}  // namespace
}  // namespace gemmad::mm
