// Fuzz target for request normalisation + the Gemma 4 template: the input is a chat request JSON
// ({"messages": ..., "tools": ..., "chat_template_kwargs": ..., "add_generation_prompt": ...,
// "continue_final_message": ...}); RenderChat must return a prompt or an InvalidArgument status.
// gemmad-fuzz-libs: gemmad_template
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "template/chat_template.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using gemmad::tmpl::Json;
  static const auto* chat_template = new gemmad::tmpl::ChatTemplate(
      *gemmad::tmpl::MakeChatTemplate(gemmad::tmpl::EmbeddedGemma4ToolTemplate(), "gemma4"));
  std::string_view input(reinterpret_cast<const char*>(data), size);
  Json request = Json::parse(input, nullptr, false);
  if (request.is_discarded() || !request.is_object()) return 0;
  gemmad::tmpl::RenderOptions options;
  options.template_options.limits.max_steps = 500000;
  if (request.contains("add_generation_prompt") && request["add_generation_prompt"].is_boolean()) {
    options.add_generation_prompt = request["add_generation_prompt"].get<bool>();
  }
  if (request.contains("continue_final_message") && request["continue_final_message"].is_boolean()) {
    options.continue_final_message = request["continue_final_message"].get<bool>();
  }
  auto prompt = gemmad::tmpl::RenderChat(*chat_template, request.value("messages", Json()),
                                         request.value("tools", Json()),
                                         request.value("chat_template_kwargs", Json()), options);
  (void)prompt;
  return 0;
}
