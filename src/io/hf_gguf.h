// Hub GGUF references as llama.cpp (`-hf org/repo:Q4_K_M`) and recent vLLM (`org/repo:Q4_K_M`)
// accept them: the repository's .gguf file whose name contains the quant tag (case-insensitive;
// mmproj companions excluded; of a split set, the first shard), looked up in the HF cache
// snapshot and, when absent and not offline, downloaded alone (the other files of a GGUF repository
// are other quantizations of the same weights).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "io/hf_cache.h"

namespace gemmad::io {

// ("org/repo", "Q4_K_M") for "org/repo:Q4_K_M" (a repo id, then ':' and a tag of letters, digits
// and '_'); nullopt otherwise.
std::optional<std::pair<std::string, std::string>> SplitGgufQuantTag(std::string_view model);

// The files of `files` (repository-relative paths) that a tag selects, best first: names ending in
// ".gguf" that contain the tag, no "mmproj", of split sets only the "-00001-of-" shard.
std::vector<std::string> MatchGgufFiles(const std::vector<std::string>& files, std::string_view tag);

// The local path of the file `repo:tag` names at `revision` (errors list the tags that exist).
Result<std::string> ResolveGgufRepo(std::string_view repo, std::string_view tag, std::string_view revision,
                                    const HubSettings& settings);

}  // namespace gemmad::io
