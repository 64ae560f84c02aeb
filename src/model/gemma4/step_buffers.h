// StepBuffers: the fp32 activations of one forward step, grow-only (no allocation once the
// largest batch has been seen) and StepPlan: the per-step KV addressing derived from the batch.
// Internal to the Gemma 4 forward pass.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/ops.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

// A grow-only fp32 buffer handing out views of the requested shape.
class Scratch {
 public:
  tensor::TensorView View(tensor::Shape shape) {
    const auto n = static_cast<size_t>(shape.NumElements());
    if (data_.size() < n) data_.resize(n);
    tensor::TensorView v;
    v.data = data_.data();
    v.dtype = tensor::DType::kF32;
    v.shape = shape;
    return v;
  }

 private:
  std::vector<float> data_;
};

struct StepBuffers {
  Scratch x;          // [N, H] residual stream
  Scratch normed;     // [N, H]
  Scratch branch;     // [N, H] a block's output before the residual add
  Scratch branch2;    // [N, H] MoE expert branch
  Scratch q, k, v;    // [N, heads, d]
  Scratch attn;       // [N, nH, d]
  Scratch gate, up;   // [N, I]
  Scratch router;     // [N, E]
  Scratch ple;        // [N, L, P] per-layer inputs
  Scratch ple_tmp;    // [N, L·P]
  Scratch ple_gate;   // [N, P]
  Scratch ple_slice;  // [N, P]
  Scratch head;       // [R, H] logit rows
  std::vector<float> moe_weights;
  std::vector<int32_t> moe_ids;
};

// KV addressing of one group for one step.
struct GroupPlan {
  std::vector<int64_t> slots;  // [N] physical slot of each row's key (block·block_size + row)
  std::vector<kernels::AttentionSequence> sequences;
};

struct StepPlan {
  std::vector<GroupPlan> groups;  // KvCacheSpec::groups order
};

}  // namespace gemmad::model::gemma4
