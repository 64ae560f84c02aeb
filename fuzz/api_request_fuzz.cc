// Fuzz target: arbitrary bytes as an OpenAI request body through the real handlers (body decoding
// and its limits, request parsing, the Gemma 4 chat template, tokenizer, sampling validation,
// structured-output parsing and compilation within a small budget, the response writers) over an
// engine double that answers every choice with a few tokens. The first byte picks the route:
// chat, completions, tokenize, responses, detokenize. Must never crash, hang or abort; 4xx answers are fine.
// gemmad-fuzz-libs: gemmad_api gemmad_tokenizer gemmad_template
#include <cstddef>
#include <cstdint>
#include <string>

#include "api/chat_serving.h"
#include "api/completion_serving.h"
#include "api/misc_serving.h"
#include "api/responses_serving.h"
#include "api_fuzz_common.h"

namespace {

using namespace gemmad;  // NOLINT

class DiscardingSink final : public api::ResponseSink {
 public:
  void SendJson(std::string) override {}
  void SendText(std::string, std::string) override {}
  void SendError(const api::ApiError&) override {}
  bool SendEvent(std::string) override { return true; }
  void EndStream() override {}
  bool SendTypedEvent(std::string, std::string) override { return true; }
  void EndTypedStream() override {}
  bool client_gone() const override { return false; }
  void OnClientGone(std::function<void()>) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1 || size > 8192) return 0;
  auto engine = fuzz::MakeEngine();
  api::ServingContext ctx = fuzz::BaseContext();
  ctx.engine = engine.get();
  api::ApiCall call;
  call.body.assign(reinterpret_cast<const char*>(data) + 1, size - 1);
  DiscardingSink sink;
  switch (data[0] % 5) {
    case 0: api::ServeChat(ctx, call, sink); break;
    case 1: api::ServeCompletion(ctx, call, sink); break;
    case 2: api::ServeTokenize(ctx, call, sink); break;
    case 3: api::ServeResponses(ctx, call, sink); break;
    default: api::ServeDetokenize(ctx, call, sink); break;
  }
  return 0;
}
