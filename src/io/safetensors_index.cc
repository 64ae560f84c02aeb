// Parsing and writing of model.safetensors.index.json.
#include "io/safetensors_index.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <set>

namespace gemmad::io {
namespace {

bool IsSafeRelativePath(std::string_view p) {
  if (p.empty() || p.front() == '/' || p.find('\0') != std::string_view::npos) return false;
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find('/', start);
    if (end == std::string_view::npos) end = p.size();
    std::string_view part = p.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

Result<SafetensorsIndex> ParseSafetensorsIndex(std::string_view json_text, std::string_view label) {
  nlohmann::json doc = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return DataLossError(fmt::format("{}: not valid JSON", label));
  if (!doc.is_object()) return DataLossError(fmt::format("{}: not a JSON object", label));
  SafetensorsIndex index;
  auto meta = doc.find("metadata");
  if (meta != doc.end() && meta->is_object()) {
    auto ts = meta->find("total_size");
    if (ts != meta->end() && ts->is_number_integer()) index.total_size = ts->get<int64_t>();
  }
  auto wm = doc.find("weight_map");
  if (wm == doc.end() || !wm->is_object()) {
    return DataLossError(fmt::format("{}: missing object field 'weight_map'", label));
  }
  std::set<std::string> shards;
  for (const auto& [name, file] : wm->items()) {
    if (!file.is_string()) {
      return DataLossError(fmt::format("{}: weight_map entry '{}' is not a file name string", label, name));
    }
    const auto& f = file.get_ref<const std::string&>();
    if (!IsSafeRelativePath(f)) {
      return DataLossError(fmt::format("{}: weight_map entry '{}' names an unsafe path '{}'", label, name, f));
    }
    index.weight_map.emplace(name, f);
    shards.insert(f);
  }
  if (index.weight_map.empty()) return DataLossError(fmt::format("{}: weight_map is empty", label));
  index.shards.assign(shards.begin(), shards.end());
  return index;
}

std::string BuildSafetensorsIndexJson(const std::map<std::string, std::string>& weight_map, uint64_t total_size,
                                      uint64_t total_parameters) {
  nlohmann::json doc;
  doc["metadata"]["total_parameters"] = total_parameters;
  doc["metadata"]["total_size"] = total_size;
  doc["weight_map"] = nlohmann::json::object();
  for (const auto& [k, v] : weight_map) doc["weight_map"][k] = v;
  return doc.dump(2) + "\n";
}

std::string ShardFileName(int shard, int num_shards) {
  return fmt::format("model-{:05d}-of-{:05d}.safetensors", shard, num_shards);
}

}  // namespace gemmad::io
