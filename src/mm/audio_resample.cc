// ResampleTo16k (see audio_resample.h).
#include "mm/audio_resample.h"

#include <fmt/format.h>
#include <soxr.h>

#include <algorithm>
#include <cmath>
#include <memory>

namespace gemmad::mm {
namespace {

struct SoxrDeleter {
  void operator()(soxr* s) const { soxr_delete(s); }
};

}  // namespace

int64_t Resampled16kLength(int64_t n, int sample_rate) {
  const double ratio = static_cast<double>(kAudioSampleRate) / sample_rate;
  return static_cast<int64_t>(std::ceil(static_cast<double>(n) * ratio));
}

Result<std::vector<float>> ResampleTo16k(std::span<const float> samples, int sample_rate) {
  if (sample_rate <= 0) return InvalidArgumentError(fmt::format("audio: sample rate {} Hz", sample_rate));
  if (sample_rate == kAudioSampleRate) return std::vector<float>(samples.begin(), samples.end());
  const double in_rate = sample_rate;
  const double out_rate = kAudioSampleRate;
  soxr_error_t err = nullptr;
  const soxr_io_spec_t io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I);
  const soxr_quality_spec_t quality = soxr_quality_spec(SOXR_HQ, 0);
  std::unique_ptr<soxr, SoxrDeleter> rs(soxr_create(in_rate, out_rate, 1, &err, &io, &quality, nullptr));
  if (err != nullptr || rs == nullptr) return InternalError(fmt::format("audio: libsoxr: {}", err ? err : "create failed"));

  // python-soxr's csoxr_divide_proc: the same capacity, chunking and final flush.
  const size_t ilen = samples.size();
  const auto olen = static_cast<size_t>(static_cast<double>(ilen) * out_rate / in_rate + 1);
  const auto chunk_len = static_cast<size_t>(48000 * in_rate / out_rate);
  std::vector<float> y(olen, 0.0f);  // [olen]
  size_t out_pos = 0;
  size_t odone = 0;
  for (size_t idx = 0; idx < ilen && err == nullptr; idx += chunk_len) {
    err = soxr_process(rs.get(), samples.data() + idx, std::min(chunk_len, ilen - idx), nullptr, y.data() + out_pos,
                       olen - out_pos, &odone);
    out_pos += odone;
  }
  if (err == nullptr) {
    err = soxr_process(rs.get(), nullptr, 0, nullptr, y.data() + out_pos, olen - out_pos, &odone);
    out_pos += odone;
  }
  if (err != nullptr) return InternalError(fmt::format("audio: libsoxr: {}", err));
  y.resize(out_pos);
  for (float v : y) {  // float32 overflow of samples far outside [-1, 1] (float WAV data)
    if (!std::isfinite(v)) return InvalidArgumentError("audio: the resampled signal overflows (samples far out of range)");
  }
  // librosa's fix_length: zero-pad or trim to ceil(n · ratio).
  y.resize(static_cast<size_t>(Resampled16kLength(static_cast<int64_t>(ilen), sample_rate)), 0.0f);
  return y;
}

}  // namespace gemmad::mm
