// GgufSource: the WeightSource of one GGUF file (spec gguf.md): config.json synthesized from the
// metadata (model/gguf_config.h), tensors under their Hugging Face names (model/gguf_names.h) in
// PyTorch shape order (ggml's ne[] reversed; the bytes are not moved), the tokenizer and chat
// template left in the file's metadata (TokenizerHints::gguf_file).
// Storage: F32, F16 and BF16 tensors are zero-copy views of the mapping; block-quantized tensors
// are dequantized to owned F32 at open with tensor/ggml_quants.h (exact: every quantized value is
// a small integer times an f16 scale, plus an f16 minimum for the _1 and K types), so a GGUF runs
// the same kernels as a safetensors checkpoint; --quantization int8|int4 re-quantizes as usual.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "model/weight_source.h"

namespace gemmad::model {

// Opens `path` (errors name the file and the problem: not GGUF, unsupported architecture or type,
// a tensor the architecture does not have, a shape that does not fit the metadata).
Result<std::unique_ptr<WeightSource>> OpenGgufSource(const std::string& path);

}  // namespace gemmad::model
