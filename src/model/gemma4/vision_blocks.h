// The vision tower's forward pass in pieces (internal to model/gemma4/vision_*.cc): the per-image
// plan (index arrays derived from the patch positions), the per-call activation buffers, and one
// function per block — patch embedding, clippable linears, encoder layer, pooling + standardize +
// projection. Shapes: P patches, N soft tokens, Dv hidden, H/Hkv heads of dh, I intermediate,
// Dt text hidden.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/result.h"
#include "kernels/context.h"
#include "model/gemma4/clipped_linear.h"
#include "model/gemma4/step_buffers.h"
#include "model/gemma4/vision_config.h"
#include "model/gemma4/vision_weights.h"

namespace gemmad::model::gemma4::vision {

// Host-side index arrays of one image, derived once from its positions.
struct ImagePlan {
  int64_t grid_h = 0, grid_w = 0, num_patches = 0, num_tokens = 0;  // P, N
  std::vector<int32_t> xs, ys;                 // [P] table rows of each patch
  std::vector<int32_t> rope_q, rope_kv;        // [P·2H], [P·2Hkv]: x, y of each half-head (2-D RoPE)
  std::vector<int64_t> pool_rows;              // [k², N]: patch of offset (dy, dx) in soft token s
};

// Checks the inputs of VisionTower::Encode (InvalidArgument naming the problem) and builds the plan.
Result<ImagePlan> PlanImage(const VisionConfig& c, int64_t text_hidden, int64_t grid_h, int64_t grid_w,
                            size_t num_pixels, std::span<const int32_t> positions, size_t out_size);

// Activations of one Encode, in the context's scratch allocator.
struct Buffers {
  Scratch pixels, h, normed, branch, clipped, q, k, v, attn, gate, up, pe, tmp, pooled, proj;
  Scratch xs, ys, rope_q, rope_kv, pool_rows, zeros;
  void Bind(kernels::Allocator& allocator);
};

// The plan's index arrays copied to the device: views into `b`.
struct PlanViews {
  tensor::TensorView xs, ys, rope_q, rope_kv, pool_rows, zeros;
};
PlanViews UploadPlan(const kernels::ExecContext& ctx, const ImagePlan& plan, Buffers& b);

// h [P, Dv] = pixels [P, 3p²] · input_projᵀ + pos_x[xs] + pos_y[ys].
void PatchEmbed(const kernels::ExecContext& ctx, const VisionWeights& w, const PlanViews& pv,
                const tensor::TensorView& pixels, Buffers& b, const tensor::TensorView& h);

// One encoder layer over h [P, Dv], in place.
void EncoderLayer(const kernels::ExecContext& ctx, const VisionConfig& c, const VisionLayerWeights& w,
                  const tensor::TensorView& inv_freq, const PlanViews& pv, Buffers& b, const tensor::TensorView& h);

// pooled [N, Dv] = Σ over each k×k block of h / k² · sqrt(Dv).
void Pool(const kernels::ExecContext& ctx, const VisionConfig& c, const PlanViews& pv, const tensor::TensorView& h,
          Buffers& b, const tensor::TensorView& pooled);
// pooled = (pooled − std_bias) ⊙ std_scale, in place.
void Standardize(const kernels::ExecContext& ctx, const VisionWeights& w, const PlanViews& pv, Buffers& b,
                 const tensor::TensorView& pooled);
// out [N, Dt] = RMSNorm_∅(pooled) · projectionᵀ.
void Project(const kernels::ExecContext& ctx, const VisionConfig& c, const VisionWeights& w,
             const tensor::TensorView& pooled, Buffers& b, const tensor::TensorView& out);

}  // namespace gemmad::model::gemma4::vision
