// The reference backend's ops (kernels/backend.h): every ops.h contract implemented with the
// scalar reference kernels of this directory (double accumulation, one thread, the context's pool
// unused), for every dtype the CPU backend takes. Reached only through the reference backend's op
// table (reference/backend.cc); internal to kernels/.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "kernels/attention_sequence.h"
#include "kernels/context.h"
#include "tensor/tensor_view.h"

namespace gemmad::kernels::reference::op {

using tensor::TensorView;

// reference/ops_dense.cc
void Linear(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y);
void LinearMany(const ExecContext& ctx, const TensorView& x, std::span<const TensorView> ws,
                std::span<const TensorView> ys);
void QuantizeWeights(const ExecContext& ctx, const TensorView& src, const TensorView& dst);
void RmsNorm(const ExecContext& ctx, const TensorView& x, const TensorView& weight, const TensorView& out, float eps);
void RopeNeox(const ExecContext& ctx, const TensorView& x, const TensorView& positions, const TensorView& inv_freq);
void EmbeddingGather(const ExecContext& ctx, const TensorView& table, const TensorView& ids, float scale,
                     const TensorView& out);
// reference/ops_elementwise.cc
void GeluTanhMul(const ExecContext& ctx, const TensorView& gate, const TensorView& up, const TensorView& out);
void SoftCap(const ExecContext& ctx, const TensorView& x, float cap);
void Softmax(const ExecContext& ctx, const TensorView& x);
void Add(const ExecContext& ctx, const TensorView& a, const TensorView& b, const TensorView& out);
void Scale(const ExecContext& ctx, const TensorView& x, float s);
void ExpShifted(const ExecContext& ctx, const TensorView& x, float shift, float scale, const TensorView& out);
void Copy(const ExecContext& ctx, const TensorView& src, const TensorView& dst);
void GatherRows(const ExecContext& ctx, const TensorView& x, const TensorView& rows, const TensorView& out);
void SliceColumns(const ExecContext& ctx, const TensorView& x, int64_t begin, const TensorView& out);
// reference/ops_attention.cc
void KvCacheWrite(const ExecContext& ctx, const TensorView& k, const TensorView& v, const TensorView& slots,
                  const TensorView& k_cache, const TensorView& v_cache);
void PagedAttention(const ExecContext& ctx, const TensorView& q, const TensorView& k_cache, const TensorView& v_cache,
                    std::span<const AttentionSequence> sequences, int64_t window, float scale, const TensorView& out);
// reference/ops_moe.cc
void MoeRoute(const ExecContext& ctx, const TensorView& logits, const TensorView& per_expert_scale,
              const TensorView& weights, const TensorView& ids);
void MoeExperts(const ExecContext& ctx, const TensorView& x, const TensorView& gate_up, const TensorView& down,
                const TensorView& weights, const TensorView& ids, const TensorView& out);

// Every element of an f32, bf16, Q8_R or Q4_0 view as float (rank >= 2 block-quantized views are
// taken as rows of their last dim).
std::vector<float> Widen(const TensorView& v);

}  // namespace gemmad::kernels::reference::op
