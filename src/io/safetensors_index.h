// model.safetensors.index.json: the map from tensor name to shard file of a sharded checkpoint
// ({"metadata": {...}, "weight_map": {"name": "model-00001-of-00002.safetensors", ...}}).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::io {

inline constexpr std::string_view kSafetensorsIndexName = "model.safetensors.index.json";
inline constexpr std::string_view kSafetensorsSingleName = "model.safetensors";

struct SafetensorsIndex {
  std::map<std::string, std::string> weight_map;  // tensor name -> shard file name
  std::vector<std::string> shards;                // distinct shard names, sorted
  int64_t total_size = -1;                        // metadata.total_size, -1 if absent
};

// Parses the index text; `label` (the path) starts error messages. Shard names must be plain
// relative paths inside the checkpoint directory (no "..", not absolute).
Result<SafetensorsIndex> ParseSafetensorsIndex(std::string_view json_text, std::string_view label);

// The index JSON the reference writer produces (2-space indent, sorted keys).
std::string BuildSafetensorsIndexJson(const std::map<std::string, std::string>& weight_map, uint64_t total_size,
                                      uint64_t total_parameters);

// "model-00002-of-00005.safetensors" (1-based shard number).
std::string ShardFileName(int shard, int num_shards);

}  // namespace gemmad::io
