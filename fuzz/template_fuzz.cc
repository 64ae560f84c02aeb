// Fuzz target for the Jinja lexer, parser and evaluator: the input is a template (optionally
// followed by "\n#CONTEXT#\n" and a JSON context); it is compiled and, when it compiles, rendered
// with tight limits. Any input must end in a value or a Status, never a crash or a hang.
// gemmad-fuzz-libs: gemmad_template
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "template/chat_template.h"

namespace {

const gemmad::tmpl::Json& DefaultContext() {
  static const gemmad::tmpl::Json* context = new gemmad::tmpl::Json(gemmad::tmpl::Json::parse(R"({
    "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi <b>"},
                 {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function",
                  "function": {"name": "f", "arguments": {"a": 1, "b": [true, null, 1.5e-7]}}}]},
                 {"role": "tool", "tool_call_id": "c1", "content": "ok"}],
    "tools": [{"type": "function", "function": {"name": "f", "description": "d",
               "parameters": {"type": "object", "properties": {"a": {"type": "integer"}}}}}],
    "bos_token": "<bos>", "eos_token": "<eos>", "add_generation_prompt": true,
    "enable_thinking": true, "n": 3, "s": "héllo", "d": {"k": "v", "n": {"x": [1, 2]}}})"));
  return *context;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view source = input;
  gemmad::tmpl::Json context = DefaultContext();
  constexpr std::string_view kSep = "\n#CONTEXT#\n";
  size_t sep = input.find(kSep);
  if (sep != std::string_view::npos) {
    source = input.substr(0, sep);
    auto parsed = gemmad::tmpl::Json::parse(input.substr(sep + kSep.size()), nullptr, false);
    if (!parsed.is_discarded() && parsed.is_object()) context = std::move(parsed);
  }
  auto tmpl = gemmad::tmpl::Template::Compile(source, "fuzz");
  if (!tmpl.ok()) return 0;
  gemmad::tmpl::TemplateRenderOptions options;
  options.limits.max_steps = 200000;
  options.limits.max_output_bytes = 1 << 20;
  options.fixed_time_unix = 1767323045;
  auto out = tmpl->Render(context, options);
  (void)out;
  return 0;
}
