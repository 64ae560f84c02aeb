// Test-only helpers for the api/ handler tests (header-only, included by *_test.cc): a
// ResponseSink that records what a handler wrote, and the Gemma 4 tokenizer of the shared data.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/request_fields.h"
#include "api/response_sink.h"
#include "base/check.h"
#include "engine/engine_client.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::api::testing {

class RecordingSink final : public ResponseSink {
 public:
  void SendJson(std::string b) override { SendText("application/json", std::move(b)); }
  void SendText(std::string t, std::string b) override {
    type = std::move(t);
    body = std::move(b);
  }
  void SendError(const ApiError& e) override { error = e; }
  bool SendEvent(std::string json) override {
    events.push_back(Json::parse(json));
    return true;
  }
  void EndStream() override { done = true; }
  bool SendTypedEvent(std::string t, std::string json) override {
    event_types.push_back(std::move(t));
    return SendEvent(std::move(json));
  }
  void EndTypedStream() override { typed_done = true; }
  bool client_gone() const override { return false; }
  void OnClientGone(std::function<void()>) override {}
  Json json() const { return Json::parse(body); }

  std::string type;  // the content type of SendJson / SendText
  std::string body;
  std::optional<ApiError> error;
  std::vector<Json> events;
  bool done = false;
  std::vector<std::string> event_types;  // SendTypedEvent's types, in order
  bool typed_done = false;
};

inline const tokenizer::Tokenizer& Tok() {
  static auto tok = tokenizer::Tokenizer::Load(std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4");
  GEMMAD_CHECK(tok.ok(), "{}", tok.status().ToString());
  return **tok;
}

// Engine limits for handler tests: `max_len` tokens of context and KV, the tokenizer's vocabulary,
// eos 1.
inline engine::EngineLimits TestLimits(int64_t max_len) {
  engine::EngineLimits limits;
  limits.max_model_len = max_len;
  limits.max_kv_sequence_tokens = max_len;
  limits.vocab_size = Tok().vocab_size();
  limits.eos_token_id = 1;
  limits.sampling.vocab_size = limits.vocab_size;
  return limits;
}

}  // namespace gemmad::api::testing
