// Test-only EngineClient double for api/ tests (header-only, included by *_test.cc): Submit takes
// requests that passed the engine's own ValidateRequest and pushes a
// scripted list of RequestOutputs into a real OutputChannel before returning, so reads see them
// merged per choice deterministically. Records every submitted request.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "engine/engine_client.h"
#include "engine/output_channel.h"

namespace gemmad::api::testing {

class FakeEngine final : public engine::EngineClient {
 public:
  using Script = std::function<std::vector<engine::RequestOutput>(const engine::EngineRequest&)>;

  explicit FakeEngine(engine::EngineLimits limits) : limits_(std::move(limits)) {
    mailbox_ = std::make_shared<engine::AbortMailbox>([this] { DrainAborts(); });
  }

  void set_script(Script script) { script_ = std::move(script); }
  std::vector<engine::EngineRequest> submitted() const {
    std::lock_guard<std::mutex> lock(mu_);
    return submitted_;
  }
  std::vector<uint64_t> aborted() const {
    std::lock_guard<std::mutex> lock(mu_);
    return aborted_;
  }

  using engine::EngineClient::Submit;
  Result<std::unique_ptr<engine::RequestStream>> Submit(engine::ValidatedRequest validated) override {
    engine::EngineRequest request = std::move(validated).Release();
    uint64_t id;
    {
      std::lock_guard<std::mutex> lock(mu_);
      id = next_id_++;
      submitted_.push_back(request);
    }
    auto channel = std::make_shared<engine::OutputChannel>(id, request.request_id, request.sampling.n,
                                                           static_cast<int32_t>(request.prompt_token_ids.size()),
                                                           mailbox_);
    for (engine::RequestOutput& out : script_(request)) {
      out.num_prompt_tokens = static_cast<int32_t>(request.prompt_token_ids.size());
      channel->Push(std::move(out));
    }
    return std::make_unique<engine::RequestStream>(channel);
  }
  void Abort(uint64_t id, engine::FinishReason) override {
    std::lock_guard<std::mutex> lock(mu_);
    aborted_.push_back(id);
  }
  engine::EngineMetrics Metrics() const override { return {}; }
  const engine::EngineLimits& limits() const override { return limits_; }
  bool healthy() const override { return true; }

 private:
  void DrainAborts() {
    for (auto& [id, reason] : mailbox_->Drain()) Abort(id, reason);
  }

  engine::EngineLimits limits_;
  Script script_;
  std::shared_ptr<engine::AbortMailbox> mailbox_;
  mutable std::mutex mu_;
  uint64_t next_id_ = 1;
  std::vector<engine::EngineRequest> submitted_;
  std::vector<uint64_t> aborted_;
};

// A finished (or not) delta of choice `index` with `ids`.
inline engine::RequestOutput Delta(int32_t index, std::vector<int32_t> ids,
                                   engine::FinishReason reason = engine::FinishReason::kNone,
                                   std::optional<int32_t> stop_token = std::nullopt) {
  engine::RequestOutput out;
  out.index = index;
  out.token_ids = std::move(ids);
  out.finish_reason = reason;
  out.stop_token_id = stop_token;
  return out;
}

}  // namespace gemmad::api::testing
