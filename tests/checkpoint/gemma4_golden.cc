// Gemma4Golden implementation: JSON index + raw little-endian data file.
#include "gemma4_golden.h"

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <nlohmann/json.hpp>

#include "base/files.h"
#include "io/safetensors.h"
#include "io/safetensors_writer.h"
#include "io/sha256.h"
#include "tensor/half.h"

namespace gemmad::golden {

using nlohmann::json;

int DistinctIds(const std::vector<int64_t>& ids) {
  return static_cast<int>(std::set<int64_t>(ids.begin(), ids.end()).size());
}

int ShortestTailCycle(const std::vector<int64_t>& ids, int tail, int max_period) {
  const size_t n = std::min(ids.size(), static_cast<size_t>(tail)), start = ids.size() - n;
  for (int p = 1; p <= max_period; ++p) {
    bool cycle = true;
    for (size_t i = start; i + p < ids.size() && cycle; ++i) cycle = ids[i] == ids[i + p];
    if (cycle) return p;
  }
  return 0;
}

std::string Gemma4GoldenRoot() { return std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gemma4"; }
std::string Gemma3GoldenRoot() { return std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gemma3"; }

std::string GoldenModelDir(std::string_view model) {
  return JoinPath(model == "g1" ? Gemma3GoldenRoot() : Gemma4GoldenRoot(), model);
}

Result<Gemma4Golden> Gemma4Golden::Load(std::string_view model, std::string_view dtype) {
  std::string dir = GoldenModelDir(model);
  std::string index_path = JoinPath(dir, fmt::format("golden_{}.json", dtype));
  GEMMAD_ASSIGN_OR_RETURN(std::string text, ReadFileToString(index_path));
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded() || doc.value("format", "") != "gemmad-golden-v1") {
    return DataLossError(index_path + ": not a gemmad-golden-v1 index");
  }
  Gemma4Golden g;
  g.model_ = std::string(model);
  g.dtype_ = std::string(dtype);
  g.data_path_ = JoinPath(dir, doc["data_file"].get<std::string>());
  g.num_hidden_layers_ = doc["num_hidden_layers"].get<int64_t>();
  g.hidden_size_ = doc["hidden_size"].get<int64_t>();
  g.vocab_size_ = doc["vocab_size"].get<int64_t>();
  for (const auto& [key, a] : doc["arrays"].items()) {
    g.arrays_[key] = {a["dtype"].get<std::string>(), a["shape"].get<std::vector<int64_t>>(),
                      a["offset"].get<uint64_t>(), a["bytes"].get<uint64_t>()};
  }
  for (const auto& p : doc["prompts"]) {
    g.prompts_.push_back({p["name"].get<std::string>(), p["token_ids"].get<std::vector<int64_t>>(),
                          p["greedy_ids"].get<std::vector<int64_t>>(), p["has_hidden_states"].get<bool>(),
                          p["greedy_matches_generate"].get<bool>(),
                          p.value("greedy_margins", std::vector<double>{})});
  }
  if (doc.contains("hf_bf16_checkpoint_sha256")) {
    g.bf16_sha256_ = doc["hf_bf16_checkpoint_sha256"].get<std::map<std::string, std::string>>();
    g.bf16_committed_ = doc["bf16_checkpoint_committed"].get<bool>();
  }
  return g;
}

std::vector<std::string> Gemma4Golden::ArrayKeys() const {
  std::vector<std::string> keys;
  for (const auto& [k, v] : arrays_) keys.push_back(k);
  return keys;
}

Result<GoldenArray> Gemma4Golden::Array(std::string_view key) const {
  auto it = arrays_.find(key);
  if (it == arrays_.end()) return NotFoundError(fmt::format("{}: no golden array '{}'", data_path_, key));
  const ArrayInfo& a = it->second;
  std::ifstream in(data_path_, std::ios::binary);
  std::string raw(a.bytes, '\0');
  in.seekg(static_cast<std::streamoff>(a.offset));
  in.read(raw.data(), static_cast<std::streamsize>(raw.size()));
  if (!in) return DataLossError(fmt::format("{}: cannot read array '{}'", data_path_, key));
  GoldenArray out;
  out.shape = a.shape;
  if (a.dtype == "f32") {
    out.values.resize(a.bytes / 4);
    std::memcpy(out.values.data(), raw.data(), raw.size());
  } else if (a.dtype == "bf16") {
    out.values.resize(a.bytes / 2);
    for (size_t i = 0; i < out.values.size(); ++i) {
      uint16_t h;
      std::memcpy(&h, raw.data() + 2 * i, 2);
      out.values[i] = tensor::Bf16ToFloat(h);
    }
  } else {
    return UnimplementedError(fmt::format("{}: array '{}' has dtype {}", data_path_, key, a.dtype));
  }
  return out;
}

Status ConvertCheckpointToBf16(const std::string& src_dir, const std::string& dst_dir) {
  ::mkdir(dst_dir.c_str(), 0755);
  GEMMAD_ASSIGN_OR_RETURN(auto src, io::SafetensorsFile::Open(JoinPath(src_dir, "model.safetensors")));
  io::SafetensorsWriter w;
  for (const auto& [k, v] : src.metadata()) w.SetMetadata(k, v);
  for (const auto& t : src.tensors()) {
    if (t.dtype_name != "F32") return InvalidArgumentError(fmt::format("{}: '{}' is not F32", src.path(), t.name));
    std::string bytes(static_cast<size_t>(t.num_elements()) * 2, '\0');
    const uint8_t* p = src.Data(t);
    for (int64_t i = 0; i < t.num_elements(); ++i) {
      float f;
      std::memcpy(&f, p + 4 * i, 4);
      uint16_t h = tensor::FloatToBf16(f);
      std::memcpy(bytes.data() + 2 * i, &h, 2);
    }
    w.AddBytes(t.name, "BF16", t.shape, std::move(bytes));
  }
  GEMMAD_RETURN_IF_ERROR(w.WriteFile(JoinPath(dst_dir, "model.safetensors")));
  GEMMAD_ASSIGN_OR_RETURN(std::string config, ReadFileToString(JoinPath(src_dir, "config.json")));
  size_t pos = config.find("\"dtype\": \"float32\"");
  if (pos == std::string::npos) return InvalidArgumentError(src_dir + "/config.json: no float32 dtype");
  config.replace(pos, std::strlen("\"dtype\": \"float32\""), "\"dtype\": \"bfloat16\"");
  GEMMAD_RETURN_IF_ERROR(WriteStringToFile(JoinPath(dst_dir, "config.json"), config));
  GEMMAD_ASSIGN_OR_RETURN(std::string gen, ReadFileToString(JoinPath(src_dir, "generation_config.json")));
  return WriteStringToFile(JoinPath(dst_dir, "generation_config.json"), gen);
}

bool Gemma4Golden::MatchesRecordedHashes(const std::string& dir) const {
  for (const auto& [file, digest] : bf16_sha256_) {
    auto got = io::Sha256FileHex(JoinPath(dir, file));
    if (!got.ok() || *got != digest) return false;
  }
  return !bf16_sha256_.empty();
}

Result<std::string> Gemma4Golden::CheckpointDir() const {
  std::string dir = GoldenModelDir(model_);
  if (dtype_ == "f32") return dir;
  if (bf16_committed_) return JoinPath(dir, "bf16");
  std::string out = fmt::format("{}/golden_bf16_{}", GEMMAD_BINARY_DIR, model_);
  if (MatchesRecordedHashes(out)) return out;
  std::string tmp = fmt::format("{}.tmp{}", out, static_cast<long>(::getpid()));
  GEMMAD_RETURN_IF_ERROR(ConvertCheckpointToBf16(dir, tmp));
  if (!MatchesRecordedHashes(tmp)) {
    return DataLossError(fmt::format("{}: the rebuilt bf16 checkpoint differs from the transformers-saved one", tmp));
  }
  // Replace a stale copy; several test processes may race here, each with its own temp dir.
  for (const auto& [file, digest] : bf16_sha256_) std::remove(JoinPath(out, file).c_str());
  ::rmdir(out.c_str());
  if (std::rename(tmp.c_str(), out.c_str()) != 0) {
    for (const auto& [file, digest] : bf16_sha256_) std::remove(JoinPath(tmp, file).c_str());
    ::rmdir(tmp.c_str());
  }
  if (!MatchesRecordedHashes(out)) return IoError("cannot create " + out);
  return out;
}

}  // namespace gemmad::golden
