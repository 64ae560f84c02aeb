// SafetensorsDirSource (see safetensors_source.h).
#include "model/safetensors_source.h"

#include <nlohmann/json.hpp>

#include <utility>

#include "base/files.h"

namespace gemmad::model {
namespace {

class SafetensorsDirSource final : public WeightSource {
 public:
  static Result<std::unique_ptr<WeightSource>> Open(const std::string& dir, bool show_progress) {
    if (!IsDirectory(dir)) return NotFoundError(dir + ": model directory does not exist");
    std::unique_ptr<SafetensorsDirSource> s(new SafetensorsDirSource());
    s->dir_ = dir;
    s->config_label_ = JoinPath(dir, "config.json");
    GEMMAD_ASSIGN_OR_RETURN(s->config_json_, ReadFileToString(s->config_label_));
    GEMMAD_ASSIGN_OR_RETURN(s->generation_config_, LoadGenerationConfig(dir));
    GEMMAD_ASSIGN_OR_RETURN(s->store_, io::TensorStore::OpenDirectory(dir, show_progress));
    for (const std::string& name : s->store_.names()) {
      const io::StoredTensor* t = s->store_.Find(name);
      WeightInfo w;
      w.shape = t->info->shape;
      w.dtype = t->info->dtype;
      w.dtype_name = t->info->dtype_name;
      w.size_bytes = t->info->size_bytes();
      w.origin = t->file->path();
      s->info_.emplace(name, std::move(w));
    }
    if (FileExists(JoinPath(dir, "tokenizer.json"))) s->hints_.tokenizer_dir = dir;
    GEMMAD_ASSIGN_OR_RETURN(s->hints_.chat_template, FindChatTemplate(dir));
    return std::unique_ptr<WeightSource>(std::move(s));
  }

  const std::string& label() const override {
    return store_.index_path().empty() ? store_.files().front()->path() : store_.index_path();
  }
  const std::string& config_label() const override { return config_label_; }
  const std::string& config_json() const override { return config_json_; }
  const GenerationConfig& generation_config() const override { return generation_config_; }
  const std::vector<std::string>& tensor_names() const override { return store_.names(); }
  const WeightInfo* Info(std::string_view name) const override {
    auto it = info_.find(std::string(name));
    return it == info_.end() ? nullptr : &it->second;
  }
  Result<tensor::TensorView> View(std::string_view name) const override { return store_.View(name); }
  std::vector<std::string> files() const override {
    std::vector<std::string> out;
    for (const auto& f : store_.files()) out.push_back(f->path());
    return out;
  }
  const TokenizerHints& tokenizer_hints() const override { return hints_; }

 private:
  SafetensorsDirSource() = default;

  std::string dir_, config_label_, config_json_;
  GenerationConfig generation_config_;
  io::TensorStore store_;
  std::unordered_map<std::string, WeightInfo> info_;
  TokenizerHints hints_;
};

}  // namespace

Result<std::unique_ptr<WeightSource>> OpenSafetensorsDir(const std::string& dir, bool show_progress) {
  return SafetensorsDirSource::Open(dir, show_progress);
}

Result<std::optional<std::string>> FindChatTemplate(const std::string& dir) {
  std::string jinja = JoinPath(dir, "chat_template.jinja");
  if (FileExists(jinja)) {
    GEMMAD_ASSIGN_OR_RETURN(std::string text, ReadFileToString(jinja));
    return std::optional<std::string>(std::move(text));
  }
  std::string config_path = JoinPath(dir, "tokenizer_config.json");
  if (!FileExists(config_path)) return std::optional<std::string>();
  GEMMAD_ASSIGN_OR_RETURN(std::string text, ReadFileToString(config_path));
  nlohmann::json config = nlohmann::json::parse(text, nullptr, false);
  if (config.is_discarded() || !config.is_object()) return DataLossError(config_path + ": not a JSON object");
  auto it = config.find("chat_template");
  if (it == config.end() || it->is_null()) return std::optional<std::string>();
  if (it->is_string()) return std::optional<std::string>(it->get<std::string>());
  if (it->is_array()) {
    for (const auto& entry : *it) {
      if (entry.is_object() && entry.value("name", "") == "default" && entry.contains("template") &&
          entry["template"].is_string()) {
        return std::optional<std::string>(entry["template"].get<std::string>());
      }
    }
  }
  return DataLossError(config_path + ": \"chat_template\" is neither a string nor a list with a \"default\" entry");
}

}  // namespace gemmad::model
