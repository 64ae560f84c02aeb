// Logprob objects in the OpenAI shapes vLLM produces: chat `logprobs.content[]`, completion
// `{text_offset, token_logprobs, tokens, top_logprobs}` and the raw `prompt_logprobs` list.
// Token strings are tokenizer.decode([id]) (special tokens kept), or "token_id:<id>" with
// return_tokens_as_token_ids; logprobs are clamped to >= -9999.0.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sample/logprobs.h"

namespace gemmad::tokenizer {
class Tokenizer;
}  // namespace gemmad::tokenizer

namespace gemmad::api {

using Json = nlohmann::ordered_json;

class TokenStrings {
 public:
  TokenStrings(const tokenizer::Tokenizer& tokenizer, bool as_token_ids)
      : tokenizer_(tokenizer), as_token_ids_(as_token_ids) {}
  std::string Get(int32_t id) const;

 private:
  const tokenizer::Tokenizer& tokenizer_;
  bool as_token_ids_;
};

// vLLM's per-step dict: the sampled token first, then the top-k without a duplicate of it.
std::vector<sample::TopLogprob> StepEntries(const sample::TokenLogprobs& step);
double ClampLogprob(float logprob);

// Appends one chat logprobs entry per token to `content` (an array). `num_top` = top_logprobs.
void AppendChatLogprobs(const std::vector<sample::TokenLogprobs>& steps, int32_t num_top,
                        const TokenStrings& strings, Json* content);

// Completion logprobs of a token run. A nullopt step (first prompt token) has no logprob.
// `text_offset` continues from `initial_offset` (characters), as vLLM streaming does.
struct CompletionLogprobs {
  Json text_offset = Json::array();
  Json token_logprobs = Json::array();
  Json tokens = Json::array();
  Json top_logprobs = Json::array();
  int64_t next_offset = 0;
  Json ToJson() const;
};
void AppendCompletionLogprobs(std::span<const int32_t> ids,
                              const std::vector<std::optional<sample::TokenLogprobs>>& steps, int32_t num_top,
                              const TokenStrings& strings, CompletionLogprobs* out);

// The `prompt_logprobs` field: [null, {"<id>": {"logprob", "rank", "decoded_token"}, ...}, ...].
Json PromptLogprobsJson(const std::vector<std::optional<sample::TokenLogprobs>>& steps,
                        const tokenizer::Tokenizer& tokenizer);

}  // namespace gemmad::api
