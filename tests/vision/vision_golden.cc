// GoldenFile: JSON index + raw little-endian data file.
#include "vision_golden.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/files.h"

namespace gemmad::golden {

using nlohmann::json;

std::string VisionGoldenRoot() { return std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gemma4_vision"; }
std::string AudioGoldenRoot() { return std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gemma4_audio"; }

Result<GoldenFile> GoldenFile::Load(const std::string& stem_path) {
  const std::string index_path = stem_path + ".json";
  GEMMAD_ASSIGN_OR_RETURN(std::string text, ReadFileToString(index_path));
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || doc.value("format", "") != "gemmad-golden-v1") {
    return DataLossError(index_path + ": not a gemmad-golden-v1 index");
  }
  GoldenFile g;
  const std::string dir = stem_path.substr(0, stem_path.rfind('/'));
  g.data_path_ = JoinPath(dir, doc["data_file"].get<std::string>());
  for (const auto& [key, a] : doc["arrays"].items()) {
    g.arrays_[key] = {a["dtype"].get<std::string>(), a["shape"].get<std::vector<int64_t>>(), a["offset"].get<uint64_t>(),
                      a["bytes"].get<uint64_t>()};
  }
  g.index_text_ = std::make_shared<const std::string>(std::move(text));
  return g;
}

Result<VisionArray> GoldenFile::Array(std::string_view key) const {
  auto it = arrays_.find(key);
  if (it == arrays_.end()) return NotFoundError(fmt::format("{}: no array '{}'", data_path_, key));
  const Info& info = it->second;
  std::ifstream f(data_path_, std::ios::binary);
  if (!f) return IoError("cannot open " + data_path_);
  std::string raw(info.bytes, '\0');
  f.seekg(static_cast<std::streamoff>(info.offset));
  if (!f.read(raw.data(), static_cast<std::streamsize>(raw.size()))) return IoError("short read of " + data_path_);
  VisionArray a;
  a.shape = info.shape;
  if (info.dtype == "f32") {
    a.values.resize(raw.size() / 4);
    std::memcpy(a.values.data(), raw.data(), raw.size());
  } else if (info.dtype == "bf16") {
    a.values.resize(raw.size() / 2);
    for (size_t i = 0; i < a.values.size(); ++i) {
      uint16_t h;
      std::memcpy(&h, raw.data() + 2 * i, 2);
      const uint32_t bits = static_cast<uint32_t>(h) << 16;
      std::memcpy(&a.values[i], &bits, 4);
    }
  } else if (info.dtype == "i64") {
    a.ints.resize(raw.size() / 8);
    std::memcpy(a.ints.data(), raw.data(), raw.size());
  } else {
    return DataLossError(fmt::format("{}: '{}' has dtype {}", data_path_, key, info.dtype));
  }
  return a;
}

std::string GoldenFile::Field(std::string_view key) const {
  const json doc = json::parse(*index_text_);
  auto it = doc.find(std::string(key));
  return it == doc.end() ? "null" : it->dump();
}

size_t GoldenFile::ListSize(std::string_view list) const {
  const json doc = json::parse(*index_text_);
  const std::string name(list);
  return doc.contains(name) && doc[name].is_array() ? doc[name].size() : 0;
}

Result<int64_t> GoldenFile::ListInt(std::string_view list, size_t i, std::string_view key) const {
  const json doc = json::parse(*index_text_);
  const std::string name(list);
  if (!doc.contains(name) || !doc[name].is_array() || i >= doc[name].size()) {
    return NotFoundError(fmt::format("no {}[{}]", name, i));
  }
  const json& e = doc[name][i];
  auto it = e.find(std::string(key));
  if (it == e.end() || !it->is_number_integer()) return NotFoundError(fmt::format("{}[{}]: no '{}'", name, i, key));
  return it->get<int64_t>();
}

}  // namespace gemmad::golden
