// PrepareAudio / PrepareAudioBytes: an audio source of a request to what the engine needs,
// bounded at every step: the bytes (mm/media_source.h, or an upload), decoded (WAV, FLAC,
// OGG/Vorbis, Opus, MP3 with libsndfile), mixed to mono by the channel mean, resampled to
// 16 kHz as vLLM does it (librosa's soxr_hq: libsoxr "HQ", output length ceil(n·16000/sr)),
// truncated to 30 s as the Hugging Face feature extractor does, run through the Gemma 4 feature
// extractor (gemma4_audio_features.h), and a content hash of the features (the prefix cache's key).
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "base/result.h"
#include "mm/audio_input.h"
#include "mm/item.h"
#include "mm/media_source.h"

namespace gemmad::mm {

struct AudioMediaOptions {
  MediaSourceOptions source;       // fetch_timeout_ms: VLLM_AUDIO_FETCH_TIMEOUT (default 10 s)
  int64_t num_mels = 128;          // the feature extractor's feature_size (= the tower's first conv channels)
  int64_t max_samples = 480000;    // 30 s at 16 kHz: longer clips are truncated (with vLLM's warning)
  long decode_timeout_ms = 30000;  // decoding + resampling wall time
};

struct PreparedAudio {
  std::shared_ptr<const AudioFeatures> features;
  ContentHash hash;
  int64_t source_samples = 0;  // mono 16 kHz samples before truncation (duration = /16000)
  bool truncated = false;      // longer than max_samples
};

// A URL of an audio_url part (data:, file://, http(s)). Errors: those of LoadMedia, and
// kInvalidArgument naming the problem for undecodable, empty or too-short audio ("the audio
// holds no complete 20 ms frame").
Result<PreparedAudio> PrepareAudio(std::string_view url, const AudioMediaOptions& options);

// Bytes already in hand (an input_audio part's base64 payload, an uploaded file); `format` is a
// hint ("wav", "mp3", a file name's extension or ""), the container is sniffed from the bytes.
Result<PreparedAudio> PrepareAudioBytes(std::span<const uint8_t> bytes, std::string_view format,
                                        const AudioMediaOptions& options);

// The 128-bit content hash of extracted features (mel count, frame count and every value).
ContentHash HashAudioFeatures(const AudioFeatures& features);

}  // namespace gemmad::mm
