// ParseChatRequest: vLLM ChatCompletionRequest fields and validators.
#include "api/chat_request.h"

#include <fmt/format.h>

namespace gemmad::api {
namespace {

void ReadToolChoice(FieldReader& r, ChatRequest* out) {
  const Json* tc = r.Raw("tool_choice");
  out->tool_choice_given = tc != nullptr;
  bool has_tools = out->tools.is_array();
  if (tc == nullptr) {
    // vLLM: "auto" when tools are given and tool_choice is omitted, else "none".
    out->tool_choice = has_tools ? ToolChoiceKind::kAuto : ToolChoiceKind::kNone;
    return;
  }
  if (tc->is_string()) {
    const std::string s = tc->get<std::string>();
    if (s == "none") out->tool_choice = ToolChoiceKind::kNone;
    else if (s == "auto") out->tool_choice = ToolChoiceKind::kAuto;
    else if (s == "required") out->tool_choice = ToolChoiceKind::kRequired;
    else return r.Fail("tool_choice", "Input should be 'none', 'auto' or 'required'");
  } else if (tc->is_object()) {
    FieldReader t(*tc, "body.tool_choice");
    const Json* fn = t.Object("function");
    std::optional<std::string> name;
    if (fn != nullptr) name = FieldReader(*fn, "body.tool_choice.function").String("name");
    if (!name) return r.Fail("tool_choice.function.name", "Field required");
    out->tool_choice = ToolChoiceKind::kNamed;
    out->tool_choice_name = *name;
  } else {
    return r.Fail("tool_choice", "Input should be a valid string or object");
  }
  if (out->tool_choice != ToolChoiceKind::kNone && !has_tools) {
    return r.FailValue("When using `tool_choice`, `tools` must be set.");
  }
  if (out->tool_choice == ToolChoiceKind::kNamed) {
    for (const Json& tool : out->tools) {
      if (tool.is_object() && tool.contains("function") && tool["function"].is_object() &&
          tool["function"].value("name", "") == out->tool_choice_name) {
        return;
      }
    }
    r.FailValue(fmt::format("Tool '{}' has not been passed in `tools`.", out->tool_choice_name));
  }
}

void ReadTools(FieldReader& r, ChatRequest* out) {
  const Json* tools = r.Raw("tools");
  if (tools == nullptr) return;
  if (!tools->is_array()) return r.Fail("tools", "Input should be a valid list");
  if (tools->empty()) return r.FailValue("`tools` must not be an empty list; omit it or pass at least one tool.");
  for (size_t i = 0; i < tools->size(); ++i) {
    const Json& t = (*tools)[i];
    std::string loc = fmt::format("tools.{}", i);
    if (!t.is_object()) return r.Fail(loc, "Input should be a valid dictionary");
    if (t.contains("type") && t["type"] != "function") return r.Fail(loc + ".type", "Input should be 'function'");
    if (!t.contains("function") || !t["function"].is_object()) return r.Fail(loc + ".function", "Field required");
    const Json& fn = t["function"];
    if (!fn.contains("name") || !fn["name"].is_string()) return r.Fail(loc + ".function.name", "Field required");
    if (fn.contains("parameters") && !fn["parameters"].is_null() && !fn["parameters"].is_object()) {
      return r.Fail(loc + ".function.parameters", "Input should be a valid dictionary");
    }
  }
  out->tools = *tools;
}

void ReadMessages(FieldReader& r, ChatRequest* out) {
  if (!r.Require("messages")) return;
  const Json& m = *r.Raw("messages");
  if (!m.is_array()) return r.Fail("messages", "Input should be a valid list");
  for (size_t i = 0; i < m.size(); ++i) {
    if (!m[i].is_object()) return r.Fail(fmt::format("messages.{}", i), "Input should be a valid dictionary");
    if (!m[i].contains("role") || !m[i]["role"].is_string()) {
      return r.Fail(fmt::format("messages.{}.role", i), "Field required");
    }
  }
  out->messages = m;
}

}  // namespace

std::optional<ApiError> ParseChatRequest(const Json& body, ChatRequest* out) {
  if (!body.is_object()) return ApiError::Validation("body: Input should be a valid dictionary");
  FieldReader r(body);
  ReadMessages(r, out);
  ReadSamplingFields(r, /*chat=*/true, &out->sampling);
  ReadTools(r, out);
  if (r.ok()) ReadToolChoice(r, out);
  out->parallel_tool_calls = r.Bool("parallel_tool_calls").value_or(true);
  out->logprobs = r.Bool("logprobs").value_or(false);
  out->top_logprobs = r.Int("top_logprobs");
  out->echo = r.Bool("echo").value_or(false);
  out->add_generation_prompt = r.Bool("add_generation_prompt").value_or(true);
  out->continue_final_message = r.Bool("continue_final_message").value_or(false);
  out->add_special_tokens = r.Bool("add_special_tokens").value_or(false);
  out->chat_template = r.String("chat_template");
  if (const Json* k = r.Object("chat_template_kwargs")) out->chat_template_kwargs = *k;
  out->include_reasoning = r.Bool("include_reasoning").value_or(true);
  r.String("reasoning_effort");
  if (const Json* k = r.Object("mm_processor_kwargs")) out->mm_processor_kwargs = *k;
  if (const Json* k = r.Object("media_io_kwargs")) out->media_io_kwargs = *k;
  if (!r.ok()) return r.error();

  if (out->top_logprobs) {
    if (*out->top_logprobs < 0 && *out->top_logprobs != -1) {
      r.FailValue("`top_logprobs` must be a positive value or -1.");
    } else if (*out->top_logprobs != 0 && !out->logprobs) {
      r.FailValue("when using `top_logprobs`, `logprobs` must be set to true.");
    }
  }
  if (out->continue_final_message && out->add_generation_prompt) {
    r.FailValue("Cannot set both `continue_final_message` and `add_generation_prompt` to True.");
  }
  if (!r.ok()) return r.error();
  return std::nullopt;
}

}  // namespace gemmad::api
