// Torch-free writer of a random Gemma 4 assistant (MTP drafter, text-model.md §12) that fits a
// given target: config.json in transformers' Gemma4AssistantConfig layout and model.safetensors
// with the tensors of §12.2, deterministic in the seed: four layers (sliding, sliding, sliding,
// full; only the types the target has), the target's KV heads, head dims, k_eq_v, window and
// RoPE. For a real-size target (hidden >= 1024) the released assistants' shapes (§12.1 table):
// E models (with PLE) hidden 256, 4 heads, FFN 2048, centroid masking 2048 clusters / top 32;
// others hidden 1024, the target's heads, FFN 8192, the plain head. For a tiny target: hidden
// 64, the target's heads, FFN 128, centroid masking over 16 clusters (top 4).
// For tests (a fake HF cache holding a target and its assistant); random drafts are rarely
// accepted, which exercises rejection and changes nothing in the output.
#pragma once

#include <cstdint>
#include <string>

#include "base/status.h"
#include "model/gemma4/config.h"
#include "tensor/dtype.h"

namespace gemmad::model::gemma4 {

struct RandomAssistantOptions {
  tensor::DType dtype = tensor::DType::kBF16;  // kBF16 or kF32
  uint64_t seed = 0;
};

Status WriteRandomAssistant(const std::string& out_dir, const Config& target, const RandomAssistantOptions& options);

}  // namespace gemmad::model::gemma4
