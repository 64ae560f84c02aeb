// BuildSampling (vLLM to_sampling_params / bad-word tokenisation), then the engine's admission check.
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

std::optional<ApiError> BuildSampling(const SamplingInputs& in, BuiltSampling* out) {
  const SamplingRequest& r = *in.request;
  const GenerationDefaults& d = *in.defaults;
  sample::SamplingParams p;
  for (const std::string& s : r.stop) {
    if (s.empty()) return ApiError::BadRequest("stop cannot contain an empty string.", "stop");
  }
  for (auto [name, v] : {std::pair{"n", r.n.value_or(1)}, std::pair{"top_k", Pick<int64_t>(r.top_k, d.top_k, 0)},
                         std::pair{"min_tokens", r.min_tokens.value_or(0)},
                         std::pair{"max_tokens", r.max_tokens.value_or(1)}}) {
    if (auto e = CheckInt32(name, v)) return e;
  }
  if (r.max_tokens) p.max_tokens = static_cast<int32_t>(*r.max_tokens);
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
    if (auto e = CheckInt32("stop_token_ids", id)) return e;
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
    if (auto e = CheckInt32("logit_bias", id)) return e;
    p.logit_bias.emplace_back(static_cast<int32_t>(id), static_cast<float>(bias));
  }
  if (r.allowed_token_ids) {
    if (r.allowed_token_ids->empty()) return ApiError::BadRequest("allowed_token_ids is not allowed to be empty.", "allowed_token_ids");
    for (int64_t id : *r.allowed_token_ids) {
      if (auto e = CheckInt32("allowed_token_ids", id)) return e;
      p.allowed_token_ids.push_back(static_cast<int32_t>(id));
    }
  }
  if (!r.bad_words.empty() && in.tokenizer != nullptr) p.bad_words_token_ids = BadWordIds(r.bad_words, *in.tokenizer);

  // The engine's admission check, once, before any further work on the request.
  engine::EngineRequest req;
  req.prompt_token_ids = *in.prompt_ids;
  if (in.mm_items != nullptr) req.mm_items = *in.mm_items;
  req.sampling = std::move(p);
  if (d.max_tokens) req.max_tokens_cap = static_cast<int32_t>(std::clamp<int64_t>(*d.max_tokens, 1, INT32_MAX));
  auto valid = engine::ValidateRequest(*in.limits, std::move(req));
  if (!valid.ok()) {
    const Status& s = valid.status();
    return ApiError::FromStatus(s);
  }
  out->request.emplace(std::move(*valid));
  const sample::SamplingParams& v = out->params();

  TextParams& t = out->text;
  t.stop = r.stop;
  t.include_stop_str_in_output = r.include_stop_str_in_output;
  t.skip_special_tokens = r.skip_special_tokens;
  t.spaces_between_special_tokens = r.spaces_between_special_tokens;
  t.min_tokens = v.min_tokens;
  return std::nullopt;
}

}  // namespace gemmad::api
