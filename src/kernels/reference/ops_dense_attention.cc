// Reference backend: dense (non-causal, unmasked) attention — reference::Attention with every
// query placed after the last key, so each query sees all of them.
#include <vector>

#include "kernels/op_contracts.h"
#include "kernels/reference/attention.h"
#include "kernels/reference/backend_ops.h"

namespace gemmad::kernels::reference::op {

void DenseAttention(const ExecContext&, const TensorView& q, const TensorView& k, const TensorView& v, float scale,
                    const TensorView& out) {
  const internal::DenseAttentionShape s = internal::CheckDenseAttention(q, k, v, scale, out);
  const std::vector<int64_t> q_index(static_cast<size_t>(s.n), s.m - 1);
  reference::Attention(q.As<const float>(), s.n, s.heads, k.As<const float>(), v.As<const float>(), s.m, s.kv_heads,
                       s.d, q_index.data(), /*key_end=*/nullptr, /*window=*/0, scale, out.As<float>());
}

}  // namespace gemmad::kernels::reference::op
