// Engine-internal records of a request: what Submit hands to the engine thread (PendingRequest)
// and what the engine thread keeps while the request runs (RequestRecord, one ChildState per
// output sequence). Only the engine thread touches a RequestRecord.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/stopwatch.h"
#include "engine/output_channel.h"
#include "kv/types.h"
#include "mm/item.h"
#include "sample/logprobs.h"
#include "sample/sampling_params.h"
#include "sample/token_constraint.h"

namespace gemmad::engine {

struct PendingRequest {
  uint64_t id = 0;
  std::shared_ptr<OutputChannel> channel;
  std::vector<int32_t> prompt;
  sample::SamplingParams params;  // Normalized, Validated, max_tokens resolved
  std::vector<std::unique_ptr<sample::TokenConstraint>> constraints;  // n entries or empty
  std::string cache_salt;
  std::vector<mm::Item> mm_items;
  Clock::time_point arrival;
};

struct ChildState {
  kv::SeqId seq_id = 0;
  bool finished = false;
  bool scheduled = false;   // seen in a SchedulerOutput at least once
  int32_t num_output = 0;
  int32_t num_cached = 0;
  Clock::time_point first_scheduled, first_token, last_token;
  bool wants_prompt_logprobs = false;
  bool prompt_logprobs_sent = false;
  std::vector<std::optional<sample::TokenLogprobs>> prompt_logprobs;  // [num_prompt]
};

struct RequestRecord {
  uint64_t id = 0;
  std::shared_ptr<OutputChannel> channel;
  Clock::time_point arrival;
  int32_t num_prompt = 0;
  int32_t max_tokens = 0;
  int32_t n = 1;
  int32_t num_finished = 0;
  std::vector<ChildState> children;
};

}  // namespace gemmad::engine
