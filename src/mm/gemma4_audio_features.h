// ExtractGemma4AudioFeatures: one clip (mono float32 at 16 kHz, already truncated to 30 s) to the
// log-mel frames of Hugging Face's Gemma4AudioFeatureExtractor (multimodal.md §4.1, transformers
// 5.25.0 feature_extraction_gemma4.py), keeping only the valid frames:
//   prepend 160 zeros; frame f reads samples [160·f, 160·f + 320) of that (the 321-sample window's
//   last sample dropped), F = N >= 161 ? (N − 161) / 160 + 1 : 0 frames for N samples;
//   seg = frame · hann (periodic Hann(320), both float32, the product rounded to float32);
//   |rfft(seg zero-padded to 512)| (257 bins), · FB (HTK mel, 0–8000 Hz, no norm, [257, mels]),
//   ln(mel + 0.001), cast to float32.
// HF's rfft runs in float32 (numpy 2 keeps float32 in np.fft); here it runs in double (FFTW), which
// is the more exact of the two: the gap is the rounding noise of HF's float32 FFT, largest on
// bins whose mel energy sits near the 0.001 floor (tests/media_audio states the tolerance).
// The window, filter bank and FFT plan are built once per mel count; calls are thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/result.h"
#include "mm/audio_input.h"

namespace gemmad::mm {

// F_valid of a clip of `num_samples` 16 kHz samples.
int64_t Gemma4AudioFrameCount(int64_t num_samples);

// The HTK mel filter bank HF builds (mel_filter_bank(257, num_mels, 0, 8000, 16000, None, "htk")):
// [257, num_mels] row-major, float64.
std::vector<double> Gemma4MelFilterBank(int64_t num_mels);

// samples: [N] → features [Gemma4AudioFrameCount(N), num_mels]. N may be < 161 (no frames).
// Errors: kInvalidArgument for num_mels outside 1..1024.
Result<std::shared_ptr<const AudioFeatures>> ExtractGemma4AudioFeatures(std::span<const float> samples,
                                                                       int64_t num_mels);

}  // namespace gemmad::mm
