// VisionTower: loading and the per-image forward pass (the blocks live in vision_layers.cc and
// vision_pooler.cc).
#include "model/gemma4/vision_tower.h"

#include <fmt/format.h>

#include "kernels/ops.h"
#include "model/gemma4/rope_table.h"
#include "model/gemma4/view_helpers.h"
#include "model/gemma4/vision_blocks.h"

namespace gemmad::model::gemma4 {
namespace {

using tensor::DType;
using tensor::TensorView;

}  // namespace

Result<std::unique_ptr<VisionTower>> VisionTower::Load(std::shared_ptr<const WeightSource> source,
                                                       const VisionConfig& config, int64_t text_hidden) {
  if (source == nullptr) return InvalidArgumentError("vision tower: no weight source");
  std::unique_ptr<VisionTower> t(new VisionTower());
  GEMMAD_ASSIGN_OR_RETURN(t->weights_, LoadVisionWeights(*source, config, text_hidden));
  // The 2-D RoPE rotates each half of a head (dh/2 lanes) as a NeoX RoPE of its own:
  // inv_freq[t] = θ^(−2t / (dh/2)) for t < dh/4, in fp32 as the reference computes it.
  GEMMAD_ASSIGN_OR_RETURN(t->rope_inv_freq_, RopeInvFreq({"default", config.rope_theta, 1.0, 1.0}, config.head_dim / 2));
  t->source_ = std::move(source);
  t->config_ = config;
  t->text_hidden_ = text_hidden;
  return t;
}

int64_t VisionTower::NumSoftTokens(int64_t grid_h, int64_t grid_w) const {
  const int64_t k = config_.pooling_kernel_size;
  return (grid_h / k) * (grid_w / k);
}

Status VisionTower::Encode(const kernels::ExecContext& ctx, int64_t grid_h, int64_t grid_w,
                           std::span<const float> pixels, std::span<const int32_t> positions, std::span<float> out,
                           VisionTrace* trace) const {
  GEMMAD_ASSIGN_OR_RETURN(vision::ImagePlan plan, vision::PlanImage(config_, text_hidden_, grid_h, grid_w, pixels.size(),
                                                                    positions, out.size()));
  const int64_t P = plan.num_patches, N = plan.num_tokens, dv = config_.hidden_size;
  vision::Buffers b;
  b.Bind(kernels::ScratchAllocatorOf(ctx));
  const vision::PlanViews pv = vision::UploadPlan(ctx, plan, b);
  const int64_t patch_dim = 3 * config_.patch_size * config_.patch_size;
  const TensorView px = b.pixels.View({P, patch_dim});
  kernels::Copy(ctx, HostView(pixels.data(), {P, patch_dim}), px);
  const TensorView inv_freq = HostView(rope_inv_freq_.data(), {static_cast<int64_t>(rope_inv_freq_.size())});

  const TensorView h = b.h.View({P, dv});
  vision::PatchEmbed(ctx, weights_, pv, px, b, h);
  if (trace != nullptr) {
    trace->patch_embeddings = ToHost(ctx, h);
    trace->layers.clear();
  }
  for (const VisionLayerWeights& lw : weights_.layers) {
    vision::EncoderLayer(ctx, config_, lw, inv_freq, pv, b, h);
    if (trace != nullptr) trace->layers.push_back(ToHost(ctx, h));
  }
  const TensorView pooled = b.pooled.View({N, dv});
  vision::Pool(ctx, config_, pv, h, b, pooled);
  if (trace != nullptr) trace->pooled = ToHost(ctx, pooled);
  if (config_.standardize) vision::Standardize(ctx, weights_, pv, b, pooled);
  if (trace != nullptr) trace->standardized = ToHost(ctx, pooled);
  const TensorView proj = b.proj.View({N, text_hidden_});
  vision::Project(ctx, config_, weights_, pooled, b, proj);
  kernels::Copy(ctx, proj, HostView(out.data(), {N, text_hidden_}));
  return OkStatus();
}

}  // namespace gemmad::model::gemma4
