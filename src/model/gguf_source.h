// GgufSource: the WeightSource of one GGUF file (spec gguf.md): config.json synthesized from the
// metadata (model/gguf_config.h), tensors under their Hugging Face names (model/gguf_names.h) in
// PyTorch shape order (ggml's ne[] reversed; the bytes are not moved), the tokenizer and chat
// template left in the file's metadata (TokenizerHints::gguf_file).
// Storage: F32, F16 and BF16 tensors are zero-copy views of the mapping. Matrices (2-D tensors)
// and MoE expert stacks (3-D) in Q8_0, Q5_0, Q4_K or Q6_K are zero-copy views too, of dtype
// kGgml*: the Linear and gather kernels read those blocks directly (per expert for a stack),
// against int8-quantized activations as llama.cpp does. Q4_0 matrices, and Q4_0 stacks whose
// experts have an even row count, are gemmad's own kQ4_0 bit for bit once their rows are paired:
// they are copied into that layout (the --quantization int4 kernels then read them). Every other
// block-quantized tensor (other types, anything when `dequantize_all` is set) is dequantized to
// owned F32 at open with tensor/ggml_quants.h, which is exact (every quantized value is a small
// integer times an f16 scale, plus an f16 minimum for the _1 and K types): that path computes what
// transformers computes on the dequantized weights. The split expert form (gate and up stacks)
// is combined into one stack in its own type when both halves share it, else into F32.
// With an mmproj companion (options.mmproj) the source is the multimodal model: config.json in the
// Gemma4ForConditionalGeneration form, the encoders' tensors under their Hugging Face names.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "model/weight_source.h"

namespace gemmad::model {

// Opens `path` (errors name the file and the problem: not GGUF, unsupported architecture or type,
// a tensor the architecture does not have, a shape that does not fit the metadata).
struct GgufSourceOptions {
  bool dequantize_all = false;  // every block type to f32 (exact reference numerics; 4-8x the memory)
  std::string mmproj;           // an mmproj companion to read beside it (model/gguf_mmproj.h); "" none
  bool mmproj_found = false;    // it was found beside the file, not named: skipped with a warning
                                // beside a Gemma 3 text model instead of an error
};
Result<std::unique_ptr<WeightSource>> OpenGgufSource(const std::string& path, const GgufSourceOptions& options = {});

}  // namespace gemmad::model
