// Parser test helpers (parse_test_util.h).
#include "parse_test_util.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "parse/openai_json.h"
#include "parse/stream_check.h"

namespace gemmad::parse::testing {

OutputParserConfig MakeConfig(const ParserSetup& setup) {
  OutputParserConfig c;
  if (setup.reasoning) c.reasoning_parser = "gemma4";
  if (setup.tools) c.tool_call_parser = "gemma4";
  c.reasoning.prompt_in_reasoning = setup.prompt_in_reasoning;
  c.tool_calls.parallel_tool_calls = setup.parallel_tool_calls;
  c.tool_calls.make_id = [n = 0]() mutable { return fmt::format("call_{}", n++); };
  c.include_reasoning = setup.include_reasoning;
  return c;
}

RunResult RunChunks(const ParserSetup& setup, const std::vector<std::string>& chunks) {
  auto parser = MakeOutputParser(MakeConfig(setup));
  GEMMAD_CHECK(parser.ok(), "{}", parser.status().ToString());
  RunResult r;
  for (const auto& c : chunks) {
    for (auto& d : (*parser)->Feed(c)) r.deltas.push_back(std::move(d));
  }
  for (auto& d : (*parser)->Finish()) r.deltas.push_back(std::move(d));
  r.message = (*parser)->message();
  return r;
}

RunResult RunOneShot(const ParserSetup& setup, std::string_view text) {
  return RunChunks(setup, {std::string(text)});
}

std::vector<std::string> RandomSplit(std::string_view text, Rng& rng) {
  std::vector<std::string> out;
  const uint64_t mode = rng.Below(4);
  size_t i = 0;
  while (i < text.size()) {
    size_t n;
    switch (mode) {
      case 0: n = 1 + rng.Below(2); break;    // byte by byte (or two)
      case 1: n = 1 + rng.Below(6); break;    // token-like pieces
      case 2: n = 1 + rng.Below(24); break;   // multi-token deltas
      default: n = 1 + rng.Below(text.size()); break;  // a few large cuts
    }
    out.emplace_back(text.substr(i, n));
    i += n;
    if (rng.Below(10) == 0) out.emplace_back();  // empty deltas happen too
  }
  return out;
}

std::vector<std::string> FixedSplit(std::string_view text, size_t n) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size(); i += n) out.emplace_back(text.substr(i, n));
  return out;
}

std::string CheckStream(const std::vector<Delta>& deltas) { return ValidateDeltaStream(deltas); }

std::string ArgumentsOf(const std::vector<Delta>& deltas, int index) {
  std::string s;
  for (const auto& d : deltas) {
    for (const auto& tc : d.tool_calls) {
      if (tc.index == index) s += tc.arguments;
    }
  }
  return s;
}

std::string DebugString(const std::vector<Delta>& deltas) {
  std::string s;
  for (const auto& d : deltas) s += DeltaToJson(d).dump() + "\n";
  return s;
}

std::string DebugString(const ParsedMessage& m) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  WriteMessageFields(m, j);
  for (size_t i = 0; i < m.tool_calls.size(); ++i) {
    if (!m.tool_calls[i].complete) j["tool_calls"][i]["incomplete"] = true;
  }
  return j.dump();
}

}  // namespace gemmad::parse::testing

namespace gemmad::parse {
void PrintTo(const Delta& d, std::ostream* os) { *os << DeltaToJson(d).dump(); }
void PrintTo(const ParsedMessage& m, std::ostream* os) { *os << testing::DebugString(m); }
}  // namespace gemmad::parse
