// Shared by the API-level fuzz targets (api_request, http_request): the served context over the
// real Gemma 4 tokenizer and chat template, and an engine double that answers every choice with a
// few tokens. Header-only; each target includes it once.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "api/fake_engine_test_util.h"
#include "api/serving_context.h"
#include "api/structured_output.h"
#include "base/check.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::fuzz {

inline const tokenizer::Tokenizer& Tok() {
  static auto tok = tokenizer::Tokenizer::Load(std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4");
  GEMMAD_CHECK(tok.ok(), "{}", tok.status().ToString());
  return **tok;
}

inline const api::ServingContext& BaseContext() {
  static const api::ServingContext* ctx = [] {
    auto* c = new api::ServingContext;
    c->tokenizer = &Tok();
    c->chat_template = *tmpl::MakeChatTemplate(tmpl::EmbeddedGemma4ToolTemplate(), "gemma4");
    c->options.served_model_names = {"google/gemma-4-E2B-it"};
    c->options.enable_auto_tool_choice = true;
    c->options.tool_call_parser = "gemma4";
    c->options.reasoning_parser = "gemma4";
    c->generation_defaults.eos_token_ids = {1, 106, 50};
    c->render_options.template_options.limits.max_steps = 200000;
    c->limits.compile.timeout_s = 0.05;  // keeps an execution short; the bound itself is under test
    c->limits.compile.max_nesting = 8;
    c->structured_outputs = std::make_shared<api::StructuredOutputs>(&Tok(), Tok().vocab_size(),
                                                                     std::vector<int32_t>{1, 106, 50},
                                                                     constrain::StructuredOutputsConfig{});
    return c;
  }();
  return *ctx;
}

// A fresh engine double per execution (it records every request, so one shared across millions
// of executions would grow without bound).
inline std::unique_ptr<api::testing::FakeEngine> MakeEngine() {
  engine::EngineLimits limits;
  limits.max_model_len = 512;
  limits.max_kv_sequence_tokens = 512;
  limits.vocab_size = Tok().vocab_size();
  limits.eos_token_id = 1;
  limits.sampling.vocab_size = limits.vocab_size;
  limits.sampling.max_n = 4;
  auto engine = std::make_unique<api::testing::FakeEngine>(limits);
  engine->set_script([](const engine::EngineRequest& r) {
    std::vector<engine::RequestOutput> outs;
    for (int32_t i = 0; i < r.sampling.n; ++i) {
      outs.push_back(api::testing::Delta(i, {818, 5279, 106}, engine::FinishReason::kStop, 106));
    }
    return outs;
  });
  return engine;
}

}  // namespace gemmad::fuzz
