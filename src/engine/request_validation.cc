// ValidateRequest: the one admission check of a request (engine_client.h), with vLLM's messages.
#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "engine/engine_client.h"

namespace gemmad::engine {
namespace {

Status Bad(std::string field, std::string message) {
  return Status(StatusCode::kInvalidArgument, std::move(message), std::move(field));
}

// Prompt + max_tokens against max_model_len and the KV capacity. An unset max_tokens becomes the
// room left; then `cap` (the model's default limit) applies.
Status CheckLength(const EngineLimits& limits, int64_t prompt, std::optional<int32_t> cap,
                   sample::SamplingParams* p) {
  const int64_t max_len = limits.max_model_len;
  const int64_t requested = p->max_tokens.value_or(0);
  if (prompt >= max_len || prompt + requested > max_len) {
    return Bad("input_tokens", fmt::format(
        "This model's maximum context length is {} tokens. However, you requested {} output tokens and "
        "your prompt contains {} input tokens, for a total of {} tokens. Please reduce the length of the "
        "input prompt or the number of requested output tokens.",
        max_len, requested, prompt, prompt + requested));
  }
  if (!p->max_tokens) {
    const int64_t room = std::min(max_len, limits.max_kv_sequence_tokens) - prompt;
    if (room < 1) {
      return Bad("input_tokens", fmt::format(
          "The prompt ({} tokens) leaves no room to generate: the KV cache holds at most {} tokens for "
          "one sequence.", prompt, limits.max_kv_sequence_tokens));
    }
    p->max_tokens = static_cast<int32_t>(room);
  }
  if (cap && *cap >= 1) p->max_tokens = std::min(*p->max_tokens, *cap);
  if (p->min_tokens > *p->max_tokens) {
    return Bad("min_tokens", fmt::format("min_tokens must be less than or equal to max_tokens={}, got {}.",
                                         *p->max_tokens, p->min_tokens));
  }
  if (prompt + *p->max_tokens > limits.max_kv_sequence_tokens) {
    return Bad("max_tokens", fmt::format(
        "This request can need {} tokens of KV cache (prompt {} + max_tokens {}), but the KV cache holds "
        "at most {} tokens for one sequence; it could never be scheduled. Reduce the prompt or "
        "max_tokens, or give the server more KV cache space.",
        prompt + *p->max_tokens, prompt, *p->max_tokens, limits.max_kv_sequence_tokens));
  }
  return OkStatus();
}

}  // namespace

Result<ValidatedRequest> ValidateRequest(const EngineLimits& limits, EngineRequest r) {
  const int64_t prompt = static_cast<int64_t>(r.prompt_token_ids.size());
  if (prompt == 0) return Bad("prompt", "The prompt must contain at least one token.");
  for (int32_t t : r.prompt_token_ids) {
    if (t < 0 || t >= limits.vocab_size) {
      return Bad("prompt", fmt::format("Token id {} is out of vocabulary (size {}).", t, limits.vocab_size));
    }
  }
  GEMMAD_RETURN_IF_ERROR(mm::ValidateItems(r.mm_items, prompt));
  for (const mm::Item& item : r.mm_items) {
    if (std::find(limits.modalities.begin(), limits.modalities.end(), item.modality) == limits.modalities.end()) {
      return InvalidArgumentError(fmt::format("This model does not accept {} input.", mm::ModalityName(item.modality)));
    }
    if (item.bidirectional && item.placeholder_length > limits.max_num_batched_tokens) {
      return InvalidArgumentError(fmt::format(
          "The {} takes {} tokens, which must be computed in one step, but --max-num-batched-tokens is {}.",
          mm::ModalityName(item.modality), item.placeholder_length, limits.max_num_batched_tokens));
    }
  }
  GEMMAD_RETURN_IF_ERROR(sample::Validate(r.sampling, limits.sampling));
  r.sampling = sample::Normalized(std::move(r.sampling), limits.vocab_size);
  GEMMAD_RETURN_IF_ERROR(CheckLength(limits, prompt, r.max_tokens_cap, &r.sampling));
  return ValidatedRequest(std::move(r));
}

Result<std::unique_ptr<RequestStream>> EngineClient::Submit(EngineRequest request) {
  GEMMAD_ASSIGN_OR_RETURN(ValidatedRequest v, ValidateRequest(limits(), std::move(request)));
  return Submit(std::move(v));
}

}  // namespace gemmad::engine
