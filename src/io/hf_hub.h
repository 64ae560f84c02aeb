// Model resolution as vLLM does it: a local directory is used as is; otherwise the argument is a
// Hugging Face repo id looked up in the HF cache (refs/<revision> -> snapshots/<commit>) and, when
// absent and not offline, downloaded into that cache with resumable, size- and sha256-checked
// transfers (HF_ENDPOINT, HF_TOKEN, HF_HUB_OFFLINE honoured).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "io/hf_cache.h"

namespace gemmad::io {

// Returns the directory holding config.json for `model` at `revision` (default "main"); for a local
// ".gguf" file or a hub GGUF reference "org/repo:QUANT" (io/hf_gguf.h), the GGUF file's path.
// `required_file`: what a local directory must contain (a tokenizer directory needs only
// tokenizer.json).
Result<std::string> ResolveModelPath(std::string_view model, std::string_view revision,
                                     const HubSettings& settings,
                                     std::string_view required_file = "config.json");

// A revision's commit and file names (GET /api/models/<repo>/revision/<rev>).
struct RepoListing {
  std::string commit;
  std::vector<std::string> files;
};
Result<RepoListing> ListRevision(const HubSettings& s, std::string_view repo, std::string_view revision);
// Downloads one file into <cache>/models--*/blobs/ (resumable, sha256-checked when the ETag is one)
// and links snapshots/<commit>/<file> to it.
Status FetchFile(const HubSettings& s, std::string_view repo, const std::string& commit, const std::string& file,
                 const std::string& repo_dir);
// Records refs/<revision> = commit (nothing for a commit-hash revision).
Status WriteRef(const HubSettings& s, std::string_view repo, std::string_view revision, const std::string& commit);

// Which repository files a model download fetches: configs, tokenizer and template files, and
// safetensors weights (only the shards the index lists when an index exists).
bool WantedRepoFile(std::string_view filename);

}  // namespace gemmad::io
