// ParseCompletionRequest: vLLM CompletionRequest fields and validators.
#include "api/completion_request.h"

#include <fmt/format.h>

namespace gemmad::api {
namespace {

constexpr const char* kEmptyPrompt = "Either prompt or prompt_embeds must be provided and non-empty.";

bool TokenList(const Json& v, std::vector<int64_t>* out) {
  if (!v.is_array()) return false;
  for (const Json& e : v) {
    if (!e.is_number_integer()) return false;
    out->push_back(e.get<int64_t>());
  }
  return true;
}

// prompt: str | list[str] | list[int] | list[list[int]].
void ReadPrompts(FieldReader& r, CompletionRequest* out) {
  const Json* p = r.Raw("prompt");
  if (p == nullptr) {
    if (r.Has("prompt_embeds")) return r.FailValue("prompt_embeds is not supported by gemmad.");
    return r.FailValue(kEmptyPrompt);
  }
  if (p->is_string()) {
    // vLLM's validate_prompt_and_prompt_embeds: a top-level "" is empty (an empty string inside
    // a list of prompts is not checked there and becomes just BOS).
    if (p->get_ref<const std::string&>().empty()) return r.FailValue(kEmptyPrompt);
    out->prompts.push_back({false, p->get<std::string>(), {}});
  } else if (p->is_array() && !p->empty() && (*p)[0].is_number_integer()) {
    PromptInput in{true, {}, {}};
    if (!TokenList(*p, &in.tokens)) return r.Fail("prompt", "Input should be a valid list of integers");
    out->prompts.push_back(std::move(in));
  } else if (p->is_array()) {
    for (size_t i = 0; i < p->size(); ++i) {
      const Json& e = (*p)[i];
      if (e.is_string()) {
        out->prompts.push_back({false, e.get<std::string>(), {}});
      } else {
        PromptInput in{true, {}, {}};
        if (!TokenList(e, &in.tokens)) {
          return r.Fail(fmt::format("prompt.{}", i), "Input should be a valid string or list of integers");
        }
        out->prompts.push_back(std::move(in));
      }
    }
  } else {
    return r.Fail("prompt", "Input should be a valid string or list");
  }
  if (out->prompts.empty()) return r.FailValue(kEmptyPrompt);
  for (const PromptInput& in : out->prompts) {
    if (in.is_tokens && in.tokens.empty()) return r.FailValue(kEmptyPrompt);
  }
}

}  // namespace

std::optional<ApiError> ParseCompletionRequest(const Json& body, CompletionRequest* out) {
  if (!body.is_object()) return ApiError::Validation("body: Input should be a valid dictionary");
  FieldReader r(body);
  ReadPrompts(r, out);
  ReadSamplingFields(r, /*chat=*/false, &out->sampling);
  if (!body.contains("max_tokens")) out->sampling.max_tokens = 16;  // explicit null: unbounded
  out->logprobs = r.Int("logprobs");
  out->echo = r.Bool("echo").value_or(false);
  out->add_special_tokens = r.Bool("add_special_tokens").value_or(true);
  out->suffix = r.String("suffix");
  if (!r.ok()) return r.error();
  if (out->logprobs && *out->logprobs < 0 && *out->logprobs != -1) {
    r.FailValue("`logprobs` must be a positive value or -1.");
  }
  if (!r.ok()) return r.error();
  return std::nullopt;
}

}  // namespace gemmad::api
