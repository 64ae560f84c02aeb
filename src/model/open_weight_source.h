// OpenWeightSource: the one place that decides what a model path is. A regular file whose name ends
// in ".gguf" (or that starts with the GGUF magic) is a GGUF file (model/gguf_source.h), with its
// mmproj companion when one is named or found beside it; a
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

// Which mmproj companion a GGUF model reads (model/gguf_mmproj.h).
struct MmprojChoice {
  std::string path;       // --mmproj: this file (an error for a model that is not a GGUF file)
  bool disabled = false;  // --no-mmproj: none
};

// With neither set, the companion is looked for as vLLM looks for it: the first by name of
// "mmproj.gguf", then "mmproj-*.gguf", then "*mmproj*.gguf" in the GGUF file's directory ("" when
// none). A companion found so beside a Gemma 3 text model (whose encoders gemmad does not run) is
// skipped with a warning; one named by --mmproj is an error there.
Result<std::string> FindMmproj(const std::string& gguf_path, const MmprojChoice& choice);

Result<std::unique_ptr<WeightSource>> OpenWeightSource(const std::string& path, bool show_progress = false,
                                                       const MmprojChoice& mmproj = {});

}  // namespace gemmad::model
