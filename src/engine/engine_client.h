// The engine as HTTP threads see it: submit a tokenized request, read its output deltas from a
// per-request stream, abort it, read metrics and limits. The only engine header api/ includes.
// Thread-safety: every method here may be called from any thread; a RequestStream is read by
// one thread at a time. Tokens inside the engine, text outside it (stop strings are the API's).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/status.h"
#include "engine/metrics.h"
#include "mm/item.h"
#include "sample/logprobs.h"
#include "sample/sampling_params.h"
#include "sample/token_constraint.h"

namespace gemmad::engine {

enum class FinishReason {
  kNone,    // not finished yet
  kStop,    // primary EOS, a stop_token_ids entry, or Abort(kStop) after a stop string
  kLength,  // max_tokens reached, or max_model_len
  kAbort,   // aborted (client gone, shutdown grace period over)
  kError,   // see RequestOutput::error
};
// "stop", "length", "abort", "error" ("" for kNone): vLLM's finish_reason strings.
std::string_view FinishReasonName(FinishReason reason);

struct EngineRequest {
  std::string request_id;  // the API id (chatcmpl-...), for logs only; need not be unique
  std::vector<int32_t> prompt_token_ids;
  sample::SamplingParams sampling;
  // The model's default output limit (generation_config max_new_tokens): max_tokens becomes
  // min(max_tokens or the room left, this) after the context-length check, as vLLM's
  // get_max_tokens does.
  std::optional<int32_t> max_tokens_cap;
  // Optional grammar: called n times inside Submit (one constraint per output sequence).
  sample::TokenConstraintFactory make_constraint;
  // Prefix-cache isolation (vLLM cache_salt): only requests with the same salt share blocks.
  std::string cache_salt;
  // Images, audio, video: placeholder ranges in the prompt, content hashes, preprocessed data
  // (sorted, disjoint; see mm/item.h). Empty for text.
  std::vector<mm::Item> mm_items;
  // When the HTTP request arrived (TTFT, e2e and queue time are measured from here).
  std::optional<std::chrono::steady_clock::time_point> arrival_time;
};

struct EngineLimits;

// A request that passed ValidateRequest, the one admission check every request goes through
// once (the API calls it right after tokenizing, before any other work; Submit trusts it):
// sampling parameters Validated and Normalized, max_tokens resolved, token ids inside the
// vocabulary, prompt + max_tokens within max_model_len and the KV capacity. Only the fields
// no check depends on can change afterwards.
class ValidatedRequest {
 public:
  const EngineRequest& request() const { return request_; }
  const sample::SamplingParams& sampling() const { return request_.sampling; }
  void set_request_id(std::string id) { request_.request_id = std::move(id); }
  void set_constraint(sample::TokenConstraintFactory make) { request_.make_constraint = std::move(make); }
  void set_cache_salt(std::string salt) { request_.cache_salt = std::move(salt); }
  void set_arrival_time(std::chrono::steady_clock::time_point t) { request_.arrival_time = t; }
  EngineRequest Release() && { return std::move(request_); }

 private:
  friend Result<ValidatedRequest> ValidateRequest(const EngineLimits& limits, EngineRequest request);
  explicit ValidatedRequest(EngineRequest r) : request_(std::move(r)) {}
  EngineRequest request_;
};

// One delta for one output sequence (choice `index`). Deltas of one index arrive in order;
// the last one of each index has finish_reason != kNone.
struct RequestOutput {
  int32_t index = 0;               // choice index in [0, n)
  std::vector<int32_t> token_ids;  // tokens generated since the previous delta of this index
  // One entry per token in token_ids, when SamplingParams::logprobs is set (else empty).
  std::vector<sample::TokenLogprobs> logprobs;
  // Prompt logprobs (when requested), in the first delta of index 0 only: one entry per prompt
  // token; entry 0 is nullopt (the first token has no logprob), as vLLM.
  std::optional<std::vector<std::optional<sample::TokenLogprobs>>> prompt_logprobs;
  FinishReason finish_reason = FinishReason::kNone;
  // Set when a stop_token_ids entry ended the sequence (vLLM stop_reason); unset for the
  // primary EOS, for length and for abort.
  std::optional<int32_t> stop_token_id;
  Status error;  // non-ok iff finish_reason == kError (message for logs / HTTP 500)
  int32_t num_prompt_tokens = 0;
  int32_t num_cached_tokens = 0;   // prompt tokens served from the prefix cache (first hit)
  int32_t num_output_tokens = 0;   // cumulative tokens of this index so far, incl. this delta

  bool finished() const { return finish_reason != FinishReason::kNone; }
};

class OutputChannel;  // engine-internal (engine/output_channel.h)

// The handle Submit returns. Destroying it before the request finished aborts the request
// (that is how a disconnected client frees its KV blocks: at the engine's next step).
class RequestStream {
 public:
  enum class ReadStatus {
    kOutput,   // *out holds a delta
    kTimeout,  // nothing arrived within the timeout
    kEnd,      // every choice finished and every delta was read
  };

  explicit RequestStream(std::shared_ptr<OutputChannel> channel);
  ~RequestStream();
  RequestStream(const RequestStream&) = delete;
  RequestStream& operator=(const RequestStream&) = delete;

  uint64_t id() const;  // engine-assigned, unique for the engine's lifetime
  const std::string& request_id() const;
  int32_t n() const;
  int32_t num_prompt_tokens() const;

  // Waits up to `timeout` for output. When several deltas of the same index are pending they
  // are merged into one (tokens and logprobs concatenated), as vLLM does for slow readers.
  ReadStatus Read(RequestOutput* out, std::chrono::milliseconds timeout);
  ReadStatus Read(RequestOutput* out);  // waits as long as it takes
  // Non-blocking: kTimeout when nothing is pending.
  ReadStatus TryRead(RequestOutput* out);

  // For async servers: `notify` is called (on the engine thread; keep it short, never call
  // back into the engine from it) after each new delta and at the end. Replaces any earlier
  // notifier; if output is already pending it is called once right away.
  void SetNotifier(std::function<void()> notify);

  // Stops every choice of this request. Idempotent, cheap, callable from any thread and after
  // the request finished (then a no-op). Choices not yet finished end with `reason`
  // (kAbort for a disconnect; kStop when the API matched a stop string) and their blocks are
  // freed at the engine's next step. The final deltas are still delivered to this stream.
  void Abort(FinishReason reason = FinishReason::kAbort);
  bool finished() const;  // every choice has delivered its final delta to the channel

 private:
  std::shared_ptr<OutputChannel> channel_;
};

// What the API validates against; fixed for the engine's lifetime.
struct EngineLimits {
  int64_t max_model_len = 0;           // prompt + output tokens of one sequence
  int32_t vocab_size = 0;
  std::optional<int32_t> eos_token_id;  // the primary EOS (stop without stop_token_id)
  int32_t max_num_seqs = 0;
  int32_t max_num_batched_tokens = 0;
  // The longest sequence (prompt + max output) the KV cache can ever hold at once; a request
  // that could exceed it is rejected by Submit (kInvalidArgument) instead of waiting forever.
  int64_t max_kv_sequence_tokens = 0;
  int32_t block_size = 0;
  bool enable_prefix_caching = true;
  sample::SamplingLimits sampling;      // vocab size, --max-logprobs, max n
  std::vector<mm::Modality> modalities;  // the item kinds the runner can encode (empty: text only)
};

// The admission check (see ValidatedRequest). Errors are kInvalidArgument with vLLM's messages
// and Status::field() naming the request field ("temperature", "input_tokens", ...) when the
// error is about one.
Result<ValidatedRequest> ValidateRequest(const EngineLimits& limits, EngineRequest request);

class EngineClient {
 public:
  virtual ~EngineClient() = default;

  // Queues a validated request. Errors: kUnavailable when the engine is draining or dead (HTTP
  // 503). Blocks only while the inbox is full.
  virtual Result<std::unique_ptr<RequestStream>> Submit(ValidatedRequest request) = 0;
  // ValidateRequest(limits(), request), then Submit (for callers with nothing to do between).
  Result<std::unique_ptr<RequestStream>> Submit(EngineRequest request);
  // Same as RequestStream::Abort for the stream with this id; unknown ids are ignored.
  virtual void Abort(uint64_t id, FinishReason reason = FinishReason::kAbort) = 0;
  virtual EngineMetrics Metrics() const = 0;
  virtual const EngineLimits& limits() const = 0;
  // False once the engine died (step watchdog, runner failure): /health answers 503.
  virtual bool healthy() const = 0;
};

}  // namespace gemmad::engine
