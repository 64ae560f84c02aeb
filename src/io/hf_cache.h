// The Hugging Face hub cache layout (as huggingface_hub writes it), read and written by gemmad:
//   <cache>/models--<org>--<name>/{refs/<revision>, snapshots/<commit>/<file>, blobs/<etag>}
// The cache directory comes from HF_HUB_CACHE, else HF_HOME/hub, else ~/.cache/huggingface/hub.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace gemmad::io {

// Settings read from the environment (vLLM/huggingface_hub names), overridable by flags.
struct HubSettings {
  std::string cache_dir;                               // HF_HUB_CACHE | HF_HOME/hub | ~/.cache/huggingface/hub
  std::string endpoint = "https://huggingface.co";     // HF_ENDPOINT
  std::string token;                                   // HF_TOKEN | $HF_HOME/token
  bool offline = false;                                // HF_HUB_OFFLINE=1 (or TRANSFORMERS_OFFLINE=1)
  bool progress = true;                                // progress bar on stderr when it is a terminal
};
HubSettings HubSettingsFromEnv();

// True for "org/name" or "name" (letters, digits, '-', '_', '.'), false for paths.
bool LooksLikeRepoId(std::string_view s);
// <cache>/models--org--name
std::string RepoCacheDir(const HubSettings& s, std::string_view repo_id);
// True for a 40-hex-digit commit hash.
bool IsCommitHash(std::string_view s);

// Resolves <repo>@<revision> to a snapshot directory already in the cache: a commit hash names
// its snapshot directly, a branch/tag is read from refs/<revision>. Returns nullopt when the
// snapshot is absent or lacks config.json.
std::optional<std::string> FindCachedSnapshot(const HubSettings& s, std::string_view repo_id,
                                              std::string_view revision);

}  // namespace gemmad::io
