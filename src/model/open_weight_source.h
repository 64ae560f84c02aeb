// OpenWeightSource: the one place that decides what a model path is. A regular file whose name ends
// in ".gguf" (or that starts with the GGUF magic) is a GGUF file (model/gguf_source.h); a
// directory is a Hugging Face checkpoint (model/safetensors_source.h), wrapped by
// model/ct_source.h when its config.json has a compressed-tensors `quantization_config` (any other
// quant_method is an error naming it).
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "model/weight_source.h"

namespace gemmad::model {

// True when `path` names a GGUF file (by suffix, else by its first four bytes).
bool IsGgufPath(const std::string& path);

Result<std::unique_ptr<WeightSource>> OpenWeightSource(const std::string& path, bool show_progress = false);

}  // namespace gemmad::model
