// Whole-op contract checks that both backends run (ops.h is the contract): each validates its
// op's views and returns the sizes an implementation needs. Internal to kernels/.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "kernels/view_checks.h"

namespace gemmad::kernels::internal {

// GatherRows' contract, checked; what an implementation needs.
struct RowGather {
  const int64_t* rows;
  int64_t num_rows;
  int64_t row_bytes;
};
inline RowGather CheckGatherRows(const tensor::TensorView& x, const tensor::TensorView& rows,
                                 const tensor::TensorView& out) {
  CheckCopyable(x, out, "GatherRows");
  GEMMAD_CHECK(rows.dtype == tensor::DType::kI64 && (rows.data != nullptr || rows.NumElements() == 0),
               "GatherRows rows: dtype {} (want I64)", tensor::DTypeName(rows.dtype));
  CheckRank(x, 2, "GatherRows x");
  CheckRank(out, 2, "GatherRows out");
  const int64_t n = x.shape[0], r = rows.NumElements();
  GEMMAD_CHECK(out.shape[0] == r && out.shape[1] == x.shape[1], "GatherRows: x {} rows {} out {}", x.shape.ToString(),
               rows.shape.ToString(), out.shape.ToString());
  const int64_t* p = rows.As<const int64_t>();
  for (int64_t i = 0; i < r; ++i) {
    GEMMAD_CHECK(p[i] >= 0 && p[i] < n, "GatherRows: row {} of {}", p[i], n);
    GEMMAD_CHECK(x.data != out.data || (p[i] >= i && (i == 0 || p[i] > p[i - 1])),
                 "GatherRows: in place, row {} moves to {} (want ascending rows, none moved up)", p[i], i);
  }
  return {p, r, static_cast<int64_t>(tensor::DTypeSize(x.dtype)) * x.shape[1]};
}

// Clamp's contract, checked, and the one element rule both backends apply (torch.clamp: a NaN
// input stays NaN).
inline void CheckClamp(const tensor::TensorView& x, float lo, float hi, const tensor::TensorView& out) {
  CheckDType(x, tensor::DType::kF32, "Clamp x");
  CheckDType(out, tensor::DType::kF32, "Clamp out");
  GEMMAD_CHECK(x.NumElements() == out.NumElements(), "Clamp: {} vs {}", x.shape.ToString(), out.shape.ToString());
  GEMMAD_CHECK(lo <= hi, "Clamp: bounds [{}, {}]", lo, hi);
}
inline float ClampOne(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

// DenseAttention's contract, checked; the sizes an implementation needs.
struct DenseAttentionShape {
  int64_t n, heads, d, m, kv_heads;
};
inline DenseAttentionShape CheckDenseAttention(const tensor::TensorView& q, const tensor::TensorView& k,
                                               const tensor::TensorView& v, float scale,
                                               const tensor::TensorView& out) {
  for (const auto* t : {&q, &k, &v, &out}) {
    CheckDType(*t, tensor::DType::kF32, "DenseAttention");
    CheckRank(*t, 3, "DenseAttention");
  }
  const DenseAttentionShape s{q.shape[0], q.shape[1], q.shape[2], k.shape[0], k.shape[1]};
  GEMMAD_CHECK(k.shape == v.shape && out.shape == q.shape && k.shape[2] == s.d && s.m >= 1 && s.kv_heads >= 1 &&
                   s.heads % s.kv_heads == 0,
               "DenseAttention: q {} k {} v {} out {}", q.shape.ToString(), k.shape.ToString(), v.shape.ToString(),
               out.shape.ToString());
  GEMMAD_CHECK(out.data != q.data && out.data != k.data && out.data != v.data, "DenseAttention: out aliases an input");
  GEMMAD_CHECK(scale > 0.0f && scale < INFINITY, "DenseAttention: scale {}", scale);
  return s;
}

// SliceColumns' contract, checked; what an implementation needs.
struct ColumnSlice {
  int64_t num_rows;
  int64_t elem_bytes;
  int64_t in_row_bytes;
  int64_t out_row_bytes;
};
inline ColumnSlice CheckSliceColumns(const tensor::TensorView& x, int64_t begin, const tensor::TensorView& out) {
  CheckCopyable(x, out, "SliceColumns");
  CheckRank(x, 2, "SliceColumns x");
  CheckRank(out, 2, "SliceColumns out");
  GEMMAD_CHECK(out.shape[0] == x.shape[0] && begin >= 0 && begin + out.shape[1] <= x.shape[1] && x.data != out.data,
               "SliceColumns: x {} columns [{}, {}) out {}", x.shape.ToString(), begin, begin + out.shape[1],
               out.shape.ToString());
  const auto elem = static_cast<int64_t>(tensor::DTypeSize(x.dtype));
  return {x.shape[0], elem, elem * x.shape[1], elem * out.shape[1]};
}

// QuantizeWeights' contract: rows of `in` elements.
struct QuantizeShape {
  int64_t rows;
  int64_t in;
};
inline QuantizeShape CheckQuantizeWeights(const tensor::TensorView& src, const tensor::TensorView& dst) {
  CheckWeightDType(src, "QuantizeWeights src");
  CheckMatrixDType(dst, "QuantizeWeights dst");
  GEMMAD_CHECK((dst.dtype == tensor::DType::kQ8R || dst.dtype == tensor::DType::kQ4_0 ||
                (dst.dtype == tensor::DType::kQ4_0x16 && src.shape.rank == 2 && src.shape[0] % 16 == 0)) &&
                   src.shape == dst.shape && src.shape.rank >= 2,
               "QuantizeWeights: src {} {} -> dst {} {}", tensor::DTypeName(src.dtype), src.shape.ToString(),
               tensor::DTypeName(dst.dtype), dst.shape.ToString());
  const int64_t in = src.shape[src.shape.rank - 1];
  return {src.NumElements() / in, in};
}

// MoeRoute's contract: n tokens over num_experts, top_k kept.
struct RouteShape {
  int64_t n;
  int64_t num_experts;
  int64_t top_k;
};
inline RouteShape CheckMoeRoute(const tensor::TensorView& logits, const tensor::TensorView& per_expert_scale,
                                const tensor::TensorView& weights, const tensor::TensorView& ids) {
  CheckDType(logits, tensor::DType::kF32, "MoeRoute logits");
  CheckWeightDType(per_expert_scale, "MoeRoute per_expert_scale");
  CheckDType(weights, tensor::DType::kF32, "MoeRoute weights");
  CheckDType(ids, tensor::DType::kI32, "MoeRoute ids");
  CheckRank(logits, 2, "MoeRoute logits");
  CheckRank(weights, 2, "MoeRoute weights");
  const int64_t n = logits.shape[0], num_experts = logits.shape[1], top_k = weights.shape[1];
  GEMMAD_CHECK(weights.shape[0] == n && ids.NumElements() == n * top_k && top_k >= 1 && top_k <= num_experts &&
                   per_expert_scale.NumElements() == num_experts,
               "MoeRoute: logits {} weights {} ids {} scale {}", logits.shape.ToString(), weights.shape.ToString(),
               ids.shape.ToString(), per_expert_scale.shape.ToString());
  return {n, num_experts, top_k};
}

// MoeExperts' contract: n tokens of `hidden`, experts of `inter`, top_k per token.
struct ExpertsShape {
  int64_t n;
  int64_t hidden;
  int64_t num_experts;
  int64_t inter;
  int64_t top_k;
};
inline ExpertsShape CheckMoeExperts(const tensor::TensorView& x, const tensor::TensorView& gate_up,
                                    const tensor::TensorView& down, const tensor::TensorView& weights,
                                    const tensor::TensorView& ids, const tensor::TensorView& out) {
  CheckDType(x, tensor::DType::kF32, "MoeExperts x");
  CheckDType(out, tensor::DType::kF32, "MoeExperts out");
  CheckDType(weights, tensor::DType::kF32, "MoeExperts weights");
  CheckDType(ids, tensor::DType::kI32, "MoeExperts ids");
  CheckMatrixDType(gate_up, "MoeExperts gate_up");
  CheckMatrixDType(down, "MoeExperts down");
  CheckRank(x, 2, "MoeExperts x");
  CheckRank(gate_up, 3, "MoeExperts gate_up");
  CheckRank(down, 3, "MoeExperts down");
  const int64_t n = x.shape[0], hidden = x.shape[1], num_experts = gate_up.shape[0];
  const int64_t inter = gate_up.shape[1] / 2, top_k = weights.NumElements() / std::max<int64_t>(n, 1);
  GEMMAD_CHECK(gate_up.shape[2] == hidden && gate_up.shape[1] == 2 * inter && down.shape[0] == num_experts &&
                   down.shape[1] == hidden && down.shape[2] == inter && out.shape == x.shape &&
                   ids.NumElements() == n * top_k && x.data != out.data,
               "MoeExperts: x {} gate_up {} down {} weights {} out {}", x.shape.ToString(),
               gate_up.shape.ToString(), down.shape.ToString(), weights.shape.ToString(), out.shape.ToString());
  return {n, hidden, num_experts, inter, top_k};
}

}  // namespace gemmad::kernels::internal
