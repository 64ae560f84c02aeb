// OutputChannel, AbortMailbox and the RequestStream handle over them.
#include "engine/output_channel.h"

#include <utility>

#include "base/check.h"

namespace gemmad::engine {

void AbortMailbox::Post(uint64_t id, FinishReason reason) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending_.emplace_back(id, reason);
  }
  // Under wake_mu_ (not mu_: `wake` may Drain) so that DisableWake waits for a running call.
  std::lock_guard<std::mutex> lock(wake_mu_);
  if (wake_) wake_();
}

void AbortMailbox::DisableWake() {
  std::lock_guard<std::mutex> lock(wake_mu_);
  wake_ = nullptr;
}

std::vector<std::pair<uint64_t, FinishReason>> AbortMailbox::Drain() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::pair<uint64_t, FinishReason>> out;
  out.swap(pending_);
  return out;
}

OutputChannel::OutputChannel(uint64_t id, std::string request_id, int32_t n,
                             int32_t num_prompt_tokens, std::shared_ptr<AbortMailbox> mailbox)
    : id_(id),
      request_id_(std::move(request_id)),
      n_(n),
      num_prompt_tokens_(num_prompt_tokens),
      mailbox_(std::move(mailbox)),
      finished_(static_cast<size_t>(n), false) {}

void OutputChannel::Push(RequestOutput output) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (failed_) return;
    GEMMAD_CHECK(output.index >= 0 && output.index < n_, "output index {} of {}", output.index, n_);
    GEMMAD_CHECK(!finished_[static_cast<size_t>(output.index)],
                 "output pushed after the final delta of index {}", output.index);
    if (output.finished()) {
      finished_[static_cast<size_t>(output.index)] = true;
      ++num_finished_pushed_;
    }
    pending_.push_back(std::move(output));
  }
  cv_.notify_all();
  // Called under notify_mu_ so that SetNotifier(nullptr) returns only once no call is running.
  std::lock_guard<std::mutex> lock(notify_mu_);
  if (notify_) notify_();
}

RequestStream::ReadStatus OutputChannel::TakeLocked(RequestOutput* out) {
  if (pending_.empty()) {
    return num_finished_read_ == n_ ? RequestStream::ReadStatus::kEnd
                                    : RequestStream::ReadStatus::kTimeout;
  }
  *out = std::move(pending_.front());
  pending_.pop_front();
  // Merge later pending deltas of the same index (order within an index is preserved).
  for (auto it = pending_.begin(); it != pending_.end() && !out->finished();) {
    if (it->index == out->index) {
      MergeOutput(out, std::move(*it));
      it = pending_.erase(it);
    } else {
      ++it;
    }
  }
  if (out->finished()) ++num_finished_read_;
  return RequestStream::ReadStatus::kOutput;
}

RequestStream::ReadStatus OutputChannel::Read(RequestOutput* out,
                                              std::chrono::milliseconds timeout,
                                              bool wait_forever) {
  std::unique_lock<std::mutex> lock(mu_);
  auto ready = [&] { return !pending_.empty() || num_finished_read_ == n_; };
  if (wait_forever) {
    cv_.wait(lock, ready);
  } else if (timeout.count() > 0) {
    cv_.wait_for(lock, timeout, ready);
  }
  return TakeLocked(out);
}

void OutputChannel::SetNotifier(std::function<void()> notify) {
  std::lock_guard<std::mutex> notify_lock(notify_mu_);
  notify_ = std::move(notify);
  bool pending = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    pending = !pending_.empty();
  }
  if (notify_ && pending) notify_();
}

void OutputChannel::RequestAbort(FinishReason reason) {
  if (all_finished()) return;
  // The engine learns of the abort from the mailbox or, for a request still in its inbox,
  // from abort_state_ when it admits the request.
  int expected = 0;
  if (!abort_state_.compare_exchange_strong(expected, 1 + static_cast<int>(reason), std::memory_order_acq_rel)) {
    return;  // already on its way
  }
  if (mailbox_) mailbox_->Post(id_, reason);
}

void OutputChannel::FailAll(const Status& status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (failed_) return;
    for (int32_t i = 0; i < n_; ++i) {
      if (finished_[static_cast<size_t>(i)]) continue;
      RequestOutput out;
      out.index = i;
      out.finish_reason = FinishReason::kError;
      out.error = status;
      out.num_prompt_tokens = num_prompt_tokens_;
      finished_[static_cast<size_t>(i)] = true;
      ++num_finished_pushed_;
      pending_.push_back(std::move(out));
    }
    failed_ = true;
  }
  cv_.notify_all();
  std::lock_guard<std::mutex> lock(notify_mu_);
  if (notify_) notify_();
}

bool OutputChannel::all_finished() const {
  std::lock_guard<std::mutex> lock(mu_);
  return num_finished_pushed_ == n_;
}

void MergeOutput(RequestOutput* into, RequestOutput&& next) {
  GEMMAD_CHECK(into->index == next.index, "merging outputs of different indices");
  into->token_ids.insert(into->token_ids.end(), next.token_ids.begin(), next.token_ids.end());
  for (auto& lp : next.logprobs) into->logprobs.push_back(std::move(lp));
  if (!into->prompt_logprobs && next.prompt_logprobs) {
    into->prompt_logprobs = std::move(next.prompt_logprobs);
  }
  into->finish_reason = next.finish_reason;
  into->stop_token_id = next.stop_token_id;
  into->error = std::move(next.error);
  into->num_prompt_tokens = next.num_prompt_tokens;
  into->num_cached_tokens = next.num_cached_tokens;
  into->num_output_tokens = next.num_output_tokens;
}

// ---- RequestStream ----

RequestStream::RequestStream(std::shared_ptr<OutputChannel> channel)
    : channel_(std::move(channel)) {
  GEMMAD_CHECK(channel_ != nullptr, "RequestStream without a channel");
}

RequestStream::~RequestStream() {
  if (!channel_->all_finished()) channel_->RequestAbort(FinishReason::kAbort);
  // A notifier may capture the reader's state, which is going away with this handle.
  channel_->SetNotifier(nullptr);
}

uint64_t RequestStream::id() const { return channel_->id(); }
const std::string& RequestStream::request_id() const { return channel_->request_id(); }
int32_t RequestStream::n() const { return channel_->n(); }
int32_t RequestStream::num_prompt_tokens() const { return channel_->num_prompt_tokens(); }

RequestStream::ReadStatus RequestStream::Read(RequestOutput* out,
                                              std::chrono::milliseconds timeout) {
  return channel_->Read(out, timeout, /*wait_forever=*/false);
}
RequestStream::ReadStatus RequestStream::Read(RequestOutput* out) {
  return channel_->Read(out, std::chrono::milliseconds(0), /*wait_forever=*/true);
}
RequestStream::ReadStatus RequestStream::TryRead(RequestOutput* out) {
  return channel_->Read(out, std::chrono::milliseconds(0), /*wait_forever=*/false);
}
void RequestStream::SetNotifier(std::function<void()> notify) {
  channel_->SetNotifier(std::move(notify));
}
void RequestStream::Abort(FinishReason reason) { channel_->RequestAbort(reason); }
bool RequestStream::finished() const { return channel_->all_finished(); }

std::string_view FinishReasonName(FinishReason reason) {
  switch (reason) {
    case FinishReason::kNone: return "";
    case FinishReason::kStop: return "stop";
    case FinishReason::kLength: return "length";
    case FinishReason::kAbort: return "abort";
    case FinishReason::kError: return "error";
  }
  return "";
}

}  // namespace gemmad::engine
