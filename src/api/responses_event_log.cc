// ResponseEventLog (see responses_event_log.h).
#include "api/responses_event_log.h"

#include <cstdlib>

namespace gemmad::api {

size_t ResponseEventLog::MaxBytesFromEnvironment() {
  constexpr size_t kDefault = size_t{4} << 20;
  const char* v = std::getenv("GEMMAD_RESPONSES_EVENT_LOG_MAX_BYTES");
  if (v == nullptr || *v == '\0') return kDefault;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (end == nullptr || *end != '\0') return kDefault;
  return static_cast<size_t>(n);
}

void ResponseEventLog::Append(std::string type, std::string json) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    LoggedEvent e{first_ + static_cast<int64_t>(events_.size()), std::move(type), std::move(json)};
    bytes_ += Cost(e);
    events_.push_back(std::move(e));
    while (bytes_ > max_bytes_ && events_.size() > 1) {
      bytes_ -= Cost(events_.front());
      events_.pop_front();
      ++first_;
    }
  }
  changed_.notify_all();
}

void ResponseEventLog::Close() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  changed_.notify_all();
}

ResponseEventLog::Read ResponseEventLog::ReadFrom(int64_t* next, std::vector<LoggedEvent>* out,
                                                  std::chrono::milliseconds wait, size_t max_events) const {
  out->clear();
  std::unique_lock<std::mutex> lock(mu_);
  const int64_t end_before = first_ + static_cast<int64_t>(events_.size());
  if (*next >= end_before && !closed_) {
    changed_.wait_for(lock, wait, [&] { return closed_ || first_ + static_cast<int64_t>(events_.size()) > *next; });
  }
  if (*next < first_) return Read::kGap;
  const int64_t end = first_ + static_cast<int64_t>(events_.size());
  while (*next < end && out->size() < max_events) {
    out->push_back(events_[static_cast<size_t>(*next - first_)]);
    ++*next;
  }
  if (!out->empty()) return Read::kEvents;
  return closed_ ? Read::kClosed : Read::kTimeout;
}

size_t ResponseEventLog::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

int64_t ResponseEventLog::first_sequence_number() const {
  std::lock_guard<std::mutex> lock(mu_);
  return first_;
}

bool ResponseEventLog::closed() const {
  std::lock_guard<std::mutex> lock(mu_);
  return closed_;
}

}  // namespace gemmad::api
