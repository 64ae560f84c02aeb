// Shared handler helpers (see request_common.h).
#include "api/request_common.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <random>

#include <fmt/format.h>

#include "api/sampling_build.h"
#include "base/json_depth.h"

namespace gemmad::api {

std::optional<ApiError> DecodeBody(const std::string& body, int max_depth, Json* out) {
  if (JsonNestingDepth(body, max_depth) > max_depth) {
    return ApiError::Validation(
        fmt::format("body: JSON nested more than {} levels deep (--max-request-json-depth)", max_depth), "body");
  }
  try {
    *out = Json::parse(body);
  } catch (const Json::parse_error& e) {
    return ApiError::Validation(fmt::format("body: JSON decode error at byte {}: {}", e.byte, e.what()));
  } catch (const Json::exception& e) {
    // A number past the double range ("1e999") is out_of_range.406, not a parse_error: it left
    // as a 500 (fuzz/corpus/http_request/regression-crash-99665c12..., where it aborted the harness).
    return ApiError::Validation(fmt::format("body: JSON decode error: {}", e.what()));
  }
  return std::nullopt;
}

std::optional<ApiError> CheckModel(const ServingContext& ctx, const std::optional<std::string>& model) {
  if (!model || ctx.IsServedModel(*model)) return std::nullopt;
  return ApiError::NotFound(fmt::format("The model `{}` does not exist.", *model), "model");
}

std::string RandomHex(size_t num_chars) {
  thread_local std::mt19937_64 rng(std::random_device{}());
  std::string out;
  while (out.size() < num_chars) out += fmt::format("{:016x}", rng());
  out.resize(num_chars);
  return out;
}

std::string MakeRequestId(const char* prefix, const ApiCall& call, const std::optional<std::string>& body_id) {
  if (!call.request_id_header.empty()) return fmt::format("{}-{}", prefix, call.request_id_header);
  if (body_id && !body_id->empty()) return fmt::format("{}-{}", prefix, *body_id);
  return fmt::format("{}-{}", prefix, RandomHex(32));  // vLLM: random_uuid(), uuid4().hex
}

int64_t UnixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
}

Json UsageJson(int64_t prompt_tokens, int64_t completion_tokens, std::optional<int64_t> cached_tokens,
               bool include_null_details) {
  Json u = Json::object();
  u["prompt_tokens"] = prompt_tokens;
  u["total_tokens"] = prompt_tokens + completion_tokens;
  u["completion_tokens"] = completion_tokens;
  if (cached_tokens) {
    u["prompt_tokens_details"] = Json{{"cached_tokens", *cached_tokens}};
  } else if (include_null_details) {
    u["prompt_tokens_details"] = nullptr;
  }
  return u;
}

struct EngineRuns::Signal {
  std::mutex mu;
  std::condition_variable cv;
  bool pending = false;
  void Notify() {
    {
      std::lock_guard<std::mutex> lock(mu);
      pending = true;
    }
    cv.notify_one();
  }
};

EngineRuns::EngineRuns(ResponseSink& sink) : sink_(sink), signal_(std::make_shared<Signal>()) {}

EngineRuns::~EngineRuns() {
  for (auto& s : streams_) s->SetNotifier(nullptr);
}

std::optional<ApiError> EngineRuns::Start(const ServingContext& ctx, std::vector<engine::ValidatedRequest> requests,
                                          ResponseSink& sink, std::unique_ptr<EngineRuns>* out) {
  std::unique_ptr<EngineRuns> runs(new EngineRuns(sink));
  std::vector<uint64_t> ids;
  for (engine::ValidatedRequest& r : requests) {
    auto stream = ctx.engine->Submit(std::move(r));
    if (!stream.ok()) {
      runs->AbortAll(engine::FinishReason::kAbort);
      const Status& s = stream.status();
      return ApiError::FromStatus(s);
    }
    std::shared_ptr<Signal> signal = runs->signal_;
    (*stream)->SetNotifier([signal] { signal->Notify(); });
    ids.push_back((*stream)->id());
    runs->streams_.push_back(std::move(*stream));
    runs->ended_.push_back(false);
  }
  engine::EngineClient* engine = ctx.engine;
  sink.OnClientGone([engine, ids] {
    for (uint64_t id : ids) engine->Abort(id, engine::FinishReason::kAbort);
  });
  *out = std::move(runs);
  return std::nullopt;
}

bool EngineRuns::Next(size_t* which, engine::RequestOutput* out) {
  while (true) {
    bool any_open = false;
    for (size_t k = 0; k < streams_.size(); ++k) {
      size_t i = (next_ + k) % streams_.size();
      if (ended_[i]) continue;
      auto status = streams_[i]->TryRead(out);
      if (status == engine::RequestStream::ReadStatus::kOutput) {
        next_ = (i + 1) % streams_.size();
        *which = i;
        return true;
      }
      if (status == engine::RequestStream::ReadStatus::kEnd) {
        ended_[i] = true;
      } else {
        any_open = true;
      }
    }
    if (!any_open) return false;
    std::unique_lock<std::mutex> lock(signal_->mu);
    signal_->cv.wait_for(lock, std::chrono::milliseconds(200), [&] { return signal_->pending; });
    signal_->pending = false;
    lock.unlock();
    if (sink_.client_gone()) AbortAll(engine::FinishReason::kAbort);
  }
}

void EngineRuns::AbortAll(engine::FinishReason reason) {
  for (auto& s : streams_) s->Abort(reason);
}

}  // namespace gemmad::api
