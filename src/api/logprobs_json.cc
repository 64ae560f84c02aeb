// Logprob JSON builders (vLLM _create_chat_logprobs / _create_completion_logprobs).
#include "api/logprobs_json.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "api/stop_strings.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api {
namespace {

Json Bytes(const std::string& s) {
  Json out = Json::array();
  for (unsigned char c : s) out.push_back(static_cast<int>(c));
  return out;
}

}  // namespace

std::string TokenStrings::Get(int32_t id) const {
  if (as_token_ids_) return fmt::format("token_id:{}", id);
  const int32_t one[1] = {id};
  return tokenizer_.Decode(one, /*skip_special_tokens=*/false);
}

double ClampLogprob(float logprob) {
  double v = static_cast<double>(logprob);
  if (std::isnan(v)) return -9999.0;
  return std::max(v, -9999.0);
}

std::vector<sample::TopLogprob> StepEntries(const sample::TokenLogprobs& step) {
  std::vector<sample::TopLogprob> out;
  out.push_back({step.token_id, step.logprob});
  for (const sample::TopLogprob& t : step.top) {
    if (t.token_id != step.token_id) out.push_back(t);
  }
  return out;
}

void AppendChatLogprobs(const std::vector<sample::TokenLogprobs>& steps, int32_t num_top, const TokenStrings& strings,
                        Json* content) {
  for (const sample::TokenLogprobs& step : steps) {
    std::string token = strings.Get(step.token_id);
    Json entry = Json::object();
    entry["token"] = token;
    entry["logprob"] = ClampLogprob(step.logprob);
    entry["bytes"] = Bytes(token);
    Json top = Json::array();
    std::vector<sample::TopLogprob> entries = StepEntries(step);
    for (size_t i = 0; i < entries.size() && static_cast<int64_t>(i) < num_top; ++i) {
      std::string t = strings.Get(entries[i].token_id);
      Json e = Json::object();
      e["token"] = t;
      e["logprob"] = ClampLogprob(entries[i].logprob);
      e["bytes"] = Bytes(t);
      top.push_back(std::move(e));
    }
    entry["top_logprobs"] = std::move(top);
    content->push_back(std::move(entry));
  }
}

void AppendCompletionLogprobs(std::span<const int32_t> ids, const std::vector<std::optional<sample::TokenLogprobs>>& steps,
                              int32_t num_top, const TokenStrings& strings, CompletionLogprobs* out) {
  for (size_t i = 0; i < ids.size(); ++i) {
    const std::optional<sample::TokenLogprobs>& step = i < steps.size() ? steps[i] : std::nullopt;
    std::string token = strings.Get(ids[i]);
    if (!step) {
      out->token_logprobs.push_back(nullptr);
      out->top_logprobs.push_back(nullptr);
    } else {
      out->token_logprobs.push_back(ClampLogprob(step->logprob));
      // vLLM keeps entries i = 0..num_top of the step dict (num_top + 1 of them), keyed by
      // token string (a repeated string keeps its first position and last value).
      Json top = Json::object();
      std::vector<sample::TopLogprob> entries = StepEntries(*step);
      for (size_t k = 0; k < entries.size() && static_cast<int64_t>(k) <= num_top; ++k) {
        top[strings.Get(entries[k].token_id)] = ClampLogprob(entries[k].logprob);
      }
      out->top_logprobs.push_back(std::move(top));
    }
    out->tokens.push_back(token);
    out->text_offset.push_back(out->next_offset);
    out->next_offset += static_cast<int64_t>(Utf8Length(token));
  }
}

Json CompletionLogprobs::ToJson() const {
  Json j = Json::object();
  j["text_offset"] = text_offset;
  j["token_logprobs"] = token_logprobs;
  j["tokens"] = tokens;
  j["top_logprobs"] = top_logprobs;
  return j;
}

Json PromptLogprobsJson(const std::vector<std::optional<sample::TokenLogprobs>>& steps,
                        const tokenizer::Tokenizer& tokenizer) {
  Json out = Json::array();
  TokenStrings strings(tokenizer, false);
  for (const auto& step : steps) {
    if (!step) {
      out.push_back(nullptr);
      continue;
    }
    Json dict = Json::object();
    auto add = [&](int32_t id, float lp, int32_t rank) {
      Json e = Json::object();
      e["logprob"] = ClampLogprob(lp);
      e["rank"] = rank;
      e["decoded_token"] = strings.Get(id);
      dict[std::to_string(id)] = std::move(e);
    };
    add(step->token_id, step->logprob, step->rank);
    for (size_t k = 0; k < step->top.size(); ++k) {
      if (step->top[k].token_id != step->token_id) add(step->top[k].token_id, step->top[k].logprob, static_cast<int32_t>(k + 1));
    }
    out.push_back(std::move(dict));
  }
  return out;
}

}  // namespace gemmad::api
