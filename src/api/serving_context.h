// ServingContext: everything the OpenAI handlers share for the server's lifetime (options from
// the command line, the engine client, tokenizer, chat template, generation defaults), and
// ApiCall, one HTTP request as the handlers see it. Built once by `gemmad serve`; read-only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/form_part.h"
#include "api/generation_defaults.h"
#include "api/media_serving.h"
#include "api/request_limits.h"
#include "engine/engine_client.h"
#include "template/chat_template.h"

namespace gemmad::tokenizer {
class Tokenizer;
}  // namespace gemmad::tokenizer

namespace gemmad::api {

class StructuredOutputs;  // api/structured_output.h
class ResponsesStore;     // api/responses_store.h

struct ServingOptions {
  std::vector<std::string> served_model_names;  // never empty; responses report the first
  std::string model_root;                       // the model argument (/v1/models "root")
  std::string response_role = "assistant";
  bool enable_prompt_tokens_details = false;
  bool enable_force_include_usage = false;
  bool trust_request_chat_template = false;
  bool enable_auto_tool_choice = false;
  bool exclude_tools_when_tool_choice_none = false;
  std::string tool_call_parser;   // "" = none
  std::string reasoning_parser;   // "" = none
  bool enable_log_requests = false;
  std::optional<int64_t> max_log_len;
  int64_t created_unix = 0;  // server start, for /v1/models
};

struct ServingContext {
  ServingOptions options;
  engine::EngineClient* engine = nullptr;
  const tokenizer::Tokenizer* tokenizer = nullptr;
  std::optional<tmpl::ChatTemplate> chat_template;  // unset: chat requests are a 400
  tmpl::RenderOptions render_options;
  GenerationDefaults generation_defaults;
  // Grammar compiler for response_format / structured_outputs / forced tool calls; null: every
  // request is unconstrained (unit tests that do not need it).
  std::shared_ptr<const StructuredOutputs> structured_outputs;
  RequestLimits limits;  // bounds checked before any work starts
  MediaServing media;    // images/videos: what the model takes, limits, sources, budgets
  // Stored /v1/responses objects (internally synchronised); null: storing disabled.
  std::shared_ptr<ResponsesStore> responses_store;

  const std::string& model_name() const { return options.served_model_names.front(); }
  bool IsServedModel(const std::string& name) const;
};

// One request as a handler sees it.
struct ApiCall {
  std::string body;  // a JSON body ("" for the multipart/form-data routes)
  std::string request_id_header;  // X-Request-Id ("" when absent)
  std::chrono::steady_clock::time_point arrival = std::chrono::steady_clock::now();
  // True once the client has gone (long preparation such as grammar compilation stops early);
  // may be empty.
  std::function<bool()> client_gone;
  std::vector<FormPart> form;  // the parts of a multipart/form-data body (the audio routes)
};

}  // namespace gemmad::api
