// The Responses API's objects as vLLM serialises them (every field, nulls included): the
// response object, its usage, and the output items (reasoning, message, function_call).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/request_fields.h"
#include "parse/delta.h"

namespace gemmad::api {

struct ResponsesRequest;

// "<prefix>_<32 hex>" (vLLM: f"{prefix}_{random_uuid()}"): resp, msg, rs, fc.
std::string NewResponsesId(const char* prefix);

// The per-request fields every response object of one request repeats.
struct ResponseHeader {
  std::string id;
  int64_t created_at = 0;
  std::string model;
  double temperature = 1.0;
  double top_p = 1.0;
  int64_t max_output_tokens = 0;
  std::optional<int64_t> top_logprobs;  // the sampling logprobs (null unless requested)
};

// {"id", "created_at", "incomplete_details", "instructions", ..., "usage", "user", ...} in
// vLLM's ResponsesResponse order. `status`: queued, in_progress, completed, incomplete,
// cancelled, failed; incomplete carries incomplete_details {"reason": "max_output_tokens"}.
Json ResponseObject(const ResponseHeader& h, const ResponsesRequest& r, Json output, const std::string& status,
                    Json usage);

Json ResponsesUsage(int64_t input_tokens, int64_t cached_tokens, int64_t output_tokens, int64_t reasoning_tokens);

Json ReasoningItem(const std::string& id, const std::optional<std::string>& text, Json status);
// content: one output_text part, or none when `text` is unset.
Json MessageItem(const std::string& id, const std::optional<std::string>& text, const std::string& status,
                 Json logprobs = nullptr);
Json FunctionCallItem(const std::string& id, const std::string& call_id, const std::string& name,
                      const std::string& arguments, const std::string& status);
Json OutputTextPart(const std::string& text, Json logprobs);
Json ReasoningTextPart(const std::string& text);

// Item ids to use, in order, per kind (the streamed items' ids, so that the final response
// repeats them); a kind with none left gets a new id.
struct ItemIds {
  std::vector<std::string> reasoning, message, function_call;
  std::vector<std::string> call_ids;  // the function calls' call_id (else the parser's)
};

// The output items of a whole generation (vLLM's extract_response_outputs): a reasoning item
// when reasoning is non-empty, a message when content is non-empty, then one function_call per
// parsed call. Without parsers (`parsing` false) one message, with no content part when empty.
Json OutputItems(const parse::ParsedMessage& m, bool parsing, ItemIds ids, Json logprobs);

// Tokens strictly inside <|channel>…<channel|> blocks (vLLM's count_reasoning_tokens).
int64_t CountReasoningTokens(const std::vector<int32_t>& ids, std::optional<int32_t> start,
                             std::optional<int32_t> end);

}  // namespace gemmad::api
