// Model resolution as vLLM does it: a local directory is used as is; otherwise the argument is a
// Hugging Face repo id looked up in the HF cache (refs/<revision> -> snapshots/<commit>) and, when
// absent and not offline, downloaded into that cache with resumable, size- and sha256-checked
// transfers (HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE honoured).
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "io/hf_cache.h"

namespace gemmad::io {

// Returns the directory holding config.json for `model` at `revision` (default "main").
// `required_file`: what a local directory must contain (a tokenizer directory needs only
// tokenizer.json).
Result<std::string> ResolveModelPath(std::string_view model, std::string_view revision,
                                     const HubSettings& settings,
                                     std::string_view required_file = "config.json");

// Which repository files a model download fetches: configs, tokenizer and template files, and
// safetensors weights (only the shards the index lists when an index exists).
bool WantedRepoFile(std::string_view filename);

}  // namespace gemmad::io
