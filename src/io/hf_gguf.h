// Hub GGUF references as llama.cpp (`-hf org/repo:Q4_K_M`) and recent vLLM (`org/repo:Q4_K_M`)
// accept them: the repository's .gguf file whose name contains the quant tag (case-insensitive;
// mmproj companions excluded; of a split set, the first shard), looked up in the HF cache
// snapshot and, when absent and not offline, downloaded with its mmproj companion if the repository
// has one (the other files of a GGUF repository are other quantizations of the same weights).
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

// The mmproj companion among `names` (file names of one directory, any order) as vLLM looks for
// one beside a GGUF model: the first by name of "mmproj.gguf", then "mmproj-*.gguf", then
// "*mmproj*.gguf"; nullopt when none. `self` (the model's own name) is never picked.
std::optional<std::string> PickMmprojName(std::vector<std::string> names, std::string_view self = "");

// The local path of the file `repo:tag` names at `revision` (errors list the tags that exist). A
// download also fetches the mmproj companion PickMmprojName finds in the file's directory of the
// repository, as llama.cpp's -hf does (one already in the cache is found there by the model layer).
Result<std::string> ResolveGgufRepo(std::string_view repo, std::string_view tag, std::string_view revision,
                                    const HubSettings& settings);

}  // namespace gemmad::io
