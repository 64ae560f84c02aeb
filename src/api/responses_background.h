// BackgroundSink: where a background /v1/responses run writes. A plain background run's HTTP
// answer (the queued response) has gone: nothing is sent anywhere and the result goes to the
// store. A background stream (background + stream) records every typed event in its
// ResponseEventLog (then runs `recharge`, the store's byte recount) and also writes it to the
// POST's own connection while that client is there; the client leaving does not stop the run.
// Cancel() (POST /v1/responses/{id}/cancel) plays the client leaving: client_gone() turns true
// and the OnClientGone callback (the engine abort) runs.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "api/response_sink.h"
#include "api/responses_event_log.h"

namespace gemmad::api {

class BackgroundSink final : public ResponseSink {
 public:
  BackgroundSink() = default;
  BackgroundSink(std::shared_ptr<ResponseEventLog> log, ResponseSink* client, std::function<void()> recharge)
      : log_(std::move(log)), client_(client), recharge_(std::move(recharge)) {}

  void SendJson(std::string) override {}
  void SendText(std::string, std::string) override {}
  void SendError(const ApiError& error) override { failed_ = true; }
  bool SendEvent(std::string) override { return !client_gone(); }
  void EndStream() override {}
  bool SendTypedEvent(std::string type, std::string json) override;
  void EndTypedStream() override;
  bool client_gone() const override { return cancelled_.load(); }
  void OnClientGone(std::function<void()> callback) override;

  void Cancel();
  bool failed() const { return failed_; }
  // After the run: ends the client's stream if the run did not (a cancelled run), and closes
  // the event log.
  void Finish();

 private:
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> failed_{false};
  std::mutex mu_;
  std::function<void()> on_cancel_;
  std::shared_ptr<ResponseEventLog> log_;
  ResponseSink* client_ = nullptr;  // the POST's connection, while it is there (run thread only)
  bool client_ended_ = false;
  std::function<void()> recharge_;
};

}  // namespace gemmad::api
