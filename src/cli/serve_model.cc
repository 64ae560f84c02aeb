// LoadServeModel (see serve_model.h).
#include "cli/serve_model.h"

#include <nlohmann/json.hpp>

#include "base/files.h"
#include "base/log.h"
#include "io/gguf_file.h"
#include "io/hf_hub.h"
#include "tokenizer/gguf_tokenizer.h"
#include "cli/model_tokenizer.h"
#include "model/open_weight_source.h"
#include "model/safetensors_source.h"

namespace gemmad::cli {

Result<std::optional<std::string>> FindCheckpointChatTemplate(const std::string& dir) {
  return model::FindChatTemplate(dir);
}

io::HubSettings ServeHubSettings(const ServeOptions& o) {
  io::HubSettings hub = io::HubSettingsFromEnv();
  if (!o.hf_token.empty()) hub.token = o.hf_token;
  if (!o.download_dir.empty()) hub.cache_dir = o.download_dir;
  return hub;
}

Result<ServeModel> LoadServeModel(const ServeOptions& o) {
  ServeModel m;
  const io::HubSettings hub = ServeHubSettings(o);
  GEMMAD_ASSIGN_OR_RETURN(m.model_dir, io::ResolveModelPath(o.model, o.revision, hub));
  GEMMAD_ASSIGN_OR_RETURN(m.source, model::OpenWeightSource(m.model_dir, /*show_progress=*/true,
                                                            model::MmprojChoice{o.mmproj, o.no_mmproj}));
  // The checkpoint's hints, unless --tokenizer names another place.
  const model::TokenizerHints& hints = m.source->tokenizer_hints();
  std::string tokenizer_dir = hints.tokenizer_dir.empty() ? m.model_dir : hints.tokenizer_dir;
  std::optional<std::string> template_source = hints.chat_template;
  if (o.tokenizer.empty()) {
    GEMMAD_ASSIGN_OR_RETURN(m.tokenizer, LoadSourceTokenizer(*m.source, m.model_dir));
    if (!m.tokenizer) return NotFoundError(m.model_dir + " has no tokenizer.json (name one with --tokenizer)");
  } else if (model::IsGgufPath(o.tokenizer)) {
    // A GGUF file's tokenizer and chat template (vLLM reads one through transformers' gguf_file).
    GEMMAD_ASSIGN_OR_RETURN(io::GgufFile file, io::GgufFile::Open(o.tokenizer));
    GEMMAD_ASSIGN_OR_RETURN(m.tokenizer, tokenizer::TokenizerFromGguf(file.metadata(), o.tokenizer));
    tokenizer_dir = o.tokenizer;
    template_source.reset();
    if (file.metadata().Has("tokenizer.chat_template")) {
      auto t = file.metadata().GetString("tokenizer.chat_template");
      if (!t.ok()) return t.status().WithPrefix("--tokenizer " + o.tokenizer);
      template_source = std::move(*t);
    }
  } else {
    GEMMAD_ASSIGN_OR_RETURN(tokenizer_dir,
                            io::ResolveModelPath(o.tokenizer, o.tokenizer_revision.empty() ? o.revision
                                                                                           : o.tokenizer_revision,
                                                 hub, "tokenizer.json"));
    GEMMAD_ASSIGN_OR_RETURN(template_source, FindCheckpointChatTemplate(tokenizer_dir));
    GEMMAD_ASSIGN_OR_RETURN(m.tokenizer, tokenizer::Tokenizer::Load(tokenizer_dir));
  }
  if (!o.chat_template.empty()) {
    auto t = tmpl::LoadChatTemplate(o.chat_template);
    if (!t.ok()) return t.status().WithPrefix("--chat-template");
    m.chat_template = std::move(*t);
    return m;
  }
  if (template_source) {
    auto t = tmpl::MakeChatTemplate(*template_source, "checkpoint");
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
