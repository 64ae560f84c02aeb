// StepBuffers: the activations of one forward step, grow-only (no allocation once the largest
// batch has been seen), in memory of the step's scratch allocator (kernels::ScratchAllocatorOf:
// the backend's device), and StepPlan: the per-step KV addressing derived from the batch.
// Internal to the Gemma 4 forward pass.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/allocator.h"
#include "kernels/ops.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

// A grow-only buffer of one allocator handing out views of the requested shape and dtype.
class Scratch {
 public:
  // Later views come from `allocator` (what was held of another allocator is released).
  void Bind(kernels::Allocator& allocator);
  // A view of the bound allocator's memory; growing does not keep the contents.
  tensor::TensorView View(tensor::Shape shape, tensor::DType dtype = tensor::DType::kF32);

 private:
  kernels::Allocator* allocator_ = &kernels::HostAllocator();
  kernels::DeviceBuffer buffer_;
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
  Scratch moe_weights;  // [N, K] f32 routing weights
  Scratch moe_ids;      // [N, K] i32 routed experts

  // Binds every buffer to the step's scratch allocator.
  void Bind(kernels::Allocator& allocator);
};

// KV addressing of one group for one step.
struct GroupPlan {
  std::vector<int64_t> slots;  // [N] physical slot of each row's key (block·block_size + row)
  std::vector<kernels::AttentionSequence> sequences;
  // [N] AttentionSequence::key_end of the rows of sequences with a bidirectional span in the step
  // (sliding groups of "vision" models only; empty when no row needs it).
  std::vector<int64_t> key_end;
};

struct StepPlan {
  std::vector<GroupPlan> groups;  // KvCacheSpec::groups order
};

}  // namespace gemmad::model::gemma4
