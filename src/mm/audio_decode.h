// DecodeAudio: an audio file (bytes in memory) to float32 mono samples at the file's own rate,
// the way vLLM loads audio (librosa.load(sr=None, mono=True) → soundfile → libsndfile): libsndfile
// reads the container it sniffs from the bytes (WAV with 8/16/24/32-bit integer or float data,
// FLAC, OGG/Vorbis, OGG/Opus, MP3, and the other formats libsndfile knows) as floats (integer
// data scaled by 1/2^(bits-1)), and the channels are mixed by their mean (float32 sum in channel
// order, divided in double as numpy's mean does).
//
// Only the first `keep_seconds` are kept (Gemma 4 reads at most 30 s; the margin keeps the
// resampled first 30 s identical); the whole stream's frame count is still reported (the
// header's count, or counted by reading on when the header has none).
//
// Errors (one line, starting "audio: "): kInvalidArgument for empty input, an unknown format,
// corrupt or truncated data libsndfile reports, no channels or sample rate, too many channels or
// too high a rate, NaN or infinite samples (float WAV data); kResourceExhausted over max_bytes or max_seconds (checked on the header's
// count before anything is allocated, and while reading, since MP3/OGG counts may be absent or
// wrong); kDeadlineExceeded past max_decode_seconds; kCancelled when `cancelled` says so (both
// checked between read chunks).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "base/result.h"

namespace gemmad::mm {

struct AudioDecodeOptions {
  int64_t max_bytes = int64_t{64} << 20;  // the encoded file
  double max_seconds = 3600.0;            // the whole stream's duration
  double keep_seconds = 31.0;             // samples kept from the start; <= 0 keeps all
  int max_channels = 64;
  int max_sample_rate = 768000;
  double max_decode_seconds = 30.0;  // wall-clock time for the whole call
  std::function<bool()> cancelled;   // checked between read chunks (may be empty)
};

struct DecodedAudio {
  std::vector<float> samples;  // [kept frames] mono, the channel mean
  int sample_rate = 0;         // Hz, the file's own
  int channels = 0;            // in the file (mixed down in `samples`)
  int64_t total_frames = 0;    // frames in the whole stream (>= samples.size())
  std::string format;          // libsndfile's name of the container, e.g. "WAV (Microsoft)"

  double duration_s() const { return sample_rate > 0 ? static_cast<double>(total_frames) / sample_rate : 0.0; }
};

Result<DecodedAudio> DecodeAudio(std::span<const uint8_t> bytes, const AudioDecodeOptions& options = {});

}  // namespace gemmad::mm
