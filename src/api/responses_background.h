// BackgroundSink: where a background /v1/responses run writes once its HTTP answer (the queued
// response) has gone: nothing is sent anywhere; the run's result goes to the store. Cancel()
// (POST /v1/responses/{id}/cancel) plays the client leaving: client_gone() turns true and the
// OnClientGone callback (the engine abort) runs.
#pragma once

#include <atomic>
#include <functional>
#include <mutex>
#include <optional>
#include <string>

#include "api/response_sink.h"

namespace gemmad::api {

class BackgroundSink final : public ResponseSink {
 public:
  void SendJson(std::string) override {}
  void SendText(std::string, std::string) override {}
  void SendError(const ApiError& error) override { failed_ = true; }
  bool SendEvent(std::string) override { return !client_gone(); }
  void EndStream() override {}
  bool SendTypedEvent(std::string, std::string) override { return !client_gone(); }
  void EndTypedStream() override {}
  bool client_gone() const override { return cancelled_.load(); }
  void OnClientGone(std::function<void()> callback) override;

  void Cancel();
  bool failed() const { return failed_; }

 private:
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> failed_{false};
  std::mutex mu_;
  std::function<void()> on_cancel_;
};

}  // namespace gemmad::api
