// Scalar reference Mixture-of-Experts (text-model.md §8): routing (softmax over all experts,
// top-K, renormalise, then per-expert scale) and the expert GeGLU sum.
#pragma once

#include <cstdint>

namespace gemmad::kernels::reference {

// logits: [n, num_experts] router scores. weights: [n, top_k]; ids: [n, top_k], sorted by
// probability descending (ties: lower expert id first). per_expert_scale: [num_experts].
void MoeRoute(const float* logits, int64_t n, int64_t num_experts, int64_t top_k,
              const float* per_expert_scale, float* weights, int32_t* ids);

// x: [n, hidden]; gate_up: [num_experts, 2·inter, hidden] (gate rows first, then up rows);
// down: [num_experts, hidden, inter]; out[t] = Σ_k weights[t,k] · down[e]·(gelu(gate)⊙up).
void MoeExperts(const float* x, int64_t n, int64_t hidden, const float* gate_up, const float* down,
                int64_t inter, const float* weights, const int32_t* ids, int64_t top_k, float* out);

}  // namespace gemmad::kernels::reference
