// ServeSpeech (see transcription_serving.h).
#include "api/transcription_serving.h"

#include <algorithm>
#include <cctype>
#include <memory>
#include <vector>

#include "api/chat_choice_state.h"
#include "api/request_common.h"
#include "api/transcription_format.h"
#include "api/transcription_language.h"
#include "api/transcription_prepare.h"
#include "api/transcription_prompt.h"

namespace gemmad::api {
namespace {

struct SpeechRun {
  const ServingContext& ctx;
  PreparedSpeech& p;
  ResponseSink& sink;
  EngineRuns& run;
  ChoiceState state;
  std::string target;  // translations: the target language's name
};

bool Translating(const SpeechRun& c) { return c.p.request.task == SpeechTask::kTranslate; }

// vLLM's chunk: fields set explicitly only (finish_reason and stop_reason on the last delta).
Json Chunk(const SpeechRun& c, Json choices) {
  Json j = Json::object();
  j["id"] = c.p.request_id;
  j["object"] = Translating(c) ? "translation.chunk" : "transcription.chunk";
  j["created"] = c.p.created;
  j["model"] = c.ctx.model_name();
  j["choices"] = std::move(choices);
  return j;
}

void Stream(SpeechRun& c) {
  const SamplingRequest& s = c.p.request.sampling;
  const bool include_usage = s.include_usage || c.ctx.options.enable_force_include_usage;
  const bool continuous = include_usage && s.continuous_usage_stats;
  const int64_t prompt_tokens = static_cast<int64_t>(c.p.prompt_ids.size());
  TranslationStream translation(c.target);
  engine::RequestOutput out;
  size_t which = 0;
  while (!c.state.finished && c.run.Next(&which, &out)) {
    std::optional<ChoiceStep> step = c.state.Apply(out);
    if (!step) continue;
    if (step->finish_reason == "error") break;
    std::string text = std::move(step->text);
    if (Translating(c)) {
      text = translation.Push(text);
      if (step->finished) text += translation.Finish();
    }
    if (text.empty() && !step->finished) continue;
    Json choice = Json::object();
    choice["delta"] = Json{{"content", text}};
    if (step->finished) {
      choice["finish_reason"] = step->finish_reason;
      choice["stop_reason"] = step->stop_reason;
    }
    Json chunk = Chunk(c, Json::array({std::move(choice)}));
    if (continuous) chunk["usage"] = UsageJson(prompt_tokens, c.state.decoder.num_tokens(), std::nullopt, false);
    if (!c.sink.SendEvent(DumpJson(chunk))) return;
  }
  if (c.sink.client_gone()) return;
  c.run.AbortAll(engine::FinishReason::kStop);
  if (c.state.finish_reason == "error") return c.sink.SendError(ApiError::Internal("Internal server error"));
  if (include_usage) {
    Json chunk = Chunk(c, Json::array());
    chunk["usage"] = UsageJson(prompt_tokens, c.state.decoder.num_tokens(), std::nullopt, false);
    c.sink.SendEvent(DumpJson(chunk));
  }
  c.sink.EndStream();
}

std::string Lowercase(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

void Full(SpeechRun& c) {
  engine::RequestOutput out;
  size_t which = 0;
  while (!c.state.finished && c.run.Next(&which, &out)) c.state.Apply(out);
  if (c.sink.client_gone()) return;
  c.run.AbortAll(engine::FinishReason::kStop);
  if (c.state.finish_reason == "error") return c.sink.SendError(ApiError::Internal("Internal server error"));
  const TranscriptionRequest& r = c.p.request;
  SpeechResult result;
  result.task = r.task;
  result.text = Translating(c) ? ExtractTranslation(c.state.decoder.text(), c.target) : c.state.decoder.text();
  result.duration_s = c.p.duration_s;
  if (Translating(c)) {
    result.language = Lowercase(c.target);  // OpenAI reports the output's language for translations
  } else {
    result.language = r.language ? Lowercase(std::string(*LanguageName(*r.language))) : "unknown";
  }
  result.temperature = r.sampling.temperature.value_or(0.0);
  // The segment's tokens are the text's: without the token that ended the turn (as vLLM drops EOS).
  result.tokens = c.state.all_token_ids;
  const auto& eos = c.ctx.generation_defaults.eos_token_ids;
  if (!result.tokens.empty() && c.state.finish_reason == "stop" &&
      ((c.state.stop_reason.is_number_integer() && c.state.stop_reason.get<int64_t>() == result.tokens.back()) ||
       std::find(eos.begin(), eos.end(), result.tokens.back()) != eos.end())) {
    result.tokens.pop_back();
  }
  const size_t n = std::min(result.tokens.size(), c.state.all_logprobs.size());
  if (n > 0) {
    double sum = 0;
    for (size_t i = 0; i < n; ++i) sum += c.state.all_logprobs[i].logprob;
    result.avg_logprob = sum / static_cast<double>(n);
  }
  SpeechBody body = FormatSpeech(result, r.response_format);
  if (body.content_type == "application/json") return c.sink.SendJson(std::move(body.body));
  c.sink.SendText(std::move(body.content_type), std::move(body.body));
}

}  // namespace

void ServeSpeech(const ServingContext& ctx, ApiCall& call, SpeechTask task, ResponseSink& sink) {
  PreparedSpeech p;
  if (auto e = PrepareSpeech(ctx, call, task, &p)) return sink.SendError(*e);
  const TextParams text = p.sampling.text;
  engine::ValidatedRequest req = std::move(*p.sampling.request);
  req.set_request_id(p.request_id);
  req.set_arrival_time(call.arrival);
  std::vector<engine::ValidatedRequest> requests;
  requests.push_back(std::move(req));
  std::unique_ptr<EngineRuns> run;
  if (auto e = EngineRuns::Start(ctx, std::move(requests), sink, &run)) return sink.SendError(*e);
  SpeechRun c{ctx, p, sink, *run, ChoiceState(*ctx.tokenizer, text, nullptr), TranslationTarget(p.request.to_language)};
  if (p.request.sampling.stream) {
    Stream(c);
  } else {
    Full(c);
  }
}

}  // namespace gemmad::api
