// Scalar MoE in double.
#include "kernels/reference/moe.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "kernels/reference/activation.h"

namespace gemmad::kernels::reference {

void MoeRoute(const float* logits, int64_t n, int64_t num_experts, int64_t top_k,
              const float* per_expert_scale, float* weights, int32_t* ids) {
  std::vector<double> prob(static_cast<size_t>(num_experts));
  std::vector<int32_t> order(static_cast<size_t>(num_experts));
  for (int64_t t = 0; t < n; ++t) {
    const float* l = logits + t * num_experts;
    double m = *std::max_element(l, l + num_experts);
    double sum = 0.0;
    for (int64_t e = 0; e < num_experts; ++e) sum += prob[e] = std::exp(l[e] - m);
    for (int64_t e = 0; e < num_experts; ++e) prob[e] /= sum;
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int32_t a, int32_t b) { return prob[a] > prob[b]; });
    double top_sum = 0.0;
    for (int64_t k = 0; k < top_k; ++k) top_sum += prob[order[k]];
    for (int64_t k = 0; k < top_k; ++k) {
      ids[t * top_k + k] = order[k];
      weights[t * top_k + k] = static_cast<float>(prob[order[k]] / top_sum * per_expert_scale[order[k]]);
    }
  }
}

void MoeExperts(const float* x, int64_t n, int64_t hidden, const float* gate_up, const float* down,
                int64_t inter, const float* weights, const int32_t* ids, int64_t top_k, float* out) {
  std::vector<double> act(static_cast<size_t>(inter));
  for (int64_t t = 0; t < n; ++t) {
    const float* xv = x + t * hidden;
    std::vector<double> acc(static_cast<size_t>(hidden), 0.0);
    for (int64_t k = 0; k < top_k; ++k) {
      const int64_t e = ids[t * top_k + k];
      const float* gu = gate_up + e * 2 * inter * hidden;
      for (int64_t r = 0; r < inter; ++r) {
        double g = 0.0, u = 0.0;
        for (int64_t i = 0; i < hidden; ++i) {
          g += static_cast<double>(xv[i]) * gu[r * hidden + i];
          u += static_cast<double>(xv[i]) * gu[(inter + r) * hidden + i];
        }
        act[r] = static_cast<double>(GeluTanh(static_cast<float>(g))) * u;
      }
      const float* dn = down + e * hidden * inter;
      for (int64_t o = 0; o < hidden; ++o) {
        double y = 0.0;
        for (int64_t r = 0; r < inter; ++r) y += act[r] * dn[o * inter + r];
        acc[o] += weights[t * top_k + k] * y;
      }
    }
    for (int64_t o = 0; o < hidden; ++o) out[t * hidden + o] = static_cast<float>(acc[o]);
  }
}

}  // namespace gemmad::kernels::reference
