// SafetensorsDirSource: the WeightSource of a Hugging Face model directory: config.json,
// generation_config.json, model.safetensors or a sharded index, tokenizer.json, and the chat
// template (chat_template.jinja, else tokenizer_config.json's "chat_template").
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "base/result.h"
#include "io/tensor_store.h"
#include "model/weight_source.h"

namespace gemmad::model {

// Opens `dir` (errors name the file and the problem). `show_progress` reports the shards as they
// open (io/progress_bar.h: a bar on a terminal, log lines elsewhere).
Result<std::unique_ptr<WeightSource>> OpenSafetensorsDir(const std::string& dir, bool show_progress = false);

// The checkpoint's own chat template in `dir`: chat_template.jinja, else tokenizer_config.json's
// "chat_template" (a string, or a list of {name, template}: "default"); nullopt if none.
Result<std::optional<std::string>> FindChatTemplate(const std::string& dir);

}  // namespace gemmad::model
