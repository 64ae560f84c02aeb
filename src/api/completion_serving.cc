// ServeCompletion (see completion_serving.h).
#include "api/completion_serving.h"

#include <memory>
#include <vector>

#include <fmt/format.h>

#include "api/chat_choice_state.h"
#include "api/completion_request.h"
#include "api/logprobs_json.h"
#include "api/request_common.h"
#include "api/stop_strings.h"
#include "api/structured_output.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api {
namespace {

struct PromptRun {
  std::string text;  // echoed prompt text
  std::vector<int32_t> ids;
  BuiltSampling sampling;
  std::optional<std::vector<std::optional<sample::TokenLogprobs>>> prompt_logprobs;
};

struct CompletionRun {
  const ServingContext& ctx;
  CompletionRequest req;
  std::string id;
  int64_t created = 0;
  std::vector<PromptRun> prompts;
  std::vector<std::unique_ptr<ChoiceState>> choices;  // prompt * n + index
  std::vector<bool> echoed;
  std::vector<int64_t> text_len;  // characters sent per choice (streaming text_offset)
  int32_t n = 1;
  std::optional<int32_t> num_cached_tokens;
  sample::TokenConstraintFactory make_constraint;  // structured outputs (shared by every prompt)
};

std::optional<ApiError> Prepare(const ServingContext& ctx, const ApiCall& call, CompletionRun* c) {
  Json body;
  if (auto e = DecodeBody(call.body, ctx.limits.max_json_depth, &body)) return e;
  if (auto e = ParseCompletionRequest(body, &c->req)) return e;
  if (auto e = CheckModel(ctx, c->req.sampling.model)) return e;
  if (c->req.suffix) return ApiError::BadRequest("suffix is not currently supported");
  if (auto e = CheckStopStrings(c->req.sampling.stop, ctx.limits)) return e;
  if (auto e = CheckSequences(c->req.prompts.size(), c->req.sampling.n, ctx.limits)) return e;
  if (c->req.sampling.use_beam_search) return ApiError::BadRequest("beam search is not supported by gemmad", "use_beam_search");
  c->id = MakeRequestId("cmpl", call, c->req.sampling.request_id);
  c->created = UnixNow();
  const engine::EngineLimits& limits = ctx.engine->limits();
  for (const PromptInput& in : c->req.prompts) {
    PromptRun p;
    if (in.is_tokens) {
      for (int64_t t : in.tokens) {
        if (t < 0 || t >= limits.vocab_size) {
          return ApiError::BadRequest(fmt::format("Token id {} is out of vocabulary", t), "prompt");
        }
        p.ids.push_back(static_cast<int32_t>(t));
      }
      p.text = ctx.tokenizer->Decode(p.ids, /*skip_special_tokens=*/false);
    } else {
      p.text = in.text;
      p.ids = ctx.tokenizer->Encode(in.text, c->req.add_special_tokens);
    }
    SamplingInputs s;
    s.request = &c->req.sampling;
    s.defaults = &ctx.generation_defaults;
    s.limits = &limits;
    s.tokenizer = ctx.tokenizer;
    s.prompt_ids = &p.ids;
    if (c->req.logprobs) s.logprobs = static_cast<int32_t>(*c->req.logprobs);
    if (c->req.sampling.prompt_logprobs) {
      s.prompt_logprobs = static_cast<int32_t>(*c->req.sampling.prompt_logprobs);
    } else if (c->req.echo && c->req.logprobs) {
      s.prompt_logprobs = s.logprobs;  // vLLM: echo with logprobs scores the prompt too
    }
    if (auto e = BuildSampling(s, &p.sampling)) return e;
    c->prompts.push_back(std::move(p));
  }
  c->n = c->prompts.front().sampling.params().n;
  ConstraintInputs ci;
  ci.body = &body;
  ci.cancelled = call.client_gone;
  if (auto e = BuildConstraint(ctx, ci, &c->make_constraint)) return e;
  for (const PromptRun& p : c->prompts) {
    for (int32_t i = 0; i < c->n; ++i) {
      c->choices.push_back(std::make_unique<ChoiceState>(*ctx.tokenizer, p.sampling.text, nullptr));
    }
  }
  c->echoed.assign(c->choices.size(), false);
  c->text_len.assign(c->choices.size(), 0);
  return std::nullopt;
}

Json ChoiceLogprobs(const CompletionRun& c, const std::vector<int32_t>& ids,
                    const std::vector<std::optional<sample::TokenLogprobs>>& steps, int64_t offset) {
  if (!c.req.logprobs) return nullptr;
  TokenStrings strings(*c.ctx.tokenizer, c.req.sampling.return_tokens_as_token_ids);
  CompletionLogprobs lp;
  lp.next_offset = offset;
  AppendCompletionLogprobs(ids, steps, static_cast<int32_t>(*c.req.logprobs), strings, &lp);
  return lp.ToJson();
}

// Token ids, optional logprob steps and text of a choice's output, with the echoed prompt
// prepended when this is the first time (`echo_now`).
struct Piece {
  std::vector<int32_t> ids;
  std::vector<std::optional<sample::TokenLogprobs>> steps;
  std::string text;
};
Piece MakePiece(const CompletionRun& c, size_t prompt, bool echo_now, const std::vector<int32_t>& ids,
                const std::vector<sample::TokenLogprobs>& logprobs, const std::string& text) {
  Piece p;
  if (echo_now) {
    const PromptRun& pr = c.prompts[prompt];
    p.ids = pr.ids;
    p.text = pr.text;
    if (pr.prompt_logprobs) {
      p.steps = *pr.prompt_logprobs;
    } else {
      p.steps.assign(pr.ids.size(), std::nullopt);
    }
  }
  p.ids.insert(p.ids.end(), ids.begin(), ids.end());
  for (const auto& l : logprobs) p.steps.emplace_back(l);
  p.text += text;
  return p;
}

Json ChunkChoice(size_t index, Json text, Json logprobs, const ChoiceStep* step, Json prompt_ids, Json token_ids) {
  Json ch = Json::object();
  ch["index"] = index;
  ch["text"] = std::move(text);
  ch["logprobs"] = std::move(logprobs);
  ch["finish_reason"] = step && step->finished ? Json(step->finish_reason) : Json(nullptr);
  ch["stop_reason"] = step && step->finished ? step->stop_reason : Json(nullptr);
  ch["prompt_token_ids"] = std::move(prompt_ids);
  ch["token_ids"] = std::move(token_ids);
  return ch;
}

Json Header(const CompletionRun& c, Json choices) {
  Json j = Json::object();
  j["id"] = c.id;
  j["object"] = "text_completion";
  j["created"] = c.created;
  j["model"] = c.ctx.model_name();
  j["choices"] = std::move(choices);
  return j;
}

bool AllFinished(const CompletionRun& c) {
  for (const auto& s : c.choices) {
    if (!s->finished) return false;
  }
  return true;
}

// Reads the next engine output of any prompt, records its prompt logprobs and cached-token count,
// and returns the choice it belongs to (nullptr for an index outside the request). False when
// every stream has ended.
bool NextOutput(CompletionRun& c, EngineRuns& runs, size_t* prompt, engine::RequestOutput* out,
                ChoiceState** choice) {
  if (AllFinished(c) || !runs.Next(prompt, out)) return false;
  if (out->prompt_logprobs) c.prompts[*prompt].prompt_logprobs = *out->prompt_logprobs;
  if (!c.num_cached_tokens) c.num_cached_tokens = out->num_cached_tokens;
  size_t i = *prompt * static_cast<size_t>(c.n) + static_cast<size_t>(out->index);
  *choice = (out->index >= 0 && i < c.choices.size()) ? c.choices[i].get() : nullptr;
  return true;
}

// usage.prompt_tokens_details.cached_tokens, when --enable-prompt-tokens-details asks for it.
std::optional<int64_t> CachedTokens(const CompletionRun& c) {
  if (c.ctx.options.enable_prompt_tokens_details && c.num_cached_tokens) return *c.num_cached_tokens;
  return std::nullopt;
}

void Stream(CompletionRun& c, EngineRuns& runs, ResponseSink& sink) {
  const SamplingRequest& s = c.req.sampling;
  bool include_usage = s.include_usage || c.ctx.options.enable_force_include_usage;
  bool continuous = include_usage && s.continuous_usage_stats;
  engine::RequestOutput out;
  size_t prompt = 0;
  ChoiceState* choice = nullptr;
  while (NextOutput(c, runs, &prompt, &out, &choice)) {
    if (choice == nullptr) continue;
    const size_t i = prompt * static_cast<size_t>(c.n) + static_cast<size_t>(out.index);
    ChoiceState& st = *choice;
    int32_t before = st.decoder.num_tokens();
    std::optional<ChoiceStep> step = st.Apply(out);
    if (!step || step->finish_reason == "error") {
      if (step) break;
      continue;
    }
    bool echo_now = c.req.echo && !c.echoed[i];
    if (!echo_now && step->text.empty() && step->token_ids.empty() && before == 0 && !step->finished) continue;
    Json prompt_ids = nullptr;
    if (s.return_token_ids && !c.echoed[i]) prompt_ids = c.prompts[prompt].ids;
    c.echoed[i] = true;
    Piece piece = MakePiece(c, prompt, echo_now, step->token_ids, step->logprobs, step->text);
    Json logprobs = ChoiceLogprobs(c, piece.ids, piece.steps, c.text_len[i]);
    c.text_len[i] += static_cast<int64_t>(Utf8Length(piece.text));
    Json chunk = Header(c, Json::array({ChunkChoice(i, piece.text, std::move(logprobs), &*step, std::move(prompt_ids),
                                                    s.return_token_ids ? Json(step->token_ids) : Json(nullptr))}));
    if (continuous) {
      chunk["usage"] = UsageJson(static_cast<int64_t>(c.prompts[prompt].ids.size()), st.decoder.num_tokens(),
                                 std::nullopt, false);
    }
    if (!sink.SendEvent(DumpJson(chunk))) return;
  }
  if (sink.client_gone()) return;
  runs.AbortAll(engine::FinishReason::kStop);
  for (const auto& st : c.choices) {
    if (st->finish_reason == "error") return sink.SendError(ApiError::Internal("Internal server error"));
  }
  if (include_usage) {
    int64_t prompt_tokens = 0, completion = 0;
    for (const PromptRun& p : c.prompts) prompt_tokens += static_cast<int64_t>(p.ids.size());
    for (const auto& st : c.choices) completion += st->decoder.num_tokens();
    Json chunk = Header(c, Json::array());
    chunk["usage"] = UsageJson(prompt_tokens, completion, CachedTokens(c), false);
    sink.SendEvent(DumpJson(chunk));
  }
  sink.EndStream();
}

void Full(CompletionRun& c, EngineRuns& runs, ResponseSink& sink) {
  engine::RequestOutput out;
  size_t prompt = 0;
  ChoiceState* choice = nullptr;
  while (NextOutput(c, runs, &prompt, &out, &choice)) {
    if (choice != nullptr) choice->Apply(out);
  }
  if (sink.client_gone()) return;
  runs.AbortAll(engine::FinishReason::kStop);
  const SamplingRequest& s = c.req.sampling;
  Json choices = Json::array();
  int64_t prompt_tokens = 0, completion = 0;
  for (size_t p = 0; p < c.prompts.size(); ++p) {
    const PromptRun& pr = c.prompts[p];
    prompt_tokens += static_cast<int64_t>(pr.ids.size());
    for (int32_t k = 0; k < c.n; ++k) {
      ChoiceState& st = *c.choices[p * static_cast<size_t>(c.n) + static_cast<size_t>(k)];
      if (st.finish_reason == "error") return sink.SendError(ApiError::Internal("Internal server error"));
      completion += st.decoder.num_tokens();
      Piece piece = MakePiece(c, p, c.req.echo, st.all_token_ids, st.all_logprobs, st.decoder.text());
      Json ch = Json::object();
      ch["index"] = choices.size();
      ch["text"] = piece.text;
      ch["logprobs"] = ChoiceLogprobs(c, piece.ids, piece.steps, 0);
      ch["finish_reason"] = st.finish_reason.empty() ? Json("abort") : Json(st.finish_reason);
      ch["stop_reason"] = st.stop_reason;
      ch["token_ids"] = s.return_token_ids ? Json(st.all_token_ids) : Json(nullptr);
      ch["prompt_logprobs"] = pr.prompt_logprobs ? PromptLogprobsJson(*pr.prompt_logprobs, *c.ctx.tokenizer) : Json(nullptr);
      ch["prompt_token_ids"] = s.return_token_ids ? Json(pr.ids) : Json(nullptr);
      choices.push_back(std::move(ch));
    }
  }
  Json r = Header(c, std::move(choices));
  r["service_tier"] = nullptr;
  r["system_fingerprint"] = nullptr;
  r["usage"] = UsageJson(prompt_tokens, completion, CachedTokens(c), true);
  r["kv_transfer_params"] = nullptr;
  sink.SendJson(DumpJson(r));
}

}  // namespace

void ServeCompletion(const ServingContext& ctx, const ApiCall& call, ResponseSink& sink) {
  CompletionRun c{ctx, {}, {}, 0, {}, {}, {}, {}, 1, std::nullopt, nullptr};
  if (auto e = Prepare(ctx, call, &c)) return sink.SendError(*e);
  std::vector<engine::ValidatedRequest> requests;
  for (size_t i = 0; i < c.prompts.size(); ++i) {
    engine::ValidatedRequest r = std::move(*c.prompts[i].sampling.request);
    r.set_request_id(c.prompts.size() == 1 ? c.id : fmt::format("{}-{}", c.id, i));
    r.set_constraint(c.make_constraint);
    r.set_cache_salt(c.req.sampling.cache_salt.value_or(""));
    r.set_arrival_time(call.arrival);
    requests.push_back(std::move(r));
  }
  std::unique_ptr<EngineRuns> runs;
  if (auto e = EngineRuns::Start(ctx, std::move(requests), sink, &runs)) return sink.SendError(*e);
  if (c.req.sampling.stream) {
    Stream(c, *runs, sink);
  } else {
    Full(c, *runs, sink);
  }
}

}  // namespace gemmad::api
