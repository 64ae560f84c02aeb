// ResponseEventLog: the typed events of one background streamed /v1/responses run (vLLM's
// event_store deque), which GET /v1/responses/{id}?stream=true&starting_after=N replays and then
// follows live. Bounded: beyond `max_bytes` (GEMMAD_RESPONSES_EVENT_LOG_MAX_BYTES, default
// 4 MiB) of event type + JSON the oldest events are dropped (the newest is always kept); a reader
// that needs a dropped event gets kGap. The run appends, then Close()s when it ends (completed,
// failed or cancelled), so readers never wait on a finished run. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace gemmad::api {

struct LoggedEvent {
  int64_t sequence_number = 0;
  std::string type;
  std::string json;
};

class ResponseEventLog {
 public:
  explicit ResponseEventLog(size_t max_bytes) : max_bytes_(max_bytes) {}
  static size_t MaxBytesFromEnvironment();

  // Records the next event (sequence numbers count from 0, as the writer's) and wakes readers.
  void Append(std::string type, std::string json);
  // No more events will come.
  void Close();

  enum class Read { kEvents, kTimeout, kClosed, kGap };
  // The events from sequence number *next on (at most `max_events`) into *out, advancing *next;
  // waits up to `wait` when there is none yet. kClosed: closed and every event was read; kGap:
  // *next was dropped from the log.
  Read ReadFrom(int64_t* next, std::vector<LoggedEvent>* out, std::chrono::milliseconds wait,
                size_t max_events = 64) const;

  size_t bytes() const;
  int64_t first_sequence_number() const;  // the oldest kept event's
  bool closed() const;

 private:
  static size_t Cost(const LoggedEvent& e) { return e.type.size() + e.json.size() + sizeof(LoggedEvent); }

  const size_t max_bytes_;
  mutable std::mutex mu_;
  mutable std::condition_variable changed_;
  std::deque<LoggedEvent> events_;
  int64_t first_ = 0;  // sequence number of events_.front()
  size_t bytes_ = 0;
  bool closed_ = false;
};

}  // namespace gemmad::api
