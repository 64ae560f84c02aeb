// MakeWav: a canonical 44-byte-header WAV file in memory, for tests that need audio of a given
// length, rate and channel count (or a deliberately broken header) without committing files.
// Header-only; only tests and fuzz corpora use it.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace gemmad::mm {

struct WavSpec {
  int sample_rate = 16000;
  int channels = 1;
};

// 16-bit PCM from [frames, channels] interleaved samples in [-1, 1] (rounded, clipped).
inline std::vector<uint8_t> MakeWav(const WavSpec& spec, std::span<const float> interleaved) {
  std::vector<uint8_t> out;
  auto u32 = [&](uint32_t v) {
    for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  auto u16 = [&](uint32_t v) {
    for (int i = 0; i < 2; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
  };
  const auto data_bytes = static_cast<uint32_t>(interleaved.size() * 2);
  const auto channels = static_cast<uint32_t>(spec.channels);
  const auto rate = static_cast<uint32_t>(spec.sample_rate);
  out.insert(out.end(), {'R', 'I', 'F', 'F'});
  u32(36 + data_bytes);
  out.insert(out.end(), {'W', 'A', 'V', 'E', 'f', 'm', 't', ' '});
  u32(16);
  u16(1);  // PCM
  u16(channels);
  u32(rate);
  u32(rate * channels * 2);
  u16(channels * 2);
  u16(16);
  out.insert(out.end(), {'d', 'a', 't', 'a'});
  u32(data_bytes);
  for (float x : interleaved) {
    const float c = x < -1.0f ? -1.0f : x > 1.0f ? 1.0f : x;
    const auto v = static_cast<int16_t>(c * 32767.0f + (c >= 0 ? 0.5f : -0.5f));
    u16(static_cast<uint16_t>(v));
  }
  return out;
}

}  // namespace gemmad::mm
