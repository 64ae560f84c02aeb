// Fuzz target for the gemma4 tool-call parser, alone or behind the reasoning parser
// (OutputParser), see parse_fuzz_common.h. Complete calls must have valid JSON arguments.
// gemmad-fuzz-libs: gemmad_parse
#include <nlohmann/json.hpp>

#include "parse/output_parser.h"
#include "parse_fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gemmad::parse;
  if (size == 0) return 0;
  const uint8_t control = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  OutputParserConfig config;
  config.tool_call_parser = "gemma4";
  if (control & 0x80) config.reasoning_parser = "gemma4";
  config.reasoning.prompt_in_reasoning = (control & 0x40) != 0;
  config.tool_calls.parallel_tool_calls = (control & 0x20) == 0;
  auto run = [&](const std::vector<std::string_view>& pieces) {
    OutputParserConfig c = config;
    c.tool_calls.make_id = [n = 0]() mutable { return "id" + std::to_string(n++); };
    auto parser = MakeOutputParser(c);
    fuzz::Outcome o;
    for (auto p : pieces) {
      for (auto& d : (*parser)->Feed(p)) o.deltas.push_back(std::move(d));
    }
    for (auto& d : (*parser)->Finish()) o.deltas.push_back(std::move(d));
    o.message = (*parser)->message();
    for (const auto& call : o.message.tool_calls) {
      if (call.complete && !nlohmann::json::accept(call.arguments)) {
        fuzz::Fail("complete call with invalid JSON arguments", call.arguments);
      }
    }
    return o;
  };
  fuzz::CheckInvariance(text, control, /*check_markers=*/true, run);
  return 0;
}
