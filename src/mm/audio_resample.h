// ResampleTo16k: mono float32 audio to 16 kHz exactly as vLLM's default resampler does it
// (librosa.resample(y, orig_sr, 16000) with res_type "soxr_hq" → python-soxr's soxr.resample):
// libsoxr at quality SOXR_HQ with float32 I/O, fed in chunks of floor(48000 · sr / 16000) input
// samples into an output of floor(n · 16000 / sr) + 1 samples and flushed (python-soxr's
// csoxr_divide_proc), then librosa's fix_length to ceil(n · (16000 / sr)) (zero-padded or
// trimmed). The same rate passes through unchanged. Not bit-identical with python-soxr's bundled
// libsoxr build in general (SIMD paths differ); see tests/media_audio for the measured gap.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/result.h"

namespace gemmad::mm {

inline constexpr int kAudioSampleRate = 16000;  // what the Gemma 4 feature extractor reads

// librosa's output length: ceil(n · (16000 / sr)) computed in double as numpy does.
int64_t Resampled16kLength(int64_t n, int sample_rate);

// samples: [n] mono at sample_rate Hz → [Resampled16kLength(n, sample_rate)] at 16 kHz.
// Errors: kInvalidArgument for a rate <= 0 or a result that overflows float32 (huge float
// samples), kInternal when libsoxr fails.
Result<std::vector<float>> ResampleTo16k(std::span<const float> samples, int sample_rate);

}  // namespace gemmad::mm
