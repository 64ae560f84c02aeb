// ExtractGemma4AudioFeatures (see gemma4_audio_features.h).
#include "mm/gemma4_audio_features.h"

#include <fftw3.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <numbers>

namespace gemmad::mm {
namespace {

constexpr int64_t kFrameLength = 320;  // 20 ms window (the unfolded 321st sample is dropped)
constexpr int64_t kHop = 160;          // 10 ms
constexpr int64_t kFftLength = 512;
constexpr int64_t kBins = kFftLength / 2 + 1;  // 257
constexpr double kMelFloor = 0.001;
constexpr double kMaxFrequency = 8000.0;

double HzToMel(double hz) { return 2595.0 * std::log10(1.0 + hz / 700.0); }
double MelToHz(double mel) { return 700.0 * (std::pow(10.0, mel / 2595.0) - 1.0); }

// np.linspace(start, stop, num)[i]: i · step + start, the last one exactly stop.
double Linspace(double start, double stop, int64_t num, int64_t i) {
  if (i == num - 1) return stop;
  return static_cast<double>(i) * ((stop - start) / static_cast<double>(num - 1)) + start;
}

// What one mel count needs, built once: the window and the filter bank's non-zero runs.
struct Tables {
  std::vector<float> window;  // [320] periodic Hann as np.hanning(321)[:-1] in float32
  std::vector<double> bank;   // [257, mels]
  std::vector<int64_t> first, last;  // [mels] the bins k in [first, last) where bank[k][m] may be > 0
};

std::shared_ptr<const Tables> TablesFor(int64_t num_mels) {
  static std::mutex mutex;
  static std::map<int64_t, std::shared_ptr<const Tables>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& slot = cache[num_mels];
  if (slot) return slot;
  auto t = std::make_shared<Tables>();
  t->window.resize(kFrameLength);
  constexpr int64_t m = kFrameLength + 1;  // np.hanning(M): n = 1 - M, 3 - M, ..., M - 1
  for (int64_t i = 0; i < kFrameLength; ++i) {
    const double n = static_cast<double>(1 - m + 2 * i);
    t->window[i] = static_cast<float>(0.5 + 0.5 * std::cos(std::numbers::pi * n / static_cast<double>(m - 1)));
  }
  t->bank = Gemma4MelFilterBank(num_mels);
  t->first.assign(num_mels, kBins);
  t->last.assign(num_mels, 0);
  for (int64_t k = 0; k < kBins; ++k) {
    for (int64_t j = 0; j < num_mels; ++j) {
      if (t->bank[k * num_mels + j] != 0.0) {
        t->first[j] = std::min(t->first[j], k);
        t->last[j] = k + 1;
      }
    }
  }
  slot = std::move(t);
  return slot;
}

// One FFTW plan for every call (planning is not thread-safe; executing a plan is), made for
// unaligned arrays so that each call can bring its own.
fftw_plan RealFftPlan() {
  static const fftw_plan plan = [] {
    std::vector<double> in(kFftLength);
    std::vector<fftw_complex> out(kBins);
    return fftw_plan_dft_r2c_1d(static_cast<int>(kFftLength), in.data(), out.data(),
                                FFTW_ESTIMATE | FFTW_UNALIGNED);
  }();
  return plan;
}

}  // namespace

int64_t Gemma4AudioFrameCount(int64_t num_samples) {
  return num_samples >= kHop + 1 ? (num_samples - (kHop + 1)) / kHop + 1 : 0;
}

std::vector<double> Gemma4MelFilterBank(int64_t num_mels) {
  // HF audio_utils.mel_filter_bank(norm=None, mel_scale="htk") → _create_triangular_filter_bank.
  const int64_t edges = num_mels + 2;
  const double mel_min = HzToMel(0.0);
  const double mel_max = HzToMel(kMaxFrequency);
  std::vector<double> hz(edges);  // [mels + 2] filter edges
  for (int64_t i = 0; i < edges; ++i) hz[i] = MelToHz(Linspace(mel_min, mel_max, edges, i));
  std::vector<double> bank(kBins * num_mels);  // [257, mels]
  for (int64_t k = 0; k < kBins; ++k) {
    const double f = Linspace(0.0, kMaxFrequency, kBins, k);
    for (int64_t j = 0; j < num_mels; ++j) {
      const double down = -(hz[j] - f) / (hz[j + 1] - hz[j]);
      const double up = (hz[j + 2] - f) / (hz[j + 2] - hz[j + 1]);
      bank[k * num_mels + j] = std::max(0.0, std::min(down, up));
    }
  }
  return bank;
}

Result<std::shared_ptr<const AudioFeatures>> ExtractGemma4AudioFeatures(std::span<const float> samples,
                                                                       int64_t num_mels) {
  if (num_mels < 1 || num_mels > 1024) {
    return InvalidArgumentError(fmt::format("audio: {} mel bins (expected 1..1024)", num_mels));
  }
  const std::shared_ptr<const Tables> t = TablesFor(num_mels);
  const fftw_plan plan = RealFftPlan();
  auto out = std::make_shared<AudioFeatures>();
  out->num_mels = num_mels;
  out->num_frames = Gemma4AudioFrameCount(static_cast<int64_t>(samples.size()));
  out->features.resize(static_cast<size_t>(out->num_frames * num_mels));  // [frames, mels]
  std::vector<double> seg(kFftLength, 0.0);  // [512], the tail stays zero
  std::vector<fftw_complex> spec(kBins);     // [257]
  std::vector<double> mag(kBins);            // [257]
  for (int64_t f = 0; f < out->num_frames; ++f) {
    // Frame f covers padded samples [160 f, 160 f + 320); the first 160 padded samples are zeros.
    for (int64_t n = 0; n < kFrameLength; ++n) {
      const int64_t i = f * kHop + n - kHop;
      const float x = i >= 0 ? samples[i] : 0.0f;
      seg[n] = static_cast<double>(x * t->window[n]);  // float32 product, as in HF
    }
    fftw_execute_dft_r2c(plan, seg.data(), spec.data());
    for (int64_t k = 0; k < kBins; ++k) mag[k] = std::hypot(spec[k][0], spec[k][1]);
    float* row = out->features.data() + f * num_mels;
    for (int64_t j = 0; j < num_mels; ++j) {
      double mel = 0.0;
      for (int64_t k = t->first[j]; k < t->last[j]; ++k) mel += mag[k] * t->bank[k * num_mels + j];
      row[j] = static_cast<float>(std::log(mel + kMelFloor));
    }
  }
  return std::shared_ptr<const AudioFeatures>(std::move(out));
}

}  // namespace gemmad::mm
