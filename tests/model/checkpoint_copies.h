// Test helpers that re-lay-out a checkpoint directory: as a sharded checkpoint with an index,
// and as a Hugging Face hub cache entry (refs/main -> snapshots/<commit>/ symlinks into blobs/).
#pragma once

#include <string>

#include "base/status.h"

namespace gemmad::model::testing {

// Splits <src>/model.safetensors into `num_shards` files model-0000i-of-0000n.safetensors plus
// model.safetensors.index.json in `dst` (created); copies the JSON configs.
Status WriteShardedCopy(const std::string& src, const std::string& dst, int num_shards);

// Creates <hub>/models--<org>--<name>/ with blobs/, snapshots/<commit>/ (symlinks) and refs/main
// for every file of `src`. Returns the commit hash used.
std::string WriteHubCacheCopy(const std::string& src, const std::string& hub, const std::string& org,
                              const std::string& name);

}  // namespace gemmad::model::testing
