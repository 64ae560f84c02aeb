// PrepareChat (see chat_prepare.h).
#include "api/chat_prepare.h"

#include <fmt/format.h>

#include "api/chat_media.h"
#include "api/media_prompt.h"
#include "api/request_common.h"
#include "api/structured_output.h"
#include "base/log.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api {
namespace {

std::optional<ApiError> CheckToolChoice(const ServingContext& ctx, const ChatRequest& r) {
  const ServingOptions& o = ctx.options;
  if (r.tool_choice == ToolChoiceKind::kAuto && !(o.enable_auto_tool_choice && !o.tool_call_parser.empty())) {
    return ApiError::BadRequest(
        "\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set");
  }
  if (r.tool_choice == ToolChoiceKind::kRequired && o.tool_call_parser.empty()) {
    return ApiError::BadRequest("tool_choice=\"required\" requires --tool-call-parser to be set");
  }
  // A named choice is constrained to the model's native call syntax, which only the tool-call
  // parser turns into tool_calls (chat-format.md §8).
  if (r.tool_choice == ToolChoiceKind::kNamed && o.tool_call_parser.empty()) {
    return ApiError::BadRequest("a named tool_choice requires --tool-call-parser to be set");
  }
  if (r.sampling.use_beam_search) return ApiError::BadRequest("beam search is not supported by gemmad", "use_beam_search");
  if (r.chat_template && !o.trust_request_chat_template) {
    return ApiError::BadRequest(
        "Chat template is passed with request, but --trust-request-chat-template is not set. Refused request with "
        "untrusted chat template.");
  }
  return std::nullopt;
}

// The last message's text for echo (string content, or text parts joined with "\n").
std::string LastMessageText(const Json& messages) {
  if (!messages.is_array() || messages.empty()) return "";
  const Json& content = messages.back().value("content", Json());
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array()) {
    bool first = true;
    for (const Json& part : content) {
      if (part.is_object() && part.value("type", "") == "text" && part.contains("text") && part["text"].is_string()) {
        if (!first) out += "\n";
        out += part["text"].get<std::string>();
        first = false;
      }
    }
  }
  return out;
}

}  // namespace

// True when some message has list content (the only place media parts can be).
bool HasListContent(const Json& messages) {
  if (!messages.is_array()) return false;
  for (const Json& m : messages) {
    if (m.is_object() && m.contains("content") && m["content"].is_array()) return true;
  }
  return false;
}

std::optional<ApiError> RenderAndTokenize(const ServingContext& ctx, const ChatRenderInput& in, std::string* text,
                                          std::vector<int32_t>* ids, std::vector<mm::Item>* items,
                                          std::vector<double>* audio_seconds) {
  // Media parts become {"type": "image"|"video"|"audio"} items for the template, and are loaded
  // before rendering (their soft-token counts decide the expanded prompt).
  const Json* messages = in.messages;
  Json rewritten;
  std::vector<MediaPart> parts;
  LoadedMedia media;
  if (HasListContent(*in.messages)) {
    rewritten = *in.messages;
    if (auto e = ExtractMediaParts(&rewritten, &parts)) return e;
    messages = &rewritten;
    if (auto e = CheckAudioTower(ctx.media, parts)) return e;
    if (auto e = CheckMediaCounts(parts, ctx.media.limit_per_prompt)) return e;
    if (auto e = LoadMedia(ctx.media, parts, in.mm_processor_kwargs, in.media_io_kwargs, in.client_gone, &media)) {
      return e;
    }
    if (audio_seconds != nullptr) {
      for (const mm::PreparedAudio& a : media.audios) audio_seconds->push_back(static_cast<double>(a.source_samples) / 16000.0);
    }
  }
  std::optional<tmpl::ChatTemplate> request_template;
  if (in.chat_template) {
    auto t = tmpl::MakeChatTemplate(*in.chat_template, "request");
    if (!t.ok()) return ApiError::BadRequest(t.status().message());
    request_template = std::move(*t);
  }
  const tmpl::ChatTemplate* chat_template = request_template ? &*request_template
                                            : ctx.chat_template ? &*ctx.chat_template
                                                                : nullptr;
  if (chat_template == nullptr) {
    return ApiError::BadRequest(
        "As of transformers v4.44, default chat template is no longer allowed, so you must provide a chat template "
        "if the tokenizer does not define one.");
  }
  tmpl::RenderOptions options = ctx.render_options;
  options.add_generation_prompt = in.add_generation_prompt;
  options.continue_final_message = in.continue_final_message;
  static const Json kNull;
  auto rendered = tmpl::RenderChat(*chat_template, *messages, in.tools ? *in.tools : kNull,
                                   in.chat_template_kwargs ? *in.chat_template_kwargs : kNull, options);
  if (!rendered.ok()) {
    // vLLM answers the Jinja exception's own text (e.g. "list object has no element 0" for an
    // empty `messages` list); where in the template it happened goes to the log only.
    GEMMAD_LOG_INFO("chat template: {}", rendered.status().message());
    return ApiError::BadRequest(std::string(chat_template->tmpl.WithoutLocation(rendered.status().message())));
  }
  *text = std::move(*rendered);
  if (!parts.empty()) {
    if (auto e = ExpandPlaceholders(media, text)) return e;
  }
  *ids = ctx.tokenizer->Encode(*text, in.add_special_tokens);
  if (!parts.empty()) {
    std::vector<mm::Item> built;
    if (auto e = BuildItems(ctx.media, media, *ids, &built)) return e;
    if (items != nullptr) *items = std::move(built);
  }
  return std::nullopt;
}

std::optional<ApiError> PrepareChat(const ServingContext& ctx, const ApiCall& call, PreparedChat* out) {
  Json body;
  if (auto e = DecodeBody(call.body, ctx.limits.max_json_depth, &body)) return e;
  return PrepareChatBody(ctx, call, body, out);
}

std::optional<ApiError> PrepareChatBody(const ServingContext& ctx, const ApiCall& call, const Json& body,
                                        PreparedChat* out, std::optional<std::string> request_id) {
  ChatRequest& r = out->request;
  if (auto e = ParseChatRequest(body, &r)) return e;
  if (auto e = CheckModel(ctx, r.sampling.model)) return e;
  if (auto e = CheckTools(&r.tools, ctx.limits)) return e;
  if (auto e = CheckStopStrings(r.sampling.stop, ctx.limits)) return e;
  if (auto e = CheckSequences(1, r.sampling.n, ctx.limits)) return e;
  if (auto e = CheckToolChoice(ctx, r)) return e;
  out->created = UnixNow();
  out->request_id = request_id ? std::move(*request_id) : MakeRequestId("chatcmpl", call, r.sampling.request_id);
  out->role = (r.add_generation_prompt || r.messages.empty())
                  ? ctx.options.response_role
                  : r.messages.back().value("role", ctx.options.response_role);
  bool drop_tools = r.tool_choice == ToolChoiceKind::kNone && ctx.options.exclude_tools_when_tool_choice_none;
  ChatRenderInput in;
  in.messages = &r.messages;
  in.tools = drop_tools ? nullptr : &r.tools;
  in.chat_template_kwargs = &r.chat_template_kwargs;
  in.chat_template = r.chat_template;
  in.add_generation_prompt = r.add_generation_prompt;
  in.continue_final_message = r.continue_final_message;
  in.add_special_tokens = r.add_special_tokens;
  in.mm_processor_kwargs = &r.mm_processor_kwargs;
  in.media_io_kwargs = &r.media_io_kwargs;
  in.client_gone = call.client_gone;
  if (auto e = RenderAndTokenize(ctx, in, &out->prompt_text, &out->prompt_ids, &out->mm_items)) return e;
  if (r.echo && !r.messages.empty() && r.messages.back().value("role", "") == out->role) {
    out->echo_text = LastMessageText(r.messages);
  }

  SamplingInputs s;
  s.request = &r.sampling;
  s.defaults = &ctx.generation_defaults;
  s.limits = &ctx.engine->limits();
  s.tokenizer = ctx.tokenizer;
  s.prompt_ids = &out->prompt_ids;
  s.mm_items = &out->mm_items;
  if (r.logprobs) s.logprobs = static_cast<int32_t>(r.top_logprobs.value_or(0));
  if (r.sampling.prompt_logprobs) s.prompt_logprobs = static_cast<int32_t>(*r.sampling.prompt_logprobs);
  if (auto e = BuildSampling(s, &out->sampling)) return e;
  ConstraintInputs ci;
  ci.body = &body;
  ci.chat = true;
  ci.parallel_tool_calls = r.parallel_tool_calls;
  ci.prompt_ids = out->prompt_ids;
  ci.cancelled = call.client_gone;
  if (auto e = BuildConstraint(ctx, ci, &out->make_constraint)) return e;
  if (ctx.options.enable_log_requests) {
    std::string shown = out->prompt_text;
    if (ctx.options.max_log_len && shown.size() > static_cast<size_t>(*ctx.options.max_log_len)) {
      shown.resize(static_cast<size_t>(*ctx.options.max_log_len));
    }
    GEMMAD_LOG_INFO("Received request {}: prompt: {:?}, prompt_token_ids: {} tokens, max_tokens: {}",
                    out->request_id, shown, out->prompt_ids.size(), out->sampling.params().max_tokens.value_or(0));
  }
  return std::nullopt;
}

}  // namespace gemmad::api
