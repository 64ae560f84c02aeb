// Tool-call parser registry (tool_call_parser.h): name -> factory; ToolCallIdGenerator.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "parse/tool_call/gemma4_tool_call.h"
#include "parse/tool_call/tool_call_parser.h"

namespace gemmad::parse {
namespace {

struct Entry {
  std::string_view name;
  std::unique_ptr<ToolCallParser> (*make)(const ToolCallOptions&);
};

constexpr Entry kEntries[] = {
    {"gemma4", [](const ToolCallOptions& o) -> std::unique_ptr<ToolCallParser> {
       return std::make_unique<Gemma4ToolCallParser>(o);
     }},
};

}  // namespace

std::vector<std::string> ToolCallParserNames() {
  std::vector<std::string> names;
  for (const auto& e : kEntries) names.emplace_back(e.name);
  return names;
}

Result<std::unique_ptr<ToolCallParser>> MakeToolCallParser(std::string_view name,
                                                           const ToolCallOptions& options) {
  for (const auto& e : kEntries) {
    if (e.name == name) return e.make(options);
  }
  return InvalidArgumentError(fmt::format("unknown tool-call parser \"{}\"; known parsers: {}",
                                          name, fmt::join(ToolCallParserNames(), ", ")));
}

ParsedMessage ParseToolCalls(ToolCallParser& parser, std::string_view text) {
  MessageAssembler assembler;
  assembler.Add(parser.Feed(text));
  assembler.Add(parser.Finish());
  for (int index : parser.IncompleteCalls()) assembler.MarkIncomplete(index);
  return assembler.Build();
}

ToolCallIdGenerator::ToolCallIdGenerator(uint64_t seed) : state_(seed) {}

std::string ToolCallIdGenerator::Next() {
  // splitmix64: every seed gives a full-period, well-mixed sequence; two draws make the 128 bits
  // of vLLM's uuid4().hex.
  const auto draw = [this] {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const uint64_t hi = draw();
  return fmt::format("chatcmpl-tool-{:016x}{:016x}", hi, draw());
}

}  // namespace gemmad::parse
