// DecodeAudio on the committed clips (tests/golden/media_audio) and on WAVs built in memory:
// every container decodes with its rate, channel count and length, channels are mixed by their
// mean, and bad input is a one-line "audio: ..." error, never a crash. Sample-exact parity with
// librosa is in tests/media_audio/audio_golden_test.cc.
#include "mm/audio_decode.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "base/files.h"
#include "mm/wav_for_tests.h"

namespace gemmad::mm {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<uint8_t> Clip(const std::string& name) {
  auto s = ReadFileToString(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/media_audio/" + name);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::vector<uint8_t>(s->begin(), s->end()) : std::vector<uint8_t>{};
}

Status ErrorOf(std::span<const uint8_t> bytes, const AudioDecodeOptions& o = {}) {
  auto r = DecodeAudio(bytes, o);
  if (r.ok()) return OkStatus();
  EXPECT_THAT(r.status().message(), StartsWith("audio: "));
  EXPECT_EQ(r.status().message().find('\n'), std::string::npos) << r.status().message();
  return r.status();
}

std::vector<float> Sine(int rate, int channels, double seconds) {  // [frames, channels]
  const auto frames = static_cast<int64_t>(std::llround(rate * seconds));
  std::vector<float> x(static_cast<size_t>(frames * channels));
  for (int64_t f = 0; f < frames; ++f) {
    for (int c = 0; c < channels; ++c) x[f * channels + c] = 0.4f * std::sin(0.05f * (c + 1) * f);
  }
  return x;
}

TEST(DecodeAudioTest, EveryContainer) {
  struct Want {
    const char* name;
    int rate, channels;
    int64_t frames;  // librosa's count (tests/golden/media_audio/expected.json)
    const char* format;
  };
  for (const Want& w : {Want{"s16_16k_mono.wav", 16000, 1, 9760, "WAV"}, Want{"s16_44k_stereo.wav", 44100, 2, 8820, "WAV"},
                        Want{"u8_22k_mono.wav", 22050, 1, 6615, "WAV"}, Want{"f32_48k_mono.wav", 48000, 1, 9600, "WAV"},
                        Want{"s24_8k_mono.wav", 8000, 1, 2400, "WAV"}, Want{"s32_24k_mono.wav", 24000, 1, 4800, "WAV"},
                        Want{"s16_11k_3ch.wav", 11025, 3, 2756, "WAV"}, Want{"flac_44k_stereo.flac", 44100, 2, 11025, "FLAC"},
                        Want{"vorbis_22k_mono.ogg", 22050, 1, 6615, "OGG"}, Want{"opus_48k_mono.opus", 48000, 1, 12000, "OGG"},
                        Want{"mp3_44k_mono.mp3", 44100, 1, 13230, "MPEG"}, Want{"mp3_22k_bare.mp3", 22050, 1, 8064, "MPEG"}}) {
    SCOPED_TRACE(w.name);
    auto r = DecodeAudio(Clip(w.name));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->sample_rate, w.rate);
    EXPECT_EQ(r->channels, w.channels);
    EXPECT_EQ(static_cast<int64_t>(r->samples.size()), w.frames);
    EXPECT_EQ(r->total_frames, w.frames);
    EXPECT_THAT(r->format, HasSubstr(w.format));
    float peak = 0;
    for (float x : r->samples) peak = std::max(peak, std::abs(x));
    EXPECT_GT(peak, 0.1f);
    EXPECT_LT(peak, 1.0f);
  }
}

TEST(DecodeAudioTest, ChannelsAreMixedByTheirMean) {
  const std::vector<float> x = Sine(8000, 3, 0.1);
  auto r = DecodeAudio(MakeWav({8000, 3}, x));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->samples.size(), x.size() / 3);
  auto q = [](float v) { return std::round(v * 32767.0f) / 32768.0f; };  // the 16-bit value read back
  for (size_t f = 0; f < r->samples.size(); ++f) {
    const float sum = q(x[3 * f]) + q(x[3 * f + 1]) + q(x[3 * f + 2]);
    EXPECT_EQ(r->samples[f], static_cast<float>(static_cast<double>(sum) / 3)) << f;
  }
}

TEST(DecodeAudioTest, KeepsOnlyTheFirstSecondsButReportsTheWholeLength) {
  const std::vector<float> x = Sine(8000, 2, 5.0);
  AudioDecodeOptions o;
  o.keep_seconds = 1.5;
  auto part = DecodeAudio(MakeWav({8000, 2}, x), o);
  o.keep_seconds = 0;
  auto all = DecodeAudio(MakeWav({8000, 2}, x), o);
  ASSERT_TRUE(part.ok() && all.ok());
  EXPECT_EQ(part->samples.size(), 12000u);
  EXPECT_EQ(part->total_frames, 40000);
  EXPECT_DOUBLE_EQ(part->duration_s(), 5.0);
  ASSERT_EQ(all->samples.size(), 40000u);
  EXPECT_TRUE(std::equal(part->samples.begin(), part->samples.end(), all->samples.begin()));
}

TEST(DecodeAudioTest, LengthOfAStreamWithoutXingHeaderIsEstimated) {
  // The bare MP3 announces neither its container nor its length: libsndfile estimates the
  // length from the file size, which is what a partial decode reports (8102 frames, 8064 real).
  AudioDecodeOptions o;
  o.keep_seconds = 0.1;
  auto r = DecodeAudio(Clip("mp3_22k_bare.mp3"), o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->samples.size(), 2205u);
  EXPECT_NEAR(static_cast<double>(r->total_frames), 8064.0, 8064 * 0.01);
}

TEST(DecodeAudioTest, RefusesEmptyGarbageAndCutFiles) {
  EXPECT_THAT(ErrorOf({}).message(), HasSubstr("empty"));
  const std::vector<uint8_t> garbage(1000, 0x5a);
  EXPECT_EQ(ErrorOf(garbage).code(), StatusCode::kInvalidArgument);
  for (const char* name : {"s16_16k_mono.wav", "flac_44k_stereo.flac", "vorbis_22k_mono.ogg", "opus_48k_mono.opus"}) {
    SCOPED_TRACE(name);
    std::vector<uint8_t> bytes = Clip(name);
    bytes.resize(20);  // inside the header
    EXPECT_EQ(ErrorOf(bytes).code(), StatusCode::kInvalidArgument);
  }
}

TEST(DecodeAudioTest, DamagedDataIsRefusedOrDecodedWithinBounds) {
  // Corruption libsndfile notices is an error; what it cannot notice still decodes to at most
  // the announced length with finite samples.
  for (const char* name : {"flac_44k_stereo.flac", "vorbis_22k_mono.ogg", "opus_48k_mono.opus", "mp3_44k_mono.mp3"}) {
    SCOPED_TRACE(name);
    std::vector<uint8_t> bytes = Clip(name);
    for (size_t i = bytes.size() / 2; i < bytes.size(); i += 7) bytes[i] ^= 0xa5;
    auto r = DecodeAudio(bytes);
    if (!r.ok()) {
      EXPECT_THAT(r.status().message(), StartsWith("audio: "));
      continue;
    }
    for (float x : r->samples) ASSERT_TRUE(std::isfinite(x));
    bytes.resize(bytes.size() / 2);
    auto cut = DecodeAudio(bytes);
    if (cut.ok()) {
      EXPECT_LE(cut->samples.size(), r->samples.size() + 4096);
    }
  }
}

TEST(DecodeAudioTest, RefusesBadHeaders) {
  std::vector<uint8_t> wav = MakeWav({8000, 1}, Sine(8000, 1, 0.01));
  std::vector<uint8_t> no_rate = wav;
  for (int i = 24; i < 28; ++i) no_rate[i] = 0;  // fmt sample rate
  EXPECT_EQ(ErrorOf(no_rate).code(), StatusCode::kInvalidArgument);
  std::vector<uint8_t> no_channels = wav;
  no_channels[22] = no_channels[23] = 0;
  EXPECT_EQ(ErrorOf(no_channels).code(), StatusCode::kInvalidArgument);
  const std::vector<uint8_t> many = MakeWav({8000, 65}, Sine(8000, 65, 0.01));
  EXPECT_THAT(ErrorOf(many).message(), HasSubstr("65 channels"));
  AudioDecodeOptions low;
  low.max_sample_rate = 4000;
  EXPECT_THAT(ErrorOf(wav, low).message(), HasSubstr("sample rate 8000"));
}

TEST(DecodeAudioTest, Limits) {
  const std::vector<uint8_t> wav = MakeWav({8000, 1}, Sine(8000, 1, 2.0));
  AudioDecodeOptions o;
  o.max_seconds = 1.0;
  EXPECT_EQ(ErrorOf(wav, o).code(), StatusCode::kResourceExhausted);
  o = {};
  o.max_bytes = 100;
  EXPECT_EQ(ErrorOf(wav, o).code(), StatusCode::kResourceExhausted);
  o = {};
  o.cancelled = [] { return true; };
  EXPECT_EQ(ErrorOf(wav, o).code(), StatusCode::kCancelled);
  o = {};
  o.max_decode_seconds = -1;
  EXPECT_EQ(ErrorOf(wav, o).code(), StatusCode::kDeadlineExceeded);
  // A stream without a length in its header is bounded while reading.
  o = {};
  o.max_seconds = 0.2;
  EXPECT_EQ(ErrorOf(Clip("mp3_22k_bare.mp3"), o).code(), StatusCode::kResourceExhausted);
}

}  // namespace
}  // namespace gemmad::mm
