// Helpers for the parser tests: run an OutputParser over given chunks, random splits, the
// invariants every delta stream must satisfy, and readable printing.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "base/rng.h"
#include "parse/delta.h"
#include "parse/output_parser.h"

namespace gemmad::parse::testing {

// Gemma 4 configuration with deterministic ids "call_0", "call_1", ... (fresh per parser).
struct ParserSetup {
  bool reasoning = true;
  bool tools = true;
  bool prompt_in_reasoning = false;
  bool parallel_tool_calls = true;
  bool include_reasoning = true;
};
OutputParserConfig MakeConfig(const ParserSetup& setup);

struct RunResult {
  std::vector<Delta> deltas;  // every delta returned by Feed/Finish, in order
  ParsedMessage message;
};
RunResult RunChunks(const ParserSetup& setup, const std::vector<std::string>& chunks);
RunResult RunOneShot(const ParserSetup& setup, std::string_view text);

// Cuts `text` at random byte positions (sometimes into single bytes).
std::vector<std::string> RandomSplit(std::string_view text, Rng& rng);
// Every cut into pieces of `n` bytes.
std::vector<std::string> FixedSplit(std::string_view text, size_t n);

// Checks the stream invariants of delta.h; returns "" or a description of the first violation:
// one member per delta; text valid UTF-8 without protocol markers; each call's first delta has
// id and name and arguments ""; later deltas of a call have neither; indices 0,1,2,... in order.
std::string CheckStream(const std::vector<Delta>& deltas);

// Concatenated argument fragments of call `index`.
std::string ArgumentsOf(const std::vector<Delta>& deltas, int index);

std::string DebugString(const std::vector<Delta>& deltas);
std::string DebugString(const ParsedMessage& message);

}  // namespace gemmad::parse::testing

namespace gemmad::parse {
void PrintTo(const Delta& d, std::ostream* os);
void PrintTo(const ParsedMessage& m, std::ostream* os);
}  // namespace gemmad::parse
