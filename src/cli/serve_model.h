// What `gemmad serve` loads before the engine: the model directory (local or HF cache/hub) opened
// as a WeightSource (its weights are bound later by CreateModelEngine), and from its hints
// the tokenizer and the chat template (--chat-template, else the checkpoint's
// chat_template.jinja or tokenizer_config.json "chat_template", else the Gemma 4 template).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "cli/serve_options.h"
#include "io/hf_cache.h"
#include "model/weight_source.h"
#include "template/chat_template.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::cli {

struct ServeModel {
  std::string model_dir;
  std::shared_ptr<const model::WeightSource> source;  // the opened checkpoint (its weights load later)
  std::unique_ptr<tokenizer::Tokenizer> tokenizer;
  std::optional<tmpl::ChatTemplate> chat_template;
};

Result<ServeModel> LoadServeModel(const ServeOptions& options);

// The hub settings of the environment (HF_HOME, HF_HUB_CACHE, HF_ENDPOINT, HF_TOKEN, ...) with
// --hf-token as the Bearer token and --download-dir as the cache the model is looked up in and
// downloaded to (vLLM passes it as huggingface_hub's cache_dir).
io::HubSettings ServeHubSettings(const ServeOptions& options);

// The checkpoint's own template: <dir>/chat_template.jinja, else tokenizer_config.json's
// "chat_template" (a string, or a list of {name, template}: "default"); nullopt if none.
Result<std::optional<std::string>> FindCheckpointChatTemplate(const std::string& dir);

}  // namespace gemmad::cli
