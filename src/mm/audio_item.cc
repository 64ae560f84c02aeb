// PrepareAudio, PrepareAudioBytes, HashAudioFeatures (see audio_item.h).
#include "mm/audio_item.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "base/log.h"
#include "base/stopwatch.h"
#include "mm/audio_decode.h"
#include "mm/audio_resample.h"
#include "mm/content_hash.h"
#include "mm/gemma4_audio_features.h"

namespace gemmad::mm {
namespace {

// Seconds decoded beyond the kept 30 s: the resampler's filter reaches far less than this past
// the last kept output sample, so the resampled first 30 s equal those of the whole clip.
constexpr double kDecodeMarginSeconds = 1.0;

}  // namespace

ContentHash HashAudioFeatures(const AudioFeatures& f) {
  return HashFloatContent(fmt::format("{}:{}x{}:", ModalityName(Modality::kAudio), f.num_frames, f.num_mels),
                          f.features);
}

Result<PreparedAudio> PrepareAudioBytes(std::span<const uint8_t> bytes, std::string_view format,
                                        const AudioMediaOptions& o) {
  const Stopwatch clock;
  const double timeout_s = static_cast<double>(o.decode_timeout_ms) / 1000.0;
  AudioDecodeOptions d;
  d.max_bytes = static_cast<int64_t>(std::min<uint64_t>(o.source.max_bytes, INT64_MAX));
  d.keep_seconds = static_cast<double>(o.max_samples) / kAudioSampleRate + kDecodeMarginSeconds;
  d.max_decode_seconds = timeout_s;
  d.cancelled = o.source.cancelled;
  auto decoded = DecodeAudio(bytes, d);
  if (!decoded.ok()) {
    if (decoded.status().code() != StatusCode::kInvalidArgument || format.empty()) return decoded.status();
    return InvalidArgumentError(fmt::format("{} (sent as \"{}\")", decoded.status().message(), format));
  }
  GEMMAD_ASSIGN_OR_RETURN(std::vector<float> mono, ResampleTo16k(decoded->samples, decoded->sample_rate));
  if (clock.Seconds() > timeout_s) {
    return DeadlineExceededError(fmt::format("audio: decoding and resampling took more than {} s", timeout_s));
  }
  PreparedAudio out;
  // The whole clip's length: the stream may be longer than what was decoded.
  out.source_samples = static_cast<int64_t>(mono.size());
  if (decoded->total_frames > static_cast<int64_t>(decoded->samples.size())) {
    out.source_samples = Resampled16kLength(decoded->total_frames, decoded->sample_rate);
  }
  if (out.source_samples > o.max_samples) {
    // HF's feature extractor truncates (max_length 480000); vLLM only warns.
    GEMMAD_LOG_WARNING("Audio duration exceeds max: {:f} > {:f} seconds",
                       static_cast<double>(out.source_samples) / kAudioSampleRate,
                       static_cast<double>(o.max_samples) / kAudioSampleRate);
    out.truncated = true;
    if (static_cast<int64_t>(mono.size()) > o.max_samples) mono.resize(static_cast<size_t>(o.max_samples));
  }
  GEMMAD_ASSIGN_OR_RETURN(out.features, ExtractGemma4AudioFeatures(mono, o.num_mels));
  if (out.features->num_frames == 0) {
    return InvalidArgumentError(fmt::format("audio: the audio holds no complete 20 ms frame ({:.4f} s at 16 kHz)",
                                            static_cast<double>(mono.size()) / kAudioSampleRate));
  }
  out.hash = HashAudioFeatures(*out.features);
  return out;
}

Result<PreparedAudio> PrepareAudio(std::string_view url, const AudioMediaOptions& o) {
  GEMMAD_ASSIGN_OR_RETURN(MediaBytes bytes, LoadMedia(url, o.source));
  return PrepareAudioBytes(bytes.bytes, "", o);
}

}  // namespace gemmad::mm
