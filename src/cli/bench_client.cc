// libcurl streaming client for `gemmad bench serve`.
#include "cli/bench_client.h"

#include <fmt/format.h>

#include <chrono>

#include "cli/bench_sse.h"
#include "cli/sse_client.h"

namespace gemmad::cli {
namespace {

using Clock = std::chrono::steady_clock;

double Since(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Per-request state the event callback updates.
struct StreamState {
  Clock::time_point start;
  Clock::time_point last;
  RequestResult* result = nullptr;
  bool first = false;
  int64_t chunks = 0;
  std::optional<int64_t> usage_tokens;

  void OnEvent(const SseEvent& e) {
    CompletionChunk c = ParseCompletionChunk(e.data);
    switch (c.kind) {
      case CompletionChunk::Kind::kDone:
        break;
      case CompletionChunk::Kind::kError:
        if (result->error.empty()) result->error = c.error;
        break;
      case CompletionChunk::Kind::kText: {
        const Clock::time_point now = Clock::now();
        if (!first) {
          first = true;
          result->ttft_s = Since(start, now);
        } else {
          result->itl_s.push_back(Since(last, now));
        }
        last = now;
        ++chunks;
        result->generated_text += c.text;
        if (c.completion_tokens) usage_tokens = c.completion_tokens;
        break;
      }
      case CompletionChunk::Kind::kUsage:
        usage_tokens = c.completion_tokens;
        break;
      case CompletionChunk::Kind::kOther:
        break;
    }
  }
};

}  // namespace

struct BenchConnection::Impl {
  explicit Impl(std::string api_key, double timeout_s) : conn(std::move(api_key), timeout_s, "gemmad-bench/0.1") {}
  SseConnection conn;
};

BenchConnection::BenchConnection(std::string api_key, double timeout_s)
    : impl_(std::make_unique<Impl>(std::move(api_key), timeout_s)) {}

BenchConnection::~BenchConnection() = default;

RequestResult BenchConnection::StreamCompletion(const std::string& url, const nlohmann::json& body,
                                                int64_t prompt_len) {
  RequestResult r;
  r.prompt_len = prompt_len;
  StreamState s;
  s.result = &r;
  s.start = Clock::now();
  s.last = s.start;
  Status st = impl_->conn.Post(url, body.dump(), [&s](const SseEvent& e) { s.OnEvent(e); });
  if (!st.ok()) {
    r.error = st.message();
  } else if (!s.first) {
    if (r.error.empty()) r.error = "Never received a valid chunk to calculate TTFT.";
  } else if (r.error.empty()) {
    r.success = true;
  }
  if (r.success) {
    r.latency_s = Since(s.start, s.last);
    // Without usage (a server ignoring stream_options), one content chunk counts as one token.
    // A stream that ends without [DONE] still counts (vLLM's client does not require it).
    r.output_tokens = s.usage_tokens.value_or(s.chunks);
  }
  return r;
}

}  // namespace gemmad::cli
