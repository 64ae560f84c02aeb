// Fuzz target for the audio path before the tower: DecodeAudio (libsndfile over memory: WAV,
// FLAC, OGG/Vorbis, Opus, MP3, ...), then ResampleTo16k and the Gemma 4 log-mel extractor. Any
// bytes must either be refused with a one-line "audio: ..." error (InvalidArgument, or
// ResourceExhausted/DeadlineExceeded for the limits) or decode to finite mono samples within the
// limits, identically on a second run, whose resampled signal (unless it overflows float32, an
// "audio: " error) has librosa's length and whose features are finite with the frame count of it.
// The limits are lowered (2 s kept, 60 s in all, a 2 s deadline) so the fuzzer explores.
// gemmad-fuzz-libs: gemmad_mm
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "base/check.h"
#include "mm/audio_decode.h"
#include "mm/audio_resample.h"
#include "mm/gemma4_audio_features.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gemmad::StatusCode;
  gemmad::mm::AudioDecodeOptions o;
  o.max_bytes = int64_t{1} << 20;
  o.max_seconds = 60.0;
  o.keep_seconds = 2.0;
  o.max_sample_rate = 192000;
  o.max_decode_seconds = 2.0;
  const std::span<const uint8_t> bytes(data, size);
  auto r = gemmad::mm::DecodeAudio(bytes, o);
  if (!r.ok()) {
    const gemmad::Status& s = r.status();
    GEMMAD_CHECK(s.code() == StatusCode::kInvalidArgument || s.code() == StatusCode::kResourceExhausted ||
                     s.code() == StatusCode::kDeadlineExceeded,
                 "unexpected error code: {}", s.ToString());
    GEMMAD_CHECK(s.message().rfind("audio: ", 0) == 0 && s.message().find('\n') == std::string::npos,
                 "bad message: {}", s.message());
    return 0;
  }
  GEMMAD_CHECK(r->sample_rate > 0 && r->sample_rate <= o.max_sample_rate, "rate {}", r->sample_rate);
  GEMMAD_CHECK(r->channels > 0 && r->channels <= o.max_channels, "channels {}", r->channels);
  GEMMAD_CHECK(static_cast<double>(r->samples.size()) <= std::ceil(o.keep_seconds * r->sample_rate), "kept too much");
  GEMMAD_CHECK(r->total_frames >= static_cast<int64_t>(r->samples.size()), "total below kept");
  for (float x : r->samples) GEMMAD_CHECK(std::isfinite(x), "non-finite sample");
  auto again = gemmad::mm::DecodeAudio(bytes, o);
  GEMMAD_CHECK(again.ok() && again->samples == r->samples, "decoding is not deterministic");
  auto y = gemmad::mm::ResampleTo16k(r->samples, r->sample_rate);
  if (!y.ok()) {  // only samples so large that the resampled float32 signal overflows
    GEMMAD_CHECK(y.status().code() == StatusCode::kInvalidArgument && y.status().message().rfind("audio: ", 0) == 0,
                 "resampling failed: {}", y.status().ToString());
    return 0;
  }
  GEMMAD_CHECK(static_cast<int64_t>(y->size()) ==
                   gemmad::mm::Resampled16kLength(static_cast<int64_t>(r->samples.size()), r->sample_rate),
               "resampled length");
  auto f = gemmad::mm::ExtractGemma4AudioFeatures(*y, 16);
  GEMMAD_CHECK(f.ok(), "features failed: {}", f.status().ToString());
  GEMMAD_CHECK((*f)->num_frames == gemmad::mm::Gemma4AudioFrameCount(static_cast<int64_t>(y->size())), "frames");
  for (float v : (*f)->features) GEMMAD_CHECK(std::isfinite(v), "non-finite feature");
  return 0;
}
