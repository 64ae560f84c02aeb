// Parser fixtures: model output, how it is first cut into deltas, and the expected message.
// Each fixture names the vLLM test it answers (tests/tool_parsers/test_gemma4_tool_parser.py,
// tests/reasoning/test_gemma4_reasoning_parser.py, across the vLLM versions read) or the
// chat-format.md defect it decides, with a verdict; docs/tool-calling.md carries the same table
// (checked by fixtures_test). The texts are our own; only the behaviour is mapped.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "parse_test_util.h"

namespace gemmad::parse::testing {

struct ExpectedCall {
  std::string name;
  std::string arguments;  // exact JSON text
  bool complete = true;
};

struct Fixture {
  std::string id;       // our name, unique
  std::string vllm;     // the vLLM test(s) or defect it maps to
  std::string verdict;  // "same" | "fixed: why" | "kept: why" | "differs: why" | "n/a: why"
  ParserSetup setup;
  std::vector<std::string> chunks;  // the first split fed (random splits follow elsewhere)
  std::optional<std::string> reasoning;
  std::optional<std::string> content;
  std::vector<ExpectedCall> calls;
};

const std::vector<Fixture>& VllmToolParserFixtures();
const std::vector<Fixture>& VllmToolStreamingFixtures();
const std::vector<Fixture>& VllmReasoningFixtures();
const std::vector<Fixture>& DefectFixtures();
std::vector<Fixture> AllFixtures();

// Setups used by the tables.
inline ParserSetup ToolsOnly() { return ParserSetup{.reasoning = false, .tools = true}; }
inline ParserSetup ReasoningOnly() { return ParserSetup{.reasoning = true, .tools = false}; }
inline ParserSetup Both() { return ParserSetup{}; }

// gtest prints a fixture by its id.
inline void PrintTo(const Fixture& f, std::ostream* os) { *os << f.id; }

// Builds the expected ParsedMessage (ids call_0, call_1, ... in order).
ParsedMessage Expected(const Fixture& f);

}  // namespace gemmad::parse::testing
