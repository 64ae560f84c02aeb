// ParseResponsesRequest and BuildChatBody (see responses_request.h).
#include "api/responses_request.h"

#include <array>
#include <string_view>

#include <fmt/format.h>

namespace gemmad::api {
namespace {

constexpr std::array<std::string_view, 6> kIncludes = {
    "code_interpreter_call.outputs",  "computer_call_output.output.image_url", "file_search_call.results",
    "message.input_image.image_url", "message.output_text.logprobs",          "reasoning.encrypted_content"};

// Fields vLLM's ResponsesRequest takes beyond OpenAI's and hands to SamplingParams unchanged.
constexpr std::array<const char*, 11> kPassthrough = {
    "seed",     "stop",       "repetition_penalty",  "ignore_eos",          "skip_special_tokens",
    "priority", "cache_salt", "mm_processor_kwargs", "structured_outputs", "include_stop_str_in_output",
    "logit_bias"};

void ReadInput(FieldReader& r, const Json& body, ResponsesRequest* out) {
  if (!r.Require("input")) return;
  const Json& in = body["input"];
  if (in.is_string()) {
    out->input = in;
    return;
  }
  if (!in.is_array()) return r.Fail("input", "Input should be a valid string or a valid list");
  if (in.size() > kMaxResponsesInputItems) {
    return r.Fail("input", fmt::format("List should have at most {} items", kMaxResponsesInputItems));
  }
  for (size_t i = 0; i < in.size(); ++i) {
    if (!in[i].is_object()) return r.Fail(fmt::format("input.{}", i), "Input should be a valid dictionary");
  }
  out->input = in;
}

void ReadTools(FieldReader& r, ResponsesRequest* out) {
  const Json* tools = r.Raw("tools");
  if (tools == nullptr) return;
  if (!tools->is_array()) return r.Fail("tools", "Input should be a valid list");
  for (size_t i = 0; i < tools->size(); ++i) {
    const Json& t = (*tools)[i];
    std::string loc = fmt::format("tools.{}", i);
    if (!t.is_object()) return r.Fail(loc, "Input should be a valid dictionary");
    if (!t.contains("type") || !t["type"].is_string()) return r.Fail(loc + ".type", "Field required");
    if (t["type"] != "function") continue;  // built-in tools: no tool server here, ignored as vLLM does
    if (!t.contains("name") || !t["name"].is_string()) return r.Fail(loc + ".name", "Field required");
    if (t.contains("parameters") && !t["parameters"].is_null() && !t["parameters"].is_object()) {
      return r.Fail(loc + ".parameters", "Input should be a valid dictionary");
    }
  }
  out->tools = *tools;
}

bool HasFunctionTool(const Json& tools, const std::string& name) {
  for (const Json& t : tools) {
    if (t.value("type", "") == "function" && t.value("name", "") == name) return true;
  }
  return false;
}

void ReadToolChoice(FieldReader& r, ResponsesRequest* out) {
  const Json* tc = r.Raw("tool_choice");
  if (tc == nullptr) return;
  if (tc->is_string()) {
    const std::string s = tc->get<std::string>();
    if (s != "none" && s != "auto" && s != "required") {
      return r.Fail("tool_choice", "Input should be 'none', 'auto' or 'required'");
    }
  } else if (tc->is_object()) {
    if (tc->value("type", "") == "function") {
      if (!tc->contains("name") || !(*tc)["name"].is_string()) return r.Fail("tool_choice.name", "Field required");
      if (!HasFunctionTool(out->tools, (*tc)["name"].get<std::string>())) {
        return r.FailValue(
            fmt::format("Tool '{}' has not been passed in `tools`.", (*tc)["name"].get<std::string>()));
      }
    }
  } else {
    return r.Fail("tool_choice", "Input should be a valid string or object");
  }
  out->tool_choice = *tc;
}

void ReadText(FieldReader& r, ResponsesRequest* out) {
  const Json* text = r.Object("text");
  if (text == nullptr) return;
  const Json* format = text->contains("format") && !(*text)["format"].is_null() ? &(*text)["format"] : nullptr;
  if (format != nullptr) {
    if (!format->is_object()) return r.Fail("text.format", "Input should be a valid dictionary");
    std::string type = format->value("type", "");
    if (type != "text" && type != "json_schema" && type != "json_object") {
      return r.Fail("text.format.type", "Input should be 'text', 'json_schema' or 'json_object'");
    }
    if (type == "json_schema") {
      if (!format->contains("name") || !(*format)["name"].is_string()) {
        return r.Fail("text.format.name", "Field required");
      }
      if (!format->contains("schema") || !(*format)["schema"].is_object()) {
        return r.Fail("text.format.schema", "Field required");
      }
    }
  }
  out->text = *text;
}

void ReadInclude(FieldReader& r, ResponsesRequest* out) {
  auto include = r.StringList("include");
  if (!include) return;
  for (size_t i = 0; i < include->size(); ++i) {
    const std::string& s = (*include)[i];
    bool known = false;
    for (std::string_view k : kIncludes) known = known || s == k;
    if (!known) return r.Fail(fmt::format("include.{}", i), "Input should be one of the documented include values");
    if (s == "message.output_text.logprobs") out->include_output_logprobs = true;
  }
}

}  // namespace

std::optional<ApiError> ParseResponsesRequest(const Json& body, ResponsesRequest* out) {
  if (!body.is_object()) return ApiError::Validation("body: Input should be a valid dictionary");
  FieldReader r(body);
  // Model validators that run before the fields (mode="before").
  if (body.contains("prompt") && !body["prompt"].is_null()) {
    return ApiError::BadRequest("prompt template is not supported", "prompt");
  }
  if (body.contains("background") && body["background"] == true && body.contains("store") &&
      body["store"] == false) {
    r.FailValue("background can only be used when `store` is true");
    return r.error();
  }
  if (body.contains("cache_salt") && !body["cache_salt"].is_null() &&
      (!body["cache_salt"].is_string() || body["cache_salt"].get<std::string>().empty())) {
    r.FailValue("Parameter 'cache_salt' must be a non-empty string if provided.");
    return r.error();
  }
  ReadInput(r, body, out);
  out->instructions = r.String("instructions");
  out->previous_response_id = r.String("previous_response_id");
  out->model = r.String("model");
  out->stream = r.Bool("stream").value_or(false);
  out->store = r.Bool("store").value_or(true);
  out->background = r.Bool("background").value_or(false);
  ReadTools(r, out);
  if (r.ok()) ReadToolChoice(r, out);
  out->parallel_tool_calls = r.Bool("parallel_tool_calls").value_or(true);
  out->max_output_tokens = r.Int("max_output_tokens");
  out->temperature = r.Float("temperature");
  out->top_p = r.Float("top_p");
  out->top_k = r.Int("top_k");
  out->top_logprobs = r.Int("top_logprobs").value_or(0);
  ReadText(r, out);
  ReadInclude(r, out);
  if (const Json* v = r.Object("reasoning")) out->reasoning = *v;
  if (const Json* v = r.Object("metadata")) out->metadata = *v;
  if (auto v = r.String("user")) out->user = *v;
  if (auto v = r.Int("max_tool_calls")) out->max_tool_calls = *v;
  if (auto v = r.String("truncation")) {
    if (*v != "auto" && *v != "disabled") r.Fail("truncation", "Input should be 'auto' or 'disabled'");
    out->truncation = *v;
  }
  if (auto v = r.String("service_tier")) out->service_tier = *v;
  out->request_id = r.String("request_id");
  if (!r.ok()) return r.error();
  for (const char* key : kPassthrough) {
    if (body.contains(key) && !body[key].is_null()) out->passthrough[key] = body[key];
  }
  return std::nullopt;
}

std::optional<ApiError> BuildChatBody(const ResponsesRequest& r, Json messages, bool auto_tools, Json* body) {
  Json b = r.passthrough;
  bool continue_final = false;
  if (r.input.is_array() && !r.input.empty()) {
    const Json& last = r.input.back();
    std::string type = last.value("type", "message");
    std::string status = last.contains("status") && last["status"].is_string() ? last["status"].get<std::string>() : "";
    continue_final = (type == "message" || type == "reasoning") && (status == "in_progress" || status == "incomplete");
  }
  b["messages"] = std::move(messages);
  if (r.model) b["model"] = *r.model;
  Json tools = Json::array();
  for (const Json& t : r.tools) {
    if (t.value("type", "") != "function") continue;
    // vLLM: FunctionDefinition of the tool without its type (name, description, parameters).
    Json fn = Json{{"name", t["name"]}};
    for (const char* key : {"description", "parameters"}) {
      if (t.contains(key) && !t[key].is_null()) fn[key] = t[key];
    }
    tools.push_back(Json{{"type", "function"}, {"function", std::move(fn)}});
  }
  if (!tools.empty()) {
    b["tools"] = tools;
    const Json& tc = r.tool_choice;
    if (tc.is_string()) {
      // Without --enable-auto-tool-choice vLLM renders the tools and parses no calls.
      b["tool_choice"] = (tc == "auto" && !auto_tools) ? Json("none") : tc;
    } else if (tc.value("type", "") == "function") {
      b["tool_choice"] = Json{{"type", "function"}, {"function", {{"name", tc["name"]}}}};
    }
  }
  b["parallel_tool_calls"] = r.parallel_tool_calls;
  if (r.max_output_tokens) b["max_tokens"] = *r.max_output_tokens;
  if (r.temperature) b["temperature"] = *r.temperature;
  if (r.top_p) b["top_p"] = *r.top_p;
  if (r.top_k) b["top_k"] = *r.top_k;
  if (r.include_output_logprobs) {
    b["logprobs"] = true;
    b["top_logprobs"] = r.top_logprobs;
  }
  if (r.text.is_object() && r.text.contains("format") && r.text["format"].is_object() &&
      r.text["format"].value("type", "") == "json_schema") {
    if (r.passthrough.contains("structured_outputs")) {
      return ApiError::BadRequest("Cannot specify both structured_outputs and text.format");
    }
    b["structured_outputs"] = Json{{"json", r.text["format"]["schema"]}};
  }
  b["add_generation_prompt"] = !continue_final;
  b["continue_final_message"] = continue_final;
  if (r.reasoning.is_object() && r.reasoning.contains("effort") && !r.reasoning["effort"].is_null()) {
    b["chat_template_kwargs"] = Json{{"reasoning_effort", r.reasoning["effort"]}};
  }
  *body = std::move(b);
  return std::nullopt;
}

}  // namespace gemmad::api
