// LoadServeModel (see serve_model.h).
#include "cli/serve_model.h"

#include <nlohmann/json.hpp>

#include "base/files.h"
#include "base/log.h"
#include "io/hf_hub.h"

namespace gemmad::cli {

Result<std::optional<std::string>> FindCheckpointChatTemplate(const std::string& dir) {
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

Result<ServeModel> LoadServeModel(const ServeOptions& o) {
  ServeModel m;
  io::HubSettings hub = io::HubSettingsFromEnv();
  GEMMAD_ASSIGN_OR_RETURN(m.model_dir, io::ResolveModelPath(o.model, o.revision, hub));
  std::string tokenizer_dir = m.model_dir;
  if (!o.tokenizer.empty()) {
    GEMMAD_ASSIGN_OR_RETURN(tokenizer_dir,
                            io::ResolveModelPath(o.tokenizer, o.tokenizer_revision.empty() ? o.revision
                                                                                           : o.tokenizer_revision,
                                                 hub, "tokenizer.json"));
  }
  GEMMAD_ASSIGN_OR_RETURN(m.tokenizer, tokenizer::Tokenizer::Load(tokenizer_dir));
  if (!o.chat_template.empty()) {
    auto t = tmpl::LoadChatTemplate(o.chat_template);
    if (!t.ok()) return t.status().WithPrefix("--chat-template");
    m.chat_template = std::move(*t);
    return m;
  }
  GEMMAD_ASSIGN_OR_RETURN(std::optional<std::string> source, FindCheckpointChatTemplate(tokenizer_dir));
  if (source) {
    auto t = tmpl::MakeChatTemplate(*source, "checkpoint");
    if (!t.ok()) return t.status().WithPrefix("the checkpoint's chat template");
    m.chat_template = std::move(*t);
  } else {
    GEMMAD_LOG_WARNING("{} ships no chat template; using the built-in Gemma 4 template", tokenizer_dir);
    auto t = tmpl::MakeChatTemplate(tmpl::Gemma4DefaultTemplate(), "embedded:gemma4");
    if (!t.ok()) return t.status();
    m.chat_template = std::move(*t);
  }
  return m;
}

}  // namespace gemmad::cli
