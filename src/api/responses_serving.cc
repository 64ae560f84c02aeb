// The /v1/responses handlers (see responses_serving.h).
#include "api/responses_serving.h"

#include <memory>
#include <utility>

#include <fmt/format.h>

#include "api/chat_choice_state.h"
#include "api/chat_prepare.h"
#include "api/logprobs_json.h"
#include "api/responses_background.h"
#include "api/request_common.h"
#include "api/responses_output.h"
#include "api/responses_replay.h"
#include "api/responses_request.h"
#include "api/responses_store.h"
#include "api/responses_stream.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api {
namespace {

ApiError NotFound(const std::string& id) {
  return ApiError::InvalidRequest(NotFoundError(fmt::format("Response with id '{}' not found.", id)), "response_id");
}

bool StoreOn(const ServingContext& ctx) { return ctx.responses_store && ctx.responses_store->enabled(); }

struct Run {
  const ServingContext& ctx;
  const ResponsesRequest& r;
  PreparedChat& p;
  ResponseSink& sink;
  EngineRuns& engine;
  ChoiceState& state;
  ResponseHeader header;
  bool store = false;
  int32_t num_cached_tokens = 0;
};

// 40.0f -> 40.0, 0.7f -> 0.7 (the float's shortest decimal, as Python prints the request's).
double Shortest(float v) { return std::stod(fmt::format("{}", v)); }

ResponseHeader MakeHeader(const ServingContext& ctx, const ResponsesRequest& r, const PreparedChat& p) {
  const sample::SamplingParams& s = p.sampling.params();
  ResponseHeader h;
  h.id = p.request_id;
  h.created_at = p.created;
  h.model = ctx.model_name();
  h.temperature = r.temperature.value_or(Shortest(s.temperature));
  h.top_p = s.greedy() ? 1.0 : r.top_p.value_or(Shortest(s.top_p));
  h.max_output_tokens = s.max_tokens.value_or(0);
  if (s.logprobs) h.top_logprobs = *s.logprobs;
  return h;
}

Json Usage(const Run& c) {
  int64_t reasoning = 0;
  if (!c.ctx.options.reasoning_parser.empty()) {
    reasoning = CountReasoningTokens(c.state.all_token_ids, c.ctx.tokenizer->TokenToId("<|channel>"),
                                     c.ctx.tokenizer->TokenToId("<channel|>"));
  }
  return ResponsesUsage(static_cast<int64_t>(c.p.prompt_ids.size()), c.num_cached_tokens,
                        c.state.decoder.num_tokens(), reasoning);
}

Json OutputLogprobs(const Run& c) {
  if (!c.r.include_output_logprobs) return nullptr;
  Json content = Json::array();
  TokenStrings strings(*c.ctx.tokenizer, false);
  AppendChatLogprobs(c.state.all_logprobs, static_cast<int32_t>(c.r.top_logprobs), strings, &content);
  return content;
}

// A streamed step's logprobs (vLLM's response_text_delta_event.Logprob: no bytes), or [].
Json StepLogprobs(const Run& c, const ChoiceStep& step) {
  Json content = Json::array();
  if (!c.r.include_output_logprobs) return content;
  TokenStrings strings(*c.ctx.tokenizer, false);
  AppendChatLogprobs(step.logprobs, static_cast<int32_t>(c.r.top_logprobs), strings, &content);
  for (Json& entry : content) {
    entry.erase("bytes");
    for (Json& top : entry["top_logprobs"]) top.erase("bytes");
  }
  return content;
}

// The final response of a finished run (vLLM's responses_full_generator), stored when asked.
Json FinalResponse(Run& c, ChatOutput& parser, const ItemIds& ids) {
  parse::ParsedMessage m = parser.Full(c.state.decoder.text());
  Json output = OutputItems(m, parser.parsing(), ids, OutputLogprobs(c));
  const std::string status = c.state.finish_reason == "length" ? "incomplete" : "completed";
  Json response = ResponseObject(c.header, c.r, std::move(output), status, Usage(c));
  // A cancelled background response keeps its status (vLLM).
  if (c.store) c.ctx.responses_store->Finish(c.header.id, StoredResponse{response, c.p.request.messages});
  return response;
}

void Full(Run& c, ChatOutput& parser) {
  engine::RequestOutput out;
  size_t which = 0;
  while (!c.state.finished && c.engine.Next(&which, &out)) {
    if (out.num_cached_tokens > c.num_cached_tokens) c.num_cached_tokens = out.num_cached_tokens;
    if (out.index == 0) c.state.Apply(out);
  }
  if (c.sink.client_gone()) return;
  c.engine.AbortAll(engine::FinishReason::kStop);
  if (c.state.finish_reason == "error") return c.sink.SendError(ApiError::Internal("Internal server error"));
  c.sink.SendJson(DumpJson(FinalResponse(c, parser, ItemIds{})));
}

void Stream(Run& c, ChatOutput& stream_parser, ChatOutput& final_parser) {
  ResponsesEventWriter w(c.sink);
  if (!w.Start(ResponseObject(c.header, c.r, Json::array(), "in_progress", nullptr))) return;
  engine::RequestOutput out;
  size_t which = 0;
  while (!c.state.finished && c.engine.Next(&which, &out)) {
    if (out.num_cached_tokens > c.num_cached_tokens) c.num_cached_tokens = out.num_cached_tokens;
    if (out.index != 0) continue;
    std::optional<ChoiceStep> step = c.state.Apply(out);
    if (!step) continue;
    if (step->finish_reason == "error") break;
    Json logprobs = StepLogprobs(c, *step);
    for (const parse::Delta& d : stream_parser.StepDeltas(step->text, step->finished)) {
      if (!w.Feed(d, logprobs)) return;
    }
  }
  if (c.sink.client_gone()) return;
  c.engine.AbortAll(engine::FinishReason::kStop);
  // vLLM's GenerationError: message "Internal server error", code 500.
  if (c.state.finish_reason == "error") return w.Fail("500", "Internal server error");
  if (!w.Close()) return;
  w.Complete(FinalResponse(c, final_parser, w.ids()));
}

// The request up to PreparedChat: parse, the store checks, the chat conversion and preparation.
std::optional<ApiError> Prepare(const ServingContext& ctx, const ApiCall& call, ResponsesRequest* r,
                                PreparedChat* p) {
  Json body;
  if (auto e = DecodeBody(call.body, ctx.limits.max_json_depth, &body)) return e;
  if (auto e = ParseResponsesRequest(body, r)) return e;
  if (auto e = CheckModel(ctx, r->model)) return e;
  if (r->background) {
    if (!StoreOn(ctx)) {
      return ApiError::InvalidRequest(
          InvalidArgumentError(
              "This vLLM engine does not support `store=True` and therefore does not support the background mode. To "
              "enable these features, set the environment variable `VLLM_ENABLE_RESPONSES_API_STORE=1` when "
              "launching the vLLM server."),
          "background");
    }
  }
  PriorTurn prior;
  bool has_prior = false;
  if (r->previous_response_id) {
    std::optional<StoredResponse> prev;
    if (StoreOn(ctx)) prev = ctx.responses_store->Get(*r->previous_response_id);
    if (!prev) return NotFound(*r->previous_response_id);
    prior.messages = prev->messages;
    prior.output = prev->response.value("output", Json::array());
    has_prior = true;
  }
  Json messages;
  if (auto e = BuildChatMessages(*r, has_prior ? &prior : nullptr, &messages)) return e;
  Json chat;
  if (auto e = BuildChatBody(*r, std::move(messages), ctx.options.enable_auto_tool_choice, &chat)) return e;
  return PrepareChatBody(ctx, call, chat, p, r->request_id ? *r->request_id : NewResponsesId("resp"));
}

}  // namespace

void ServeResponses(const ServingContext& ctx, const ApiCall& call, ResponseSink& sink) {
  ResponsesRequest r;
  PreparedChat p;
  if (auto e = Prepare(ctx, call, &r, &p)) return sink.SendError(*e);
  std::unique_ptr<ChatOutput> stream_parser, final_parser;
  if (auto e = ChatOutput::Make(ctx, p.request, p.prompt_text, &stream_parser)) return sink.SendError(*e);
  if (auto e = ChatOutput::Make(ctx, p.request, p.prompt_text, &final_parser)) return sink.SendError(*e);
  TextParams text = p.sampling.text;
  // The parsers read protocol markers: special tokens stay in the text (vLLM forces this).
  if (final_parser->parsing()) text.skip_special_tokens = false;
  ResponseHeader header = MakeHeader(ctx, r, p);
  ChoiceState state(*ctx.tokenizer, text, nullptr);
  engine::ValidatedRequest req = std::move(*p.sampling.request);
  req.set_request_id(p.request_id);
  req.set_constraint(p.make_constraint);
  req.set_cache_salt(p.request.sampling.cache_salt.value_or(""));
  req.set_arrival_time(call.arrival);
  std::vector<engine::ValidatedRequest> requests;
  requests.push_back(std::move(req));
  // A background run answers the queued response now and writes its result to the store; a
  // background stream records its events (and streams them to this client while it stays). A
  // cancel aborts the run as a client disconnect would.
  const std::string id = header.id;
  std::shared_ptr<ResponseEventLog> log;
  std::shared_ptr<BackgroundSink> background;
  if (r.background && r.stream) {
    log = std::make_shared<ResponseEventLog>(ResponseEventLog::MaxBytesFromEnvironment());
    std::shared_ptr<ResponsesStore> store = ctx.responses_store;
    background = std::make_shared<BackgroundSink>(log, &sink, [store, id] { store->Recharge(id); });
  } else {
    background = std::make_shared<BackgroundSink>();
  }
  ResponseSink& run_sink = r.background ? static_cast<ResponseSink&>(*background) : sink;
  std::unique_ptr<EngineRuns> engine;
  if (auto e = EngineRuns::Start(ctx, std::move(requests), run_sink, &engine)) return sink.SendError(*e);
  if (r.background) {
    Json queued = ResponseObject(header, r, Json::array(), "queued", nullptr);
    ctx.responses_store->Put(id, StoredResponse{queued, p.request.messages, log});
    ctx.responses_store->SetCanceller(id, [background] { background->Cancel(); });
    if (!r.stream) sink.SendJson(DumpJson(queued));
  }
  Run c{ctx, r, p, run_sink, *engine, state, std::move(header), r.store && StoreOn(ctx), 0};
  if (r.stream) {
    Stream(c, *stream_parser, *final_parser);
  } else {
    Full(c, *final_parser);
  }
  if (r.background) {
    ctx.responses_store->ClearCanceller(id);
    background->Finish();
    if (background->failed() || state.finish_reason == "error") ctx.responses_store->Fail(id);
  }
}

void ServeResponseRetrieve(const ServingContext& ctx, const std::string& id, const std::string& query,
                           ResponseSink& sink) {
  std::optional<StoredResponse> stored;
  if (StoreOn(ctx)) stored = ctx.responses_store->Get(id);
  if (!stored) return sink.SendError(NotFound(id));
  RetrieveQuery q;
  if (auto e = ParseRetrieveQuery(query, &q)) return sink.SendError(*e);
  if (!q.stream) return sink.SendJson(DumpJson(stored->response));
  // Only background streams record events (vLLM's VLLMValidationError, a 400).
  if (!stored->events) {
    return sink.SendError(ApiError::BadRequest(fmt::format("Unknown response_id: {}", id), "response_id"));
  }
  ReplayEvents(*stored->events, q.starting_after ? *q.starting_after + 1 : 0, sink);
}

void ServeResponseCancel(const ServingContext& ctx, const std::string& id, ResponseSink& sink) {
  Json response;
  ResponsesStore::CancelResult result =
      StoreOn(ctx) ? ctx.responses_store->Cancel(id, &response) : ResponsesStore::CancelResult::kNotFound;
  switch (result) {
    case ResponsesStore::CancelResult::kNotFound: return sink.SendError(NotFound(id));
    case ResponsesStore::CancelResult::kNotCancellable:
      return sink.SendError(
          ApiError::InvalidRequest(InvalidArgumentError("Cannot cancel a synchronous response."), "response_id"));
    case ResponsesStore::CancelResult::kCancelled: return sink.SendJson(DumpJson(response));
  }
}

}  // namespace gemmad::api
