// ResponsesStore (see responses_store.h).
#include "api/responses_store.h"

#include <cctype>
#include <cstdlib>
#include <string_view>

namespace gemmad::api {
namespace {

size_t EnvSize(const char* name, size_t fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v, &end, 10);
  if (end == nullptr || *end != '\0') return fallback;
  return static_cast<size_t>(n);
}

// vLLM's envs: "1" / "true" (any case) enable it.
bool EnvFlag(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return false;
  std::string s(v);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s == "1" || s == "true";
}

}  // namespace

std::shared_ptr<ResponsesStore> ResponsesStore::FromEnvironment() {
  return std::make_shared<ResponsesStore>(EnvFlag("VLLM_ENABLE_RESPONSES_API_STORE"),
                        EnvSize("GEMMAD_RESPONSES_STORE_MAX_ENTRIES", 1000),
                        EnvSize("GEMMAD_RESPONSES_STORE_MAX_BYTES", size_t{64} << 20));
}

void ResponsesStore::Put(const std::string& id, StoredResponse value) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  PutLocked(id, std::move(value));
}

void ResponsesStore::PutLocked(const std::string& id, StoredResponse value) {
  size_t json_bytes = id.size() + DumpJson(value.response).size() + DumpJson(value.messages).size();
  size_t bytes = json_bytes + (value.events ? value.events->bytes() : 0);
  if (auto it = index_.find(id); it != index_.end()) {
    bytes_ -= it->second->bytes;
    lru_.erase(it->second);
    index_.erase(it);
  }
  if (bytes > max_bytes_ || max_entries_ == 0) return;
  lru_.push_front(Entry{id, std::move(value), bytes, json_bytes});
  index_[id] = lru_.begin();
  bytes_ += bytes;
  EvictLocked();
}

void ResponsesStore::Recharge(const std::string& id) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(id);
  if (it == index_.end()) return;
  Entry& e = *it->second;
  bytes_ -= e.bytes;
  e.bytes = e.json_bytes + (e.value.events ? e.value.events->bytes() : 0);
  bytes_ += e.bytes;
  EvictLocked();
}

void ResponsesStore::EvictLocked() {
  while (!lru_.empty() && (lru_.size() > max_entries_ || bytes_ > max_bytes_)) {
    bytes_ -= lru_.back().bytes;
    index_.erase(lru_.back().id);
    lru_.pop_back();
  }
}

std::optional<StoredResponse> ResponsesStore::Get(const std::string& id) {
  if (!enabled_) return std::nullopt;
  std::lock_guard<std::mutex> lock(mu_);
  auto it = index_.find(id);
  if (it == index_.end()) return std::nullopt;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->value;
}

std::string ResponsesStore::StatusLocked(const std::string& id) const {
  auto it = index_.find(id);
  if (it == index_.end()) return "";
  return it->second->value.response.value("status", "");
}

void ResponsesStore::Finish(const std::string& id, StoredResponse value) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (StatusLocked(id) == "cancelled") return;
  if (auto it = index_.find(id); it != index_.end() && !value.events) value.events = it->second->value.events;
  PutLocked(id, std::move(value));
}

void ResponsesStore::Fail(const std::string& id) {
  if (!enabled_) return;
  std::lock_guard<std::mutex> lock(mu_);
  std::string status = StatusLocked(id);
  if (status.empty() || status == "completed" || status == "cancelled") return;
  index_[id]->value.response["status"] = "failed";
}

void ResponsesStore::SetCanceller(const std::string& id, std::function<void()> cancel) {
  std::lock_guard<std::mutex> lock(mu_);
  cancellers_[id] = std::move(cancel);
}

void ResponsesStore::ClearCanceller(const std::string& id) {
  std::lock_guard<std::mutex> lock(mu_);
  cancellers_.erase(id);
}

ResponsesStore::CancelResult ResponsesStore::Cancel(const std::string& id, Json* response) {
  if (!enabled_) return CancelResult::kNotFound;
  std::function<void()> cancel;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = index_.find(id);
    if (it == index_.end()) return CancelResult::kNotFound;
    Json& stored = it->second->value.response;
    std::string status = stored.value("status", "");
    if (status != "queued" && status != "in_progress") {
      *response = stored;
      return CancelResult::kNotCancellable;
    }
    stored["status"] = "cancelled";
    *response = stored;
    if (auto c = cancellers_.find(id); c != cancellers_.end()) cancel = c->second;
  }
  if (cancel) cancel();
  return CancelResult::kCancelled;
}

size_t ResponsesStore::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lru_.size();
}

size_t ResponsesStore::bytes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return bytes_;
}

}  // namespace gemmad::api
