// RenderChat: normalise the request, build the template context the way vLLM + transformers do
// (special tokens, surviving chat_template_kwargs, messages/tools/documents/
// add_generation_prompt), render, and apply transformers' continue_final_message cut.
#include <string>

#include "template/chat_template.h"
#include "template/unicode.h"

namespace gemmad::tmpl {
namespace {

constexpr std::string_view kContinueTag = "CONTINUE_FINAL_MESSAGE_TAG ";

bool IsReserved(const std::string& key) {
  return key == "messages" || key == "tools" || key == "documents" ||
         key == "add_generation_prompt" || key == "continue_final_message";
}

// vLLM's merge_kwargs(defaults, request): request values that are null do not override.
Result<Json> MergeKwargs(const Json& defaults, const Json& request) {
  Json merged = Json::object();
  for (const Json* src : {&defaults, &request}) {
    if (src->is_null()) continue;
    GEMMAD_RETURN_IF_ERROR(CheckJsonDepth(*src, "chat_template_kwargs"));
    if (!src->is_object()) {
      return InvalidArgumentError(src == &defaults ? "--default-chat-template-kwargs: expected a JSON object"
                                                   : "chat_template_kwargs: expected an object");
    }
    for (auto it = src->begin(); it != src->end(); ++it) {
      if (src == &request && it.value().is_null()) continue;
      merged[it.key()] = it.value();
    }
  }
  std::string unexpected;
  for (const char* key : {"chat_template", "tokenize"}) {
    if (merged.contains(key)) unexpected += std::string(unexpected.empty() ? "" : ", ") + "'" + key + "'";
  }
  if (!unexpected.empty()) {
    return InvalidArgumentError("Found unexpected chat template kwargs from request: {" + unexpected + "}");
  }
  return merged;
}

// Appends the continuation tag to the final message's text (last text part for list content).
// Returns the original final text.
Result<std::string> TagFinalMessage(Json& messages) {
  if (messages.empty()) return InvalidArgumentError("continue_final_message is set but the conversation is empty");
  Json& last = messages.back();
  auto content = last.find("content");
  if (content == last.end() || content->is_null()) {
    return InvalidArgumentError("continue_final_message is set but the final message has no \"content\" to continue");
  }
  if (content->is_string()) {
    std::string original = *content;
    *content = original + std::string(kContinueTag);
    return original;
  }
  if (content->is_array()) {
    for (auto it = content->rbegin(); it != content->rend(); ++it) {
      if (it->is_object() && it->contains("text") && (*it)["text"].is_string()) {
        std::string original = (*it)["text"];
        (*it)["text"] = original + std::string(kContinueTag);
        return original;
      }
    }
  }
  return InvalidArgumentError("continue_final_message is set but we could not find any text to continue in the final message");
}

std::string_view StripView(std::string_view s) { return internal::PyStrip(s, true, true); }

}  // namespace

Result<std::string> RenderChat(const ChatTemplate& chat_template, const Json& request_messages,
                               const Json& tools_or_null, const Json& chat_template_kwargs,
                               const RenderOptions& options) {
  if (options.add_generation_prompt && options.continue_final_message) {
    return InvalidArgumentError("Cannot set both `continue_final_message` and `add_generation_prompt` to True.");
  }
  ContentFormat format = options.content_format == ContentFormat::kAuto ? chat_template.detected_format
                                                                        : options.content_format;
  auto messages = NormalizeMessages(request_messages, format);
  if (!messages.ok()) return messages.status();
  auto tools = NormalizeTools(tools_or_null);
  if (!tools.ok()) return tools.status();
  auto kwargs = MergeKwargs(options.default_kwargs, chat_template_kwargs);
  if (!kwargs.ok()) return kwargs.status();

  const Template& tmpl = chat_template.tmpl;
  std::string final_text;
  if (options.continue_final_message) {
    if (tmpl.source().find("content") == std::string::npos) {
      return InvalidArgumentError("continue_final_message is set to \"content\" but this is not an accepted field in the chat_template");
    }
    auto original = TagFinalMessage(*messages);
    if (!original.ok()) return original.status();
    final_text = *original;
  }

  Json context = Json::object();
  for (const auto& [name, value] : options.special_tokens) context[name] = value;
  for (auto it = kwargs->begin(); it != kwargs->end(); ++it) {
    if (!IsReserved(it.key()) && tmpl.ReadsVariable(it.key())) context[it.key()] = it.value();
  }
  context["messages"] = std::move(messages).value();
  context["tools"] = std::move(tools).value();
  context["documents"] = nullptr;
  context["add_generation_prompt"] = options.add_generation_prompt;

  auto rendered = tmpl.Render(context, options.template_options);
  if (!rendered.ok() || !options.continue_final_message) return rendered;

  std::string& out = *rendered;
  std::string_view tag_stripped = StripView(kContinueTag);
  if (out.find(StripView(final_text)) == std::string::npos || out.find(tag_stripped) == std::string::npos) {
    return InvalidArgumentError(
        "continue_final_message is set but the final message does not appear in the chat after "
        "applying the chat template (the template removed part of it)");
  }
  size_t loc = out.rfind(tag_stripped);
  if (out.compare(loc, kContinueTag.size(), kContinueTag) == 0) {
    out.resize(loc);
  } else {
    out.resize(internal::PyStrip(std::string_view(out).substr(0, loc), false, true).size());
  }
  return rendered;
}

}  // namespace gemmad::tmpl
