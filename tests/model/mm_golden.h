// Test-side access to the multimodal decoder goldens of scripts/golden/make_gemma4_mm_goldens.py
// (tests/golden/gemma4_mm/<variant>/golden.{json,bin}, gemmad-golden-v1; format in
// docs/checkpoints-and-goldens.md): the index as JSON, arrays widened to f32 or read as i64.
#pragma once

#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/files.h"
#include "base/result.h"

namespace gemmad::model::testing {

class MmGolden {
 public:
  // variant: "causal" | "vision".
  static Result<MmGolden> Load(const std::string& variant) {
    MmGolden g;
    g.dir_ = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gemma4_mm/" + variant;
    GEMMAD_ASSIGN_OR_RETURN(std::string text, ReadFileToString(g.dir_ + "/golden.json"));
    g.index_ = nlohmann::json::parse(text, nullptr, false);
    if (g.index_.is_discarded() || g.index_.value("format", "") != "gemmad-golden-v1") {
      return DataLossError(g.dir_ + "/golden.json: not a gemmad-golden-v1 index");
    }
    return g;
  }

  const std::string& dir() const { return dir_; }
  const nlohmann::json& index() const { return index_; }
  std::vector<int64_t> Shape(const std::string& key) const { return Info(key)["shape"].get<std::vector<int64_t>>(); }

  // f32 arrays as they are; i64 arrays converted (exact for token ids).
  std::vector<float> F32(const std::string& key) const {
    const std::string raw = Raw(key);
    std::vector<float> out(raw.size() / 4);
    std::memcpy(out.data(), raw.data(), raw.size());
    return Info(key)["dtype"] == "f32" ? out : std::vector<float>{};
  }
  std::vector<int64_t> I64(const std::string& key) const {
    const std::string raw = Raw(key);
    std::vector<int64_t> out(raw.size() / 8);
    std::memcpy(out.data(), raw.data(), raw.size());
    return Info(key)["dtype"] == "i64" ? out : std::vector<int64_t>{};
  }

 private:
  const nlohmann::json& Info(const std::string& key) const { return index_.at("arrays").at(key); }
  std::string Raw(const std::string& key) const {
    const auto& a = Info(key);
    std::ifstream in(dir_ + "/" + index_["data_file"].get<std::string>(), std::ios::binary);
    std::string raw(a["bytes"].get<size_t>(), '\0');
    in.seekg(a["offset"].get<std::streamoff>());
    in.read(raw.data(), static_cast<std::streamsize>(raw.size()));
    return in ? raw : std::string();
  }

  std::string dir_;
  nlohmann::json index_;
};

}  // namespace gemmad::model::testing
