// AudioTower: the Gemma 4 audio encoder and its projector into the text model's embedding space
// (multimodal.md §4.2–§4.6): SSCP subsampling (two 3×3 stride-2 convs with LayerNorm and ReLU,
// input_proj), conformer blocks (macaron FFNs, chunked local attention with relative positions and
// a softcap, light conv with GLU and a causal depthwise conv), output_proj with bias, weightless
// RMSNorm and embed_audio's projection. One clip at a time over its valid frames only: with every
// frame valid the reference's masks reduce to range checks, so the output equals HF's valid rows.
// fp32 activations and accumulation; every computation runs through kernels/ops.h on the
// context's backend (activations in its scratch allocator's memory).
//
// Thread-safety: Encode is const and keeps no state between calls (its buffers are per call);
// concurrent calls need contexts with different thread pools.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "base/result.h"
#include "kernels/context.h"
#include "model/gemma4/audio_config.h"
#include "model/gemma4/audio_weights.h"
#include "model/weight_source.h"

namespace gemmad::model::gemma4 {

// The most feature frames Encode accepts: a 30 s clip (480000 samples, multimodal.md §4.1, §4.7).
inline constexpr int64_t kMaxAudioFrames = 2999;

// Intermediate results of one Encode (host copies), as the reference's forward hooks see them.
struct AudioTrace {
  std::vector<float> subsampled;           // [T, Da] SSCP output (after input_proj)
  std::vector<std::vector<float>> layers;  // L × [T, Da], each conformer block's output
  std::vector<float> output_proj;          // [T, Do] output_proj (with bias)
};

class AudioTower {
 public:
  // Binds the tower's weights from `source` (LoadAudioWeights: errors name the tensor). The
  // source is kept alive: f32 weights are views of its memory.
  static Result<std::unique_ptr<AudioTower>> Load(std::shared_ptr<const WeightSource> source,
                                                  const AudioConfig& config, int64_t text_hidden);

  const AudioConfig& config() const { return config_; }
  int64_t text_hidden() const { return text_hidden_; }
  // Soft tokens of F feature frames: ceil(F / 4) (two stride-2 convolutions).
  static int64_t NumSoftTokens(int64_t num_frames) { return (num_frames + 3) / 4; }

  // Encodes one clip. features: [F, M] log-mel frames (M = config().num_mels()), all valid;
  // out: [NumSoftTokens(F), Dt]. F = 0 writes nothing. Bad input (sizes, F negative or above
  // kMaxAudioFrames) is InvalidArgument before any work. `trace` (optional) receives the
  // intermediate results.
  Status Encode(const kernels::ExecContext& ctx, int64_t num_frames, std::span<const float> features,
                std::span<float> out, AudioTrace* trace = nullptr) const;

 private:
  AudioTower() = default;

  std::shared_ptr<const WeightSource> source_;
  AudioConfig config_;
  int64_t text_hidden_ = 0;
  AudioWeights weights_;
  std::vector<float> rel_pe_;  // [L, Da]: sin/cos of the relative positions W/2 … 0 (§4.5)
};

}  // namespace gemmad::model::gemma4
