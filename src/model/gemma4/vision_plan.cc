// PlanImage / UploadPlan: the index arrays one image's forward pass reads, from its positions.
#include <fmt/format.h>

#include "kernels/ops.h"
#include "model/gemma4/vision_blocks.h"
#include "model/gemma4/view_helpers.h"
#include "model/gemma4/vision_tower.h"

namespace gemmad::model::gemma4::vision {
namespace {

using tensor::DType;
using tensor::TensorView;

// Copies a host array into a scratch view of the context's device.
template <typename T>
TensorView Upload(const kernels::ExecContext& ctx, const std::vector<T>& host, DType dtype, Scratch& s) {
  const auto n = static_cast<int64_t>(host.size());
  TensorView dev = s.View({n}, dtype);
  if (n > 0) kernels::Copy(ctx, HostView(host.data(), {n}, dtype), dev);
  return dev;
}

}  // namespace

Result<ImagePlan> PlanImage(const VisionConfig& c, int64_t text_hidden, int64_t grid_h, int64_t grid_w,
                            size_t num_pixels, std::span<const int32_t> positions, size_t out_size) {
  const int64_t k = c.pooling_kernel_size;
  if (grid_h <= 0 || grid_w <= 0 || grid_h % k != 0 || grid_w % k != 0) {
    return InvalidArgumentError(fmt::format("vision tower: a {}x{} patch grid (both sides must be positive multiples "
                                            "of the pooling kernel {})", grid_h, grid_w, k));
  }
  if (grid_h > c.position_embedding_size || grid_w > c.position_embedding_size) {
    return InvalidArgumentError(fmt::format("vision tower: a {}x{} patch grid exceeds the position table ({} entries)",
                                            grid_h, grid_w, c.position_embedding_size));
  }
  ImagePlan p;
  p.grid_h = grid_h;
  p.grid_w = grid_w;
  p.num_patches = grid_h * grid_w;
  p.num_tokens = (grid_h / k) * (grid_w / k);
  if (p.num_tokens > kMaxVisionSoftTokens) {
    return InvalidArgumentError(fmt::format("vision tower: {} soft tokens exceed the largest budget ({})", p.num_tokens,
                                            kMaxVisionSoftTokens));
  }
  const int64_t P = p.num_patches, N = p.num_tokens, patch_dim = 3 * c.patch_size * c.patch_size;
  if (num_pixels != static_cast<size_t>(P * patch_dim)) {
    return InvalidArgumentError(fmt::format("vision tower: {} pixel values for {} patches of {} (3·{}²)", num_pixels, P,
                                            patch_dim, c.patch_size));
  }
  if (positions.size() != static_cast<size_t>(2 * P)) {
    return InvalidArgumentError(fmt::format("vision tower: {} position values for {} patches (want 2 each)",
                                            positions.size(), P));
  }
  if (out_size != static_cast<size_t>(N * text_hidden)) {
    return InvalidArgumentError(fmt::format("vision tower: an output of {} floats for {} soft tokens of width {}",
                                            out_size, N, text_hidden));
  }
  const int64_t H = c.num_attention_heads, Hkv = c.num_key_value_heads, blocks_w = grid_w / k;
  p.xs.resize(static_cast<size_t>(P));
  p.ys.resize(static_cast<size_t>(P));
  p.pool_rows.assign(static_cast<size_t>(k * k * N), -1);
  for (int64_t n = 0; n < P; ++n) {
    const int32_t x = positions[2 * n], y = positions[2 * n + 1];
    if (x < 0 || x >= grid_w || y < 0 || y >= grid_h) {
      return InvalidArgumentError(fmt::format("vision tower: patch {} at (x {}, y {}) is outside the {}x{} grid", n, x,
                                              y, grid_h, grid_w));
    }
    const int64_t slot = x / k + blocks_w * (y / k), offset = (y % k) * k + x % k;
    int64_t& row = p.pool_rows[static_cast<size_t>(offset * N + slot)];
    if (row >= 0) {
      return InvalidArgumentError(fmt::format("vision tower: patches {} and {} both sit at (x {}, y {})", row, n, x, y));
    }
    row = n;
    p.xs[static_cast<size_t>(n)] = x;
    p.ys[static_cast<size_t>(n)] = y;
  }
  for (auto [heads, out] : {std::pair{H, &p.rope_q}, std::pair{Hkv, &p.rope_kv}}) {
    out->resize(static_cast<size_t>(P * heads * 2));
    for (int64_t n = 0; n < P; ++n) {
      for (int64_t h = 0; h < heads; ++h) {
        (*out)[static_cast<size_t>((n * heads + h) * 2)] = p.xs[static_cast<size_t>(n)];
        (*out)[static_cast<size_t>((n * heads + h) * 2 + 1)] = p.ys[static_cast<size_t>(n)];
      }
    }
  }
  return p;
}

void Buffers::Bind(kernels::Allocator& allocator) {
  for (Scratch* s : {&pixels, &h, &normed, &branch, &clipped, &q, &k, &v, &attn, &gate, &up, &pe, &tmp, &pooled, &proj,
                     &xs, &ys, &rope_q, &rope_kv, &pool_rows, &zeros}) {
    s->Bind(allocator);
  }
}

PlanViews UploadPlan(const kernels::ExecContext& ctx, const ImagePlan& plan, Buffers& b) {
  PlanViews v;
  v.xs = Upload(ctx, plan.xs, DType::kI32, b.xs);
  v.ys = Upload(ctx, plan.ys, DType::kI32, b.ys);
  v.rope_q = Upload(ctx, plan.rope_q, DType::kI32, b.rope_q);
  v.rope_kv = Upload(ctx, plan.rope_kv, DType::kI32, b.rope_kv);
  v.pool_rows = Upload(ctx, plan.pool_rows, DType::kI64, b.pool_rows);
  v.zeros = Upload(ctx, std::vector<int64_t>(static_cast<size_t>(plan.num_tokens), 0), DType::kI64, b.zeros);
  return v;
}

}  // namespace gemmad::model::gemma4::vision
