// ChatChoiceState: per-choice state of a chat generation (decoder, parser, counters), shared by
// the streaming and non-streaming paths, plus the engine-output -> choice-step adapter.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/choice_decoder.h"
#include "api/chat_output.h"
#include "api/request_fields.h"
#include "engine/engine_client.h"

namespace gemmad::api {

struct ChoiceStep {
  std::string text;                            // text sendable now
  std::vector<int32_t> token_ids;              // tokens of this step that count
  std::vector<sample::TokenLogprobs> logprobs;  // one per counted token (when requested)
  bool finished = false;
  std::string finish_reason;  // "stop", "length", "abort", "error" when finished
  Json stop_reason;           // token id, string or null
};

class ChoiceState {
 public:
  ChoiceState(const tokenizer::Tokenizer& tokenizer, const TextParams& text, std::unique_ptr<ChatOutput> output)
      : decoder(tokenizer, text), output(std::move(output)) {}

  // Applies one engine delta; returns nullopt when the choice had already finished (later
  // deltas of a choice stopped by a stop string are ignored).
  std::optional<ChoiceStep> Apply(engine::RequestOutput& out);

  ChoiceDecoder decoder;
  std::unique_ptr<ChatOutput> output;  // null for completions
  bool finished = false;
  std::vector<int32_t> all_token_ids;
  std::vector<sample::TokenLogprobs> all_logprobs;
  std::string finish_reason;
  Json stop_reason;
};

}  // namespace gemmad::api
