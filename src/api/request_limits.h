// RequestLimits: the bounds every OpenAI request is held to before work starts (issue 29), so
// that one hostile request costs bounded time and memory and gets a 400, never the process.
// Filled from `gemmad serve`'s request-limit flags (cli/serve_flags_limits.cc); plain data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/api_error.h"
#include "api/request_fields.h"
#include "base/json_depth.h"
#include "constrain/compile_budget.h"

namespace gemmad::api {

struct RequestLimits {
  int max_json_depth = kDefaultMaxJsonDepth;  // --max-request-json-depth: the body, and JSON inside strings
  size_t max_tools = 128;                     // --max-tools
  size_t max_stop_strings = 64;               // --max-stop-strings
  size_t max_stop_string_bytes = 1024;        // --max-stop-string-bytes: each stop string
  size_t max_sequences = 1024;                // --max-sequences-per-request: prompts x n
  constrain::CompileBudget compile;           // --structured-outputs-{compile-timeout,max-compile-bytes,max-nesting}
};

// 400 naming `tools` when the list is longer than max_tools; `tools` may be null or not a list.
std::optional<ApiError> CheckTools(const Json* tools, const RequestLimits& limits);
// 400 naming `n` when `num_prompts` x `n` output sequences are more than max_sequences.
std::optional<ApiError> CheckSequences(size_t num_prompts, std::optional<int64_t> n, const RequestLimits& limits);
// 400 naming `stop` when there are too many stop strings or one is too long.
std::optional<ApiError> CheckStopStrings(const std::vector<std::string>& stop, const RequestLimits& limits);

}  // namespace gemmad::api
