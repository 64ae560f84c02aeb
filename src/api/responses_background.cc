// BackgroundSink (see responses_background.h).
#include "api/responses_background.h"

namespace gemmad::api {

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
