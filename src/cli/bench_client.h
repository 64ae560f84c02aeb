// The HTTP side of `gemmad bench serve`: one streaming /v1/completions request over an
// SseConnection (cli/sse_client.h), timed as `vllm bench serve` times it (start just before
// sending, TTFT at the first chunk with choices, ITL between chunks with choices, latency at the
// last one). A BenchConnection is one keep-alive connection; use one per thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cli/bench_stats.h"

namespace gemmad::cli {

class BenchConnection {
 public:
  // `api_key` ("" = none) is sent as "Authorization: Bearer <key>".
  BenchConnection(std::string api_key, double timeout_s);
  ~BenchConnection();
  BenchConnection(const BenchConnection&) = delete;
  BenchConnection& operator=(const BenchConnection&) = delete;

  // POSTs `body` (with "stream": true) to `url` and reads the SSE stream to the end. Never
  // throws; transport and HTTP errors come back as success=false with `error` set.
  RequestResult StreamCompletion(const std::string& url, const nlohmann::json& body, int64_t prompt_len);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gemmad::cli
