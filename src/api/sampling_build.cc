// BuildSampling (vLLM to_sampling_params / get_max_tokens / bad-word tokenisation).
#include "api/sampling_build.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "base/strings.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api {
namespace {

template <typename T>
T Pick(const std::optional<T>& request, const std::optional<T>& model_default, T fallback) {
  if (request) return *request;
  if (model_default) return *model_default;
  return fallback;
}

std::optional<ApiError> CheckInt32(const char* name, int64_t v) {
  if (v < INT32_MIN || v > INT32_MAX) return ApiError::BadRequest(fmt::format("{} is out of range, got {}.", name, v), name);
  return std::nullopt;
}

// vLLM: every bad word is tokenized as is and with a leading space (when that gives a
// different first token and the same length).
std::vector<std::vector<int32_t>> BadWordIds(const std::vector<std::string>& words, const tokenizer::Tokenizer& tok) {
  std::vector<std::vector<int32_t>> out;
  for (const std::string& word : words) {
    std::string_view stripped = word;
    while (!stripped.empty() && (stripped.front() == ' ' || stripped.front() == '\t' || stripped.front() == '\n')) {
      stripped.remove_prefix(1);
    }
    std::vector<int32_t> plain = tok.Encode(stripped, false);
    if (plain.empty()) continue;
    out.push_back(plain);
    std::vector<int32_t> spaced = tok.Encode(" " + std::string(stripped), false);
    if (!spaced.empty() && spaced[0] != plain[0] && spaced.size() == plain.size()) out.push_back(spaced);
  }
  return out;
}

}  // namespace

std::optional<ApiError> ResolveMaxTokens(std::optional<int64_t> requested, int64_t prompt_len, int64_t max_model_len,
                                         std::optional<int64_t> default_max, int32_t* out) {
  if (requested && *requested < 1) {
    return ApiError::BadRequest(fmt::format("max_tokens must be at least 1, got {}.", *requested), "max_tokens");
  }
  int64_t room = max_model_len - prompt_len;
  if (room <= 0 || (requested && prompt_len + *requested > max_model_len)) {
    return ApiError::BadRequest(
        fmt::format("This model's maximum context length is {} tokens. However, you requested {} output tokens and "
                    "your prompt contains {} input tokens, for a total of {} tokens. Please reduce the length of "
                    "the input prompt or the number of requested output tokens.",
                    max_model_len, requested.value_or(0), prompt_len, prompt_len + requested.value_or(0)),
        "input_tokens");
  }
  int64_t v = room;
  if (requested) v = std::min(v, *requested);
  if (default_max) v = std::min(v, *default_max);
  *out = static_cast<int32_t>(std::clamp<int64_t>(v, 1, INT32_MAX));
  return std::nullopt;
}

std::optional<ApiError> BuildSampling(const SamplingInputs& in, BuiltSampling* out) {
  const SamplingRequest& r = *in.request;
  const GenerationDefaults& d = *in.defaults;
  sample::SamplingParams& p = out->params;
  for (const std::string& s : r.stop) {
    if (s.empty()) return ApiError::BadRequest("stop cannot contain an empty string.", "stop");
  }
  int32_t max_tokens = 0;
  if (auto e = ResolveMaxTokens(r.max_tokens, in.prompt_len, in.limits->max_model_len, d.max_tokens, &max_tokens)) {
    return e;
  }
  p.max_tokens = max_tokens;
  for (auto [name, v] : {std::pair{"n", r.n.value_or(1)}, std::pair{"top_k", Pick<int64_t>(r.top_k, d.top_k, 0)},
                         std::pair{"min_tokens", r.min_tokens.value_or(0)}}) {
    if (auto e = CheckInt32(name, v)) return e;
  }
  p.n = static_cast<int32_t>(r.n.value_or(1));
  p.temperature = static_cast<float>(Pick(r.temperature, d.temperature, 1.0));
  p.top_p = static_cast<float>(Pick(r.top_p, d.top_p, 1.0));
  p.top_k = static_cast<int32_t>(Pick<int64_t>(r.top_k, d.top_k, 0));
  p.min_p = static_cast<float>(Pick(r.min_p, d.min_p, 0.0));
  p.repetition_penalty = static_cast<float>(Pick(r.repetition_penalty, d.repetition_penalty, 1.0));
  p.presence_penalty = static_cast<float>(r.presence_penalty.value_or(0.0));
  p.frequency_penalty = static_cast<float>(r.frequency_penalty.value_or(0.0));
  p.seed = r.seed;
  p.min_tokens = static_cast<int32_t>(r.min_tokens.value_or(0));
  p.ignore_eos = r.ignore_eos;
  p.logprobs = in.logprobs;
  p.prompt_logprobs = in.prompt_logprobs;
  for (int64_t id : r.stop_token_ids) {
    if (id < 0 || id >= in.limits->vocab_size) {
      return ApiError::BadRequest(fmt::format("stop_token_ids contains token id {} outside the vocabulary (size {}).",
                                              id, in.limits->vocab_size), "stop_token_ids");
    }
    p.stop_token_ids.push_back(static_cast<int32_t>(id));
  }
  if (!r.ignore_eos) {
    // vLLM update_from_generation_config: the generation config's EOS ids other than the
    // primary one stop too (merged as a set; we keep it sorted).
    std::set<int32_t> all(p.stop_token_ids.begin(), p.stop_token_ids.end());
    for (int32_t id : d.eos_token_ids) {
      if (!in.limits->eos_token_id || id != *in.limits->eos_token_id) all.insert(id);
    }
    p.stop_token_ids.assign(all.begin(), all.end());
  }
  for (auto [id, bias] : r.logit_bias) {
    if (id < 0 || id >= in.limits->vocab_size) {
      return ApiError::BadRequest(fmt::format("token_id(s) [{}] in logit_bias contain out-of-vocab token ids. "
                                              "Vocabulary size: {}", id, in.limits->vocab_size), "logit_bias");
    }
    p.logit_bias.emplace_back(static_cast<int32_t>(id), static_cast<float>(bias));
  }
  if (r.allowed_token_ids) {
    if (r.allowed_token_ids->empty()) return ApiError::BadRequest("allowed_token_ids is not allowed to be empty.", "allowed_token_ids");
    for (int64_t id : *r.allowed_token_ids) {
      if (id < 0 || id >= in.limits->vocab_size) {
        return ApiError::BadRequest("allowed_token_ids contains out-of-vocab token id!", "allowed_token_ids");
      }
      p.allowed_token_ids.push_back(static_cast<int32_t>(id));
    }
  }
  if (!r.bad_words.empty() && in.tokenizer != nullptr) p.bad_words_token_ids = BadWordIds(r.bad_words, *in.tokenizer);
  Status valid = sample::Validate(p, in.limits->sampling);
  if (!valid.ok()) return ApiError{valid, ParamFromMessage(valid.message()), false};
  p = sample::Normalized(std::move(p), in.limits->vocab_size);

  TextParams& t = out->text;
  t.stop = r.stop;
  t.include_stop_str_in_output = r.include_stop_str_in_output;
  t.skip_special_tokens = r.skip_special_tokens;
  t.spaces_between_special_tokens = r.spaces_between_special_tokens;
  t.min_tokens = p.min_tokens;
  return std::nullopt;
}

std::optional<std::string> ParamFromMessage(const std::string& message) {
  static const char* const kNames[] = {"temperature", "top_p", "top_k", "min_p", "presence_penalty",
                                       "frequency_penalty", "repetition_penalty", "max_tokens", "min_tokens",
                                       "n", "seed", "logit_bias", "stop_token_ids", "allowed_token_ids"};
  for (const char* name : kNames) {
    std::string prefix = std::string(name) + " ";
    if (message.rfind(prefix, 0) == 0) return std::string(name);
  }
  if (message.find("logprobs") != std::string::npos) return std::string("logprobs");
  return std::nullopt;
}

}  // namespace gemmad::api
