// Reasoning parser registry (reasoning_parser.h): name -> factory.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "parse/reasoning/gemma4_reasoning.h"
#include "parse/reasoning/reasoning_parser.h"

namespace gemmad::parse {
namespace {

struct Entry {
  std::string_view name;
  std::unique_ptr<ReasoningParser> (*make)(const ReasoningOptions&);
};

constexpr Entry kEntries[] = {
    {"gemma4", [](const ReasoningOptions& o) -> std::unique_ptr<ReasoningParser> {
       return std::make_unique<Gemma4ReasoningParser>(o);
     }},
};

}  // namespace

std::vector<std::string> ReasoningParserNames() {
  std::vector<std::string> names;
  for (const auto& e : kEntries) names.emplace_back(e.name);
  return names;
}

Result<std::unique_ptr<ReasoningParser>> MakeReasoningParser(std::string_view name,
                                                             const ReasoningOptions& options) {
  for (const auto& e : kEntries) {
    if (e.name == name) return e.make(options);
  }
  return InvalidArgumentError(fmt::format("unknown reasoning parser \"{}\"; known parsers: {}",
                                          name, fmt::join(ReasoningParserNames(), ", ")));
}

ParsedMessage ParseReasoning(ReasoningParser& parser, std::string_view text) {
  MessageAssembler assembler;
  assembler.Add(parser.Feed(text));
  assembler.Add(parser.Finish());
  return assembler.Build();
}

}  // namespace gemmad::parse
