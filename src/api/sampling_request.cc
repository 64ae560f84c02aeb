// ReadSamplingFields: vLLM's shared request fields and their pydantic validators.
#include "api/sampling_request.h"

#include <fmt/format.h>

namespace gemmad::api {
namespace {

void ReadLogitBias(FieldReader& r, SamplingRequest* out) {
  const Json* bias = r.Object("logit_bias");
  if (bias == nullptr) return;
  for (auto it = bias->begin(); it != bias->end(); ++it) {
    const std::string& key = it.key();
    bool numeric = !key.empty();
    for (size_t i = 0; i < key.size(); ++i) {
      char c = key[i];
      if (!((c >= '0' && c <= '9') || (i == 0 && c == '-' && key.size() > 1))) numeric = false;
    }
    if (!numeric || key.size() > 18) {
      r.FailValue(fmt::format(
          "Found token_id `{}` in logit_bias but token_id must be an integer or string representing an integer",
          key));
      return;
    }
    if (!it.value().is_number()) {
      r.Fail("logit_bias." + key, "Input should be a valid number");
      return;
    }
    out->logit_bias.emplace_back(std::stoll(key), it.value().get<double>());
  }
}

void ReadStreamOptions(FieldReader& r, SamplingRequest* out) {
  const Json* opts = r.Object("stream_options");
  if (opts == nullptr) return;
  if (!out->stream) {
    r.FailValue("Stream options can only be defined when `stream=True`.");
    return;
  }
  FieldReader o(*opts, "body.stream_options");
  out->include_usage = o.Bool("include_usage").value_or(false);
  out->continuous_usage_stats = o.Bool("continuous_usage_stats").value_or(false);
  if (!o.ok()) r.Fail("stream_options", o.error().status.message());
}

}  // namespace

void ReadSamplingFields(FieldReader& r, bool chat, SamplingRequest* out) {
  out->model = r.String("model");
  out->temperature = r.Float("temperature");
  out->top_p = r.Float("top_p");
  out->min_p = r.Float("min_p");
  out->top_k = r.Int("top_k");
  out->presence_penalty = r.Float("presence_penalty");
  out->frequency_penalty = r.Float("frequency_penalty");
  out->repetition_penalty = r.Float("repetition_penalty");
  out->seed = r.Int("seed");
  out->n = r.Int("n");
  out->max_tokens = r.Int("max_tokens");
  if (chat) {
    if (auto m = r.Int("max_completion_tokens")) out->max_tokens = m;
  }
  out->min_tokens = r.Int("min_tokens");
  out->prompt_logprobs = r.Int("prompt_logprobs");
  out->truncate_prompt_tokens = r.Int("truncate_prompt_tokens");
  out->stop = r.StringOrList("stop").value_or(std::vector<std::string>{});
  out->stop_token_ids = r.IntList("stop_token_ids").value_or(std::vector<int64_t>{});
  ReadLogitBias(r, out);
  out->allowed_token_ids = r.IntList("allowed_token_ids");
  out->bad_words = r.StringList("bad_words").value_or(std::vector<std::string>{});
  out->ignore_eos = r.Bool("ignore_eos").value_or(false);
  out->include_stop_str_in_output = r.Bool("include_stop_str_in_output").value_or(false);
  out->skip_special_tokens = r.Bool("skip_special_tokens").value_or(true);
  out->spaces_between_special_tokens = r.Bool("spaces_between_special_tokens").value_or(true);
  out->stream = r.Bool("stream").value_or(false);
  ReadStreamOptions(r, out);
  out->return_tokens_as_token_ids = r.Bool("return_tokens_as_token_ids").value_or(false);
  out->return_token_ids = r.Bool("return_token_ids").value_or(false);
  out->use_beam_search = r.Bool("use_beam_search").value_or(false);
  out->request_id = r.String("request_id");
  out->cache_salt = r.String("cache_salt");
  out->thinking_token_budget = r.Int("thinking_token_budget");
  out->priority = r.Int("priority").value_or(0);
  if (const Json* rf = r.Object("response_format")) out->response_format = *rf;
  if (const Json* so = r.Object("structured_outputs")) out->structured_outputs = *so;
  r.Float("length_penalty");  // type-checked only (beam search)
  r.String("user");

  if (!r.ok()) return;
  if (out->prompt_logprobs) {
    if (out->stream) r.FailValue("`prompt_logprobs` are not available when `stream=True`.");
    if (*out->prompt_logprobs < 0 && *out->prompt_logprobs != -1) {
      r.FailValue("`prompt_logprobs` must be a positive value or -1.");
    }
  }
  if (out->cache_salt && out->cache_salt->empty()) {
    r.FailValue("Parameter 'cache_salt' must be a non-empty string if provided.");
  }
  if (out->structured_outputs.is_object()) {
    int kinds = 0;
    for (const char* k : {"json", "regex", "choice"}) {
      auto it = out->structured_outputs.find(k);
      if (it != out->structured_outputs.end() && !it->is_null()) ++kinds;
    }
    if (kinds > 1) {
      r.FailValue("You can only use one kind of constraints for structured outputs ('json', 'regex' or 'choice').");
    }
  }
  if (out->response_format.is_object()) {
    auto type = out->response_format.find("type");
    if (type != out->response_format.end() && *type == "json_schema" &&
        (!out->response_format.contains("json_schema") || out->response_format["json_schema"].is_null())) {
      r.FailValue("When response_format type is 'json_schema', 'json_schema' must be provided.");
    }
  }
}

}  // namespace gemmad::api
