// ServeChat: submit a prepared chat request and write the streaming or full response.
#include "api/chat_serving.h"

#include <memory>
#include <vector>

#include "api/chat_choice_state.h"
#include "api/chat_json.h"
#include "api/chat_prepare.h"
#include "api/logprobs_json.h"
#include "api/request_common.h"
#include "parse/openai_json.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api {
namespace {

struct ChatRun {
  const ServingContext& ctx;
  PreparedChat& p;
  ResponseSink& sink;
  EngineRuns& run;
  std::vector<std::unique_ptr<ChoiceState>> choices;
  ChunkHeader header;
  int32_t num_cached_tokens = 0;
  Json prompt_logprobs;  // null unless requested
};

Json StepLogprobs(const ChatRun& c, const ChoiceStep& step) {
  if (!c.p.request.logprobs) return nullptr;
  Json content = Json::array();
  TokenStrings strings(*c.ctx.tokenizer, c.p.request.sampling.return_tokens_as_token_ids);
  AppendChatLogprobs(step.logprobs, static_cast<int32_t>(c.p.request.top_logprobs.value_or(0)), strings, &content);
  return Json{{"content", std::move(content)}};
}

bool AllFinished(const ChatRun& c) {
  for (const auto& s : c.choices) {
    if (!s->finished) return false;
  }
  return true;
}

// vLLM: "tool_calls" when the tool parser reported a call under tool_choice auto or required
// and the model stopped; a named tool choice keeps "stop".
std::string FinishReason(const ChatRun& c, const ChoiceState& st, const std::string& reason) {
  ToolChoiceKind tc = c.p.request.tool_choice;
  if (reason == "stop" && st.output->num_tool_calls() > 0 &&
      (tc == ToolChoiceKind::kAuto || tc == ToolChoiceKind::kRequired)) {
    return "tool_calls";
  }
  return reason;
}

std::optional<ApiError> ErrorOf(const ChatRun& c) {
  for (const auto& s : c.choices) {
    if (s->finish_reason == "error") return ApiError::Internal("Internal server error");
  }
  return std::nullopt;
}

void SendRoleChunks(ChatRun& c, bool continuous, int64_t prompt_tokens) {
  for (size_t i = 0; i < c.choices.size(); ++i) {
    Json choice = Json::object();
    choice["index"] = i;
    choice["delta"] = Json{{"role", c.p.role}, {"content", ""}};
    choice["logprobs"] = nullptr;
    choice["finish_reason"] = nullptr;
    Json chunk = ChatChunk(c.header, Json::array({std::move(choice)}));
    if (continuous) chunk["usage"] = UsageJson(prompt_tokens, 0, std::nullopt, false);
    chunk["prompt_token_ids"] = c.p.request.sampling.return_token_ids ? Json(c.p.prompt_ids) : Json(nullptr);
    c.sink.SendEvent(DumpJson(chunk));
  }
  if (c.p.echo_text.empty()) return;
  for (size_t i = 0; i < c.choices.size(); ++i) {
    Json choice = Json::object();
    choice["index"] = i;
    choice["delta"] = Json{{"content", c.p.echo_text}};
    choice["logprobs"] = nullptr;
    choice["finish_reason"] = nullptr;
    Json chunk = ChatChunk(c.header, Json::array({std::move(choice)}));
    if (continuous) chunk["usage"] = UsageJson(prompt_tokens, 0, std::nullopt, false);
    c.sink.SendEvent(DumpJson(chunk));
  }
}

void StreamChat(ChatRun& c) {
  const SamplingRequest& s = c.p.request.sampling;
  bool include_usage = s.include_usage || c.ctx.options.enable_force_include_usage;
  bool continuous = include_usage && s.continuous_usage_stats;
  int64_t prompt_tokens = static_cast<int64_t>(c.p.prompt_ids.size());
  bool first = true;
  engine::RequestOutput out;
  size_t which = 0;
  while (!AllFinished(c) && c.run.Next(&which, &out)) {
    if (first) {
      c.num_cached_tokens = out.num_cached_tokens;
      SendRoleChunks(c, continuous, prompt_tokens);
      first = false;
    }
    if (out.index < 0 || static_cast<size_t>(out.index) >= c.choices.size()) continue;
    ChoiceState& state = *c.choices[static_cast<size_t>(out.index)];
    int32_t before = state.decoder.num_tokens();
    std::optional<ChoiceStep> step = state.Apply(out);
    if (!step) continue;
    if (step->finish_reason == "error") break;
    if (step->text.empty() && step->token_ids.empty() && before == 0 && !step->finished) continue;
    Json logprobs = StepLogprobs(c, *step);
    std::optional<parse::Delta> delta = state.output->Step(step->text, step->finished);
    if (!delta) {
      if (!step->finished && logprobs.is_null() && !s.return_token_ids) continue;
      delta = parse::Delta{};
    }
    Json choice = Json::object();
    choice["index"] = out.index;
    choice["delta"] = parse::DeltaToJson(*delta);
    choice["logprobs"] = std::move(logprobs);
    choice["finish_reason"] = step->finished ? Json(FinishReason(c, state, step->finish_reason)) : Json(nullptr);
    if (step->finished) choice["stop_reason"] = step->stop_reason;
    choice["token_ids"] = s.return_token_ids ? Json(step->token_ids) : Json(nullptr);
    Json chunk = ChatChunk(c.header, Json::array({std::move(choice)}));
    if (continuous) chunk["usage"] = UsageJson(prompt_tokens, state.decoder.num_tokens(), std::nullopt, false);
    if (!c.sink.SendEvent(DumpJson(chunk))) return;
  }
  if (c.sink.client_gone()) return;
  c.run.AbortAll(engine::FinishReason::kStop);  // no-op unless a stop string ended every choice
  if (auto e = ErrorOf(c)) return c.sink.SendError(*e);
  if (include_usage) {
    int64_t completion = 0;
    for (const auto& st : c.choices) completion += st->decoder.num_tokens();
    std::optional<int64_t> cached;
    if (c.ctx.options.enable_prompt_tokens_details && c.num_cached_tokens > 0) cached = c.num_cached_tokens;
    Json chunk = ChatChunk(c.header, Json::array());
    chunk["usage"] = UsageJson(prompt_tokens, completion, cached, false);
    c.sink.SendEvent(DumpJson(chunk));
  }
  c.sink.EndStream();
}

void FullChat(ChatRun& c) {
  engine::RequestOutput out;
  size_t which = 0;
  while (!AllFinished(c) && c.run.Next(&which, &out)) {
    if (out.num_cached_tokens > c.num_cached_tokens) c.num_cached_tokens = out.num_cached_tokens;
    if (out.prompt_logprobs) c.prompt_logprobs = PromptLogprobsJson(*out.prompt_logprobs, *c.ctx.tokenizer);
    if (out.index >= 0 && static_cast<size_t>(out.index) < c.choices.size()) {
      c.choices[static_cast<size_t>(out.index)]->Apply(out);
    }
  }
  if (c.sink.client_gone()) return;
  c.run.AbortAll(engine::FinishReason::kStop);
  if (auto e = ErrorOf(c)) return c.sink.SendError(*e);
  const SamplingRequest& s = c.p.request.sampling;
  Json choices = Json::array();
  int64_t completion = 0;
  for (size_t i = 0; i < c.choices.size(); ++i) {
    ChoiceState& st = *c.choices[i];
    completion += st.decoder.num_tokens();
    parse::ParsedMessage msg = st.output->Full(st.decoder.text());
    ToolChoiceKind tc = c.p.request.tool_choice;
    if ((tc == ToolChoiceKind::kRequired || tc == ToolChoiceKind::kNamed) && !msg.content) msg.content = "";
    if (!c.p.echo_text.empty()) msg.content = c.p.echo_text + msg.content.value_or("");
    ChoiceStep all;
    all.logprobs = st.all_logprobs;
    Json choice = Json::object();
    choice["index"] = i;
    choice["message"] = MessageJson(c.p.role, msg);
    choice["logprobs"] = StepLogprobs(c, all);
    choice["finish_reason"] = FinishReason(c, st, st.finish_reason.empty() ? "abort" : st.finish_reason);
    choice["stop_reason"] = st.stop_reason;
    choice["token_ids"] = s.return_token_ids ? Json(st.all_token_ids) : Json(nullptr);
    choices.push_back(std::move(choice));
  }
  int64_t prompt_tokens = static_cast<int64_t>(c.p.prompt_ids.size());
  std::optional<int64_t> cached;
  if (c.ctx.options.enable_prompt_tokens_details && c.num_cached_tokens > 0) cached = c.num_cached_tokens;
  Json r = Json::object();
  r["id"] = c.header.id;
  r["object"] = "chat.completion";
  r["created"] = c.header.created;
  r["model"] = c.header.model;
  r["choices"] = std::move(choices);
  r["service_tier"] = nullptr;
  r["system_fingerprint"] = nullptr;
  r["usage"] = UsageJson(prompt_tokens, completion, cached, true);
  r["prompt_logprobs"] = c.prompt_logprobs;
  r["prompt_token_ids"] = s.return_token_ids ? Json(c.p.prompt_ids) : Json(nullptr);
  r["kv_transfer_params"] = nullptr;
  c.sink.SendJson(DumpJson(r));
}

}  // namespace

void ServeChat(const ServingContext& ctx, const ApiCall& call, ResponseSink& sink) {
  PreparedChat p;
  if (auto e = PrepareChat(ctx, call, &p)) return sink.SendError(*e);
  TextParams text = p.sampling.text;
  std::vector<std::unique_ptr<ChoiceState>> choices;
  for (int32_t i = 0; i < p.sampling.params().n; ++i) {
    std::unique_ptr<ChatOutput> output;
    if (auto e = ChatOutput::Make(ctx, p.request, p.prompt_text, &output)) return sink.SendError(*e);
    // The parsers read protocol markers: special tokens stay in the text (vLLM forces this).
    if (output->parsing()) text.skip_special_tokens = false;
    choices.push_back(std::make_unique<ChoiceState>(*ctx.tokenizer, text, std::move(output)));
  }
  engine::ValidatedRequest req = std::move(*p.sampling.request);
  req.set_request_id(p.request_id);
  req.set_constraint(p.make_constraint);
  req.set_cache_salt(p.request.sampling.cache_salt.value_or(""));
  req.set_arrival_time(call.arrival);
  std::vector<engine::ValidatedRequest> requests;
  requests.push_back(std::move(req));
  std::unique_ptr<EngineRuns> run;
  if (auto e = EngineRuns::Start(ctx, std::move(requests), sink, &run)) return sink.SendError(*e);
  ChatRun c{ctx, p, sink, *run, std::move(choices), {p.request_id, p.created, ctx.model_name()}, 0, nullptr};
  if (p.request.sampling.stream) {
    StreamChat(c);
  } else {
    FullChat(c);
  }
}

}  // namespace gemmad::api
