// RunBatch (bench_offline.h): one set of requests submitted at once through the public
// EngineClient, each delta timestamped on the engine thread as it is pushed.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "cli/bench_offline.h"

namespace gemmad::cli {
namespace {

// Per-request state the stream notifier fills on the engine thread.
struct Tracker {
  std::chrono::steady_clock::time_point start;
  std::mutex mu;
  std::condition_variable cv;
  int64_t num_open = 0;
  Status error;
  std::vector<RequestTiming> timings;
  std::vector<bool> got_first;
  std::chrono::steady_clock::time_point last_end;
};

}  // namespace

Result<BatchTiming> RunBatch(engine::EngineClient& client, const std::vector<std::vector<int32_t>>& prompts,
                             int64_t output_len, bool greedy) {
  auto t = std::make_shared<Tracker>();
  t->timings.resize(prompts.size());
  t->got_first.resize(prompts.size(), false);
  t->num_open = static_cast<int64_t>(prompts.size());
  // Requests are built before the clock starts so that the submits follow each other closely
  // (the engine may still start a step with the first few when it is idle).
  std::vector<engine::EngineRequest> requests(prompts.size());
  for (size_t i = 0; i < prompts.size(); ++i) {
    engine::EngineRequest& r = requests[i];
    r.request_id = fmt::format("bench-{}", i);
    r.prompt_token_ids = prompts[i];
    r.sampling.temperature = greedy ? 0.0f : 1.0f;
    r.sampling.top_p = 1.0f;
    r.sampling.ignore_eos = true;
    r.sampling.max_tokens = static_cast<int32_t>(output_len);
  }
  std::vector<std::unique_ptr<engine::RequestStream>> streams;
  streams.reserve(prompts.size());
  t->start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < prompts.size(); ++i) {
    engine::EngineRequest& r = requests[i];
    r.arrival_time = t->start;
    auto s = client.Submit(std::move(r));
    if (!s.ok()) {
      for (auto& open : streams) open->Abort();
      return s.status().WithPrefix(fmt::format("request {}", i));
    }
    engine::RequestStream* raw = s->get();
    // The notifier runs on the engine thread right after each push (never concurrently with
    // itself), so draining the stream here timestamps every delta when it was produced.
    raw->SetNotifier([t, raw, i] {
      const auto now = std::chrono::steady_clock::now();
      const double at = std::chrono::duration<double>(now - t->start).count();
      engine::RequestOutput out;
      while (raw->TryRead(&out) == engine::RequestStream::ReadStatus::kOutput) {
        std::lock_guard<std::mutex> lock(t->mu);
        RequestTiming& rt = t->timings[i];
        if (!out.token_ids.empty() && !t->got_first[i]) {
          t->got_first[i] = true;
          rt.first_token_s = at;
          rt.cached_tokens = out.num_cached_tokens;
        }
        rt.output_tokens = out.num_output_tokens;
        rt.token_ids.insert(rt.token_ids.end(), out.token_ids.begin(), out.token_ids.end());
        if (!out.finished()) continue;
        rt.last_token_s = at;
        if (out.finish_reason == engine::FinishReason::kError && t->error.ok()) {
          t->error = out.error.WithPrefix(fmt::format("request {}", i));
        }
        t->last_end = std::max(t->last_end, now);
        if (--t->num_open == 0) t->cv.notify_all();
      }
    });
    streams.push_back(std::move(*s));
  }
  std::unique_lock<std::mutex> lock(t->mu);
  t->cv.wait(lock, [&] { return t->num_open == 0; });
  lock.unlock();
  for (auto& s : streams) s->SetNotifier(nullptr);
  if (!t->error.ok()) return t->error;
  BatchTiming out;
  out.elapsed_s = std::chrono::duration<double>(t->last_end - t->start).count();
  out.requests = t->timings;
  for (size_t i = 0; i < out.requests.size(); ++i) {
    if (out.requests[i].output_tokens != output_len) {
      return InternalError(fmt::format("request {} generated {} tokens, expected {}", i,
                                       out.requests[i].output_tokens, output_len));
    }
  }
  return out;
}

}  // namespace gemmad::cli
