// Request-limit checks (see request_limits.h).
#include "api/request_limits.h"

#include <fmt/format.h>

#include <algorithm>

namespace gemmad::api {

std::optional<ApiError> CheckTools(const Json* tools, const RequestLimits& limits) {
  if (tools == nullptr || !tools->is_array() || tools->size() <= limits.max_tools) return std::nullopt;
  return ApiError::BadRequest(
      fmt::format("tools: {} tools given, at most {} are allowed (--max-tools)", tools->size(), limits.max_tools),
      "tools");
}

std::optional<ApiError> CheckSequences(size_t num_prompts, std::optional<int64_t> n, const RequestLimits& limits) {
  const int64_t per_prompt = std::max<int64_t>(n.value_or(1), 1);
  if (num_prompts == 0 || per_prompt <= static_cast<int64_t>(limits.max_sequences / num_prompts)) return std::nullopt;
  return ApiError::BadRequest(fmt::format("{} prompt(s) x n = {} asks for more than the {} output sequences one "
                                          "request may have (--max-sequences-per-request)",
                                          num_prompts, per_prompt, limits.max_sequences),
                              "n");
}

std::optional<ApiError> CheckStopStrings(const std::vector<std::string>& stop, const RequestLimits& limits) {
  if (stop.size() > limits.max_stop_strings) {
    return ApiError::BadRequest(fmt::format("stop: {} stop strings given, at most {} are allowed (--max-stop-strings)",
                                            stop.size(), limits.max_stop_strings),
                                "stop");
  }
  for (const std::string& s : stop) {
    if (s.size() > limits.max_stop_string_bytes) {
      return ApiError::BadRequest(
          fmt::format("stop: a stop string of {} bytes is longer than the {} allowed (--max-stop-string-bytes)",
                      s.size(), limits.max_stop_string_bytes),
          "stop");
    }
  }
  return std::nullopt;
}

}  // namespace gemmad::api
