// VisionTower: the Gemma 4 vision encoder and its projector into the text model's embedding space
// (multimodal.md §3): patch embedding with learned x/y tables, L bidirectional encoder layers (q/k
// RMSNorm with weight, v RMSNorm without, 2-D RoPE, attention scale 1, clippable linears, GeGLU
// MLP), 3×3 average pooling × sqrt(Dv), optional standardize, weightless RMSNorm and the
// projection. One image (or video frame) at a time over its real patches only (no padding rows).
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
#include "model/gemma4/vision_config.h"
#include "model/gemma4/vision_weights.h"
#include "model/weight_source.h"

namespace gemmad::model::gemma4 {

// The largest soft-token count Encode accepts (the largest image budget, multimodal.md §2.2).
inline constexpr int64_t kMaxVisionSoftTokens = 1120;

// Intermediate results of one Encode (host copies), as the reference's forward hooks see them.
struct VisionTrace {
  std::vector<float> patch_embeddings;         // [P, Dv]
  std::vector<std::vector<float>> layers;      // L × [P, Dv], each encoder layer's output
  std::vector<float> pooled;                   // [N, Dv] pooled, × sqrt(Dv)
  std::vector<float> standardized;             // [N, Dv] (= pooled without standardize)
};

class VisionTower {
 public:
  // Binds the tower's weights from `source` (LoadVisionWeights: errors name the tensor). The
  // source is kept alive: f32 weights are views of its memory.
  static Result<std::unique_ptr<VisionTower>> Load(std::shared_ptr<const WeightSource> source,
                                                   const VisionConfig& config, int64_t text_hidden);

  const VisionConfig& config() const { return config_; }
  int64_t text_hidden() const { return text_hidden_; }
  // Soft tokens of a grid_h × grid_w patch grid: (grid_h / k) · (grid_w / k).
  int64_t NumSoftTokens(int64_t grid_h, int64_t grid_w) const;

  // Encodes one image of grid_h × grid_w patches. pixels: [P, 3·p²] in [0, 1], patch rows in any
  // order, each (row, col, channel) with channel fastest; positions: [P, 2] (x, y) = (column, row)
  // of each patch, covering the grid exactly once; out: [N, Dt] soft-token embeddings, N =
  // NumSoftTokens, row-major over the (grid_h / k) × (grid_w / k) block grid. Bad input (sizes,
  // a grid not divisible by k, positions outside the grid or the position table, a repeated cell,
  // more than kMaxVisionSoftTokens) is InvalidArgument before any work. `trace` (optional)
  // receives the intermediate results.
  Status Encode(const kernels::ExecContext& ctx, int64_t grid_h, int64_t grid_w, std::span<const float> pixels,
                std::span<const int32_t> positions, std::span<float> out, VisionTrace* trace = nullptr) const;

 private:
  VisionTower() = default;

  std::shared_ptr<const WeightSource> source_;
  VisionConfig config_;
  int64_t text_hidden_ = 0;
  VisionWeights weights_;
  std::vector<float> rope_inv_freq_;  // [head_dim / 4], shared by both halves
};

}  // namespace gemmad::model::gemma4
