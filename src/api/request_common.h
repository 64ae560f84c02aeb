// Helpers every OpenAI handler uses: body decoding, the model check, request ids, the
// `created` clock, usage objects and the engine read loop with client-disconnect handling.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "api/api_error.h"
#include "api/request_fields.h"
#include "api/response_sink.h"
#include "api/serving_context.h"
#include "engine/engine_client.h"

namespace gemmad::api {

// Decodes a JSON body; a syntax error is a validation ApiError naming the position, and a body
// nested deeper than `max_depth` (--max-request-json-depth) is refused before it is parsed.
std::optional<ApiError> DecodeBody(const std::string& body, int max_depth, Json* out);
// 404 "The model `x` does not exist." unless `model` is unset or served.
std::optional<ApiError> CheckModel(const ServingContext& ctx, const std::optional<std::string>& model);
// "<prefix>-<X>": X = X-Request-Id header, else the body's request_id, else 32 random hex (vLLM: uuid4().hex).
std::string MakeRequestId(const char* prefix, const ApiCall& call, const std::optional<std::string>& body_id);
std::string RandomHex(size_t num_chars);
int64_t UnixNow();

// {"prompt_tokens","total_tokens","completion_tokens"[,"prompt_tokens_details"]}.
Json UsageJson(int64_t prompt_tokens, int64_t completion_tokens, std::optional<int64_t> cached_tokens,
               bool include_null_details);

// Submitted engine requests (one per prompt) read to their end, multiplexed: the engine's
// notifier wakes the reading thread. A client disconnect aborts them all.
class EngineRuns {
 public:
  // Submits every request in order. A Submit error aborts the ones already submitted and is
  // returned as an ApiError (vLLM messages; HTTP 400 or 503).
  static std::optional<ApiError> Start(const ServingContext& ctx, std::vector<engine::ValidatedRequest> requests,
                                       ResponseSink& sink, std::unique_ptr<EngineRuns>* out);
  ~EngineRuns();
  // The next delta of any request (`*which` = its index); false once all ended.
  bool Next(size_t* which, engine::RequestOutput* out);
  void AbortAll(engine::FinishReason reason);
  size_t size() const { return streams_.size(); }

 private:
  struct Signal;
  EngineRuns(ResponseSink& sink);
  ResponseSink& sink_;
  std::shared_ptr<Signal> signal_;
  std::vector<std::unique_ptr<engine::RequestStream>> streams_;
  std::vector<bool> ended_;
  size_t next_ = 0;  // round-robin start
};

}  // namespace gemmad::api
