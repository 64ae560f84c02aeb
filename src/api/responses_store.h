// ResponsesStore: the stored responses behind GET /v1/responses/{id}, cancel and
// previous_response_id. As in vLLM, storing is off unless VLLM_ENABLE_RESPONSES_API_STORE=1
// (store=true requests are then silently not stored, and every lookup misses). Unlike vLLM's
// unbounded dicts it is bounded: least-recently-used entries are evicted beyond
// GEMMAD_RESPONSES_STORE_MAX_ENTRIES (default 1000) entries or GEMMAD_RESPONSES_STORE_MAX_BYTES
// (default 64 MiB) of serialised JSON plus the entries' event logs (background streams). Thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "api/request_fields.h"
#include "api/responses_event_log.h"

namespace gemmad::api {

struct StoredResponse {
  Json response;                  // the response object as returned
  Json messages = Json::array();  // the chat messages its request was rendered from
  // A background stream's recorded events (null otherwise); its bytes count in the store's cap.
  std::shared_ptr<ResponseEventLog> events;
};

class ResponsesStore {
 public:
  ResponsesStore(bool enabled, size_t max_entries, size_t max_bytes)
      : enabled_(enabled), max_entries_(max_entries), max_bytes_(max_bytes) {}
  // From VLLM_ENABLE_RESPONSES_API_STORE and the two GEMMAD_RESPONSES_STORE_* caps.
  static std::shared_ptr<ResponsesStore> FromEnvironment();

  bool enabled() const { return enabled_; }
  // Stores (or replaces) `id`, then evicts the least recently used entries beyond the caps. An
  // entry larger than the byte cap on its own is not stored. No-op when disabled.
  void Put(const std::string& id, StoredResponse value);
  // The entry, marked most recently used; nullopt when absent (always when disabled).
  std::optional<StoredResponse> Get(const std::string& id);

  // Recounts `id`'s bytes (its event log grew), evicting beyond the caps.
  void Recharge(const std::string& id);

  // Background runs (vLLM's background mode). Finish and Fail keep the entry's event log. Finish stores a run's final response unless the
  // stored one was cancelled meanwhile; Fail marks it "failed" unless completed or cancelled.
  void Finish(const std::string& id, StoredResponse value);
  void Fail(const std::string& id);
  // `cancel` aborts the running request `id` (one per running background request; cleared by
  // the run when it ends, so the map is bounded by the requests in flight).
  void SetCanceller(const std::string& id, std::function<void()> cancel);
  void ClearCanceller(const std::string& id);
  enum class CancelResult { kNotFound, kNotCancellable, kCancelled };
  // vLLM's cancel_responses: a queued / in_progress response becomes "cancelled" (its run is
  // aborted); `*response` receives the stored response either way.
  CancelResult Cancel(const std::string& id, Json* response);
  size_t size() const;
  size_t bytes() const;

 private:
  struct Entry {
    std::string id;
    StoredResponse value;
    size_t bytes = 0;       // all of it
    size_t json_bytes = 0;  // without the event log
  };
  void EvictLocked();
  void PutLocked(const std::string& id, StoredResponse value);
  std::string StatusLocked(const std::string& id) const;

  const bool enabled_;
  const size_t max_entries_;
  const size_t max_bytes_;
  mutable std::mutex mu_;
  std::list<Entry> lru_;  // front: most recently used
  std::unordered_map<std::string, std::list<Entry>::iterator> index_;
  size_t bytes_ = 0;
  std::unordered_map<std::string, std::function<void()>> cancellers_;
};

}  // namespace gemmad::api
