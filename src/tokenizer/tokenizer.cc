// Tokenizer: file loading, tokenizer_config.json special-token names, and the public API over
// Pipeline.
#include "tokenizer/tokenizer.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "base/files.h"
#include "tokenizer/pipeline.h"

namespace gemmad::tokenizer {
namespace {

// tokenizer_config.json gives special tokens as a string or as {"content": ...}.
std::optional<std::string> ConfigToken(const nlohmann::json& cfg, const char* key) {
  if (!cfg.is_object() || !cfg.contains(key)) return std::nullopt;
  const auto& v = cfg[key];
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return std::nullopt;
}

std::string DirName(const std::string& path) {
  size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "." : path.substr(0, slash);
}

}  // namespace

Tokenizer::Tokenizer(std::unique_ptr<Pipeline> pipeline) : pipeline_(std::move(pipeline)) {}
Tokenizer::~Tokenizer() = default;

Result<std::unique_ptr<Tokenizer>> Tokenizer::Load(const std::string& path) {
  std::string json_path = path, config_path;
  if (IsDirectory(path)) {
    json_path = JoinPath(path, "tokenizer.json");
    config_path = JoinPath(path, "tokenizer_config.json");
  } else {
    config_path = JoinPath(DirName(path), "tokenizer_config.json");
  }
  if (!FileExists(json_path)) return NotFoundError(fmt::format("no tokenizer.json at {}", json_path));
  GEMMAD_ASSIGN_OR_RETURN(std::string json, ReadFileToString(json_path));
  std::string config;
  if (FileExists(config_path)) {
    GEMMAD_ASSIGN_OR_RETURN(config, ReadFileToString(config_path));
  }
  auto tok = FromJson(json, config, json_path);
  if (!tok.ok()) {
    const Status& st = tok.status();
    if (st.message().rfind(json_path, 0) == 0) return st;
    return Status(st.code(), fmt::format("{}: {}", json_path, st.message()));
  }
  return tok;
}

Result<std::unique_ptr<Tokenizer>> Tokenizer::FromJson(std::string_view tokenizer_json, std::string_view config_json,
                                                       std::string_view origin) {
  GEMMAD_ASSIGN_OR_RETURN(auto pipeline, Pipeline::Parse(tokenizer_json));
  auto tok = std::unique_ptr<Tokenizer>(new Tokenizer(std::move(pipeline)));
  nlohmann::json cfg;
  if (!config_json.empty()) {
    cfg = nlohmann::json::parse(config_json.begin(), config_json.end(), nullptr, /*allow_exceptions=*/false);
    if (cfg.is_discarded()) {
      return DataLossError(fmt::format("{}: tokenizer_config.json is not valid JSON", origin));
    }
  }
  auto resolve = [&](const char* key) -> std::optional<int32_t> {
    auto name = ConfigToken(cfg, key);
    if (!name) return std::nullopt;
    return tok->TokenToId(*name);
  };
  tok->bos_id_ = resolve("bos_token");
  tok->eos_id_ = resolve("eos_token");
  tok->pad_id_ = resolve("pad_token");
  tok->unk_id_ = resolve("unk_token");
  if (cfg.is_null() && tok->pipeline_->post_processor() != nullptr) {
    std::vector<int32_t> before, after;
    tok->pipeline_->post_processor()->Surround(&before, &after);
    if (!before.empty()) tok->bos_id_ = before.front();
    if (!after.empty()) tok->eos_id_ = after.back();
  }
  return tok;
}

std::vector<int32_t> Tokenizer::Encode(std::string_view text, bool add_special_tokens) const {
  std::vector<int32_t> ids;
  pipeline_->Encode(text, add_special_tokens, &ids);
  return ids;
}

std::string Tokenizer::Decode(std::span<const int32_t> ids, bool skip_special_tokens) const {
  return pipeline_->Decode(ids, skip_special_tokens);
}

int32_t Tokenizer::vocab_size() const { return pipeline_->id_limit(); }

std::optional<int32_t> Tokenizer::TokenToId(std::string_view token) const {
  int32_t id = pipeline_->TokenToId(token);
  return id >= 0 ? std::optional<int32_t>(id) : std::nullopt;
}

std::string_view Tokenizer::IdToToken(int32_t id) const { return pipeline_->IdToToken(id); }

bool Tokenizer::IsSpecial(int32_t id) const {
  const AddedToken* t = pipeline_->added().Find(id);
  return t != nullptr && t->special;
}

bool Tokenizer::IsAdded(int32_t id) const { return pipeline_->added().Find(id) != nullptr; }

const std::string& Tokenizer::TokenBytes(int32_t id) const { return pipeline_->TokenBytes(id); }

}  // namespace gemmad::tokenizer
