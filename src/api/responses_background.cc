// BackgroundSink (see responses_background.h).
#include "api/responses_background.h"

namespace gemmad::api {

bool BackgroundSink::SendTypedEvent(std::string type, std::string json) {
  if (log_) {
    if (client_ != nullptr && !client_->SendTypedEvent(type, json)) client_ = nullptr;  // it left: run on
    log_->Append(std::move(type), std::move(json));
    if (recharge_) recharge_();
  }
  return !client_gone();
}

void BackgroundSink::EndTypedStream() {
  if (client_ != nullptr && !client_ended_) client_->EndTypedStream();
  client_ended_ = true;
}

void BackgroundSink::Finish() {
  EndTypedStream();
  if (log_) log_->Close();
}

void BackgroundSink::OnClientGone(std::function<void()> callback) {
  bool run_now = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_.load()) {
      run_now = true;
    } else {
      on_cancel_ = std::move(callback);
    }
  }
  if (run_now && callback) callback();
}

void BackgroundSink::Cancel() {
  std::function<void()> callback;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_.exchange(true)) return;
    callback = std::move(on_cancel_);
  }
  if (callback) callback();
}

}  // namespace gemmad::api
