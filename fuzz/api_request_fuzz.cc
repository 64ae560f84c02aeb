// Fuzz target: arbitrary bytes as an OpenAI request body through the real handlers (body decoding
// and its limits, request parsing, the Gemma 4 chat template, tokenizer, sampling validation,
// structured-output parsing and compilation within a small budget, the response writers) over an
// engine double that answers every choice with a few tokens. The first byte picks the route:
// chat, completions, tokenize, detokenize. Must never crash, hang or abort; 4xx answers are fine.
// gemmad-fuzz-libs: gemmad_api gemmad_tokenizer gemmad_template
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "api/chat_serving.h"
#include "api/completion_serving.h"
#include "api/fake_engine_test_util.h"
#include "api/misc_serving.h"
#include "api/structured_output.h"
#include "base/check.h"
#include "tokenizer/tokenizer.h"

namespace {

using namespace gemmad;  // NOLINT

class DiscardingSink final : public api::ResponseSink {
 public:
  void SendJson(std::string) override {}
  void SendError(const api::ApiError&) override {}
  bool SendEvent(std::string) override { return true; }
  void EndStream() override {}
  bool client_gone() const override { return false; }
  void OnClientGone(std::function<void()>) override {}
};

const tokenizer::Tokenizer& Tok() {
  static auto tok = tokenizer::Tokenizer::Load(std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4");
  GEMMAD_CHECK(tok.ok(), "{}", tok.status().ToString());
  return **tok;
}

const api::ServingContext& BaseContext() {
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 8192) return 0;
  engine::EngineLimits limits;
  limits.max_model_len = 512;
  limits.vocab_size = Tok().vocab_size();
  limits.eos_token_id = 1;
  limits.sampling.vocab_size = limits.vocab_size;
  limits.sampling.max_n = 4;
  api::testing::FakeEngine engine(limits);
  engine.set_script([](const engine::EngineRequest& r) {
    std::vector<engine::RequestOutput> outs;
    for (int32_t i = 0; i < r.sampling.n; ++i) {
      outs.push_back(api::testing::Delta(i, {818, 5279, 106}, engine::FinishReason::kStop, 106));
    }
    return outs;
  });
  api::ServingContext ctx = BaseContext();
  ctx.engine = &engine;
  api::ApiCall call;
  call.body.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
  DiscardingSink sink;
  switch (data[0] % 4) {
    case 0: api::ServeChat(ctx, call, sink); break;
    case 1: api::ServeCompletion(ctx, call, sink); break;
    case 2: api::ServeTokenize(ctx, call, sink); break;
    default: api::ServeDetokenize(ctx, call, sink); break;
  }
  return 0;
}
