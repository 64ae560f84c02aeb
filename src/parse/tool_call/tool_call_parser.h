// ToolCallParser: turns the model's native tool-call syntax into OpenAI tool_calls with JSON
// arguments, streaming-first, plus the registry of formats by `--tool-call-parser` name
// ("gemma4"). Input contract as for ReasoningParser (reasoning/reasoning_parser.h): detokenized
// text with special tokens kept, cut anywhere. Output: Delta events with `content` (every
// protocol marker removed) or one `tool_calls` entry: first {index, id, name, arguments:""}
// as soon as the call's name is known, then argument fragments whose concatenation is the
// call's JSON arguments. Malformed calls degrade to content; nothing ever fails.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "parse/delta.h"

namespace gemmad::parse {

struct ToolCallOptions {
  // Returns the id of each new call. Empty: a ToolCallIdGenerator seeded from std::random_device.
  std::function<std::string()> make_id;
  // false (request parallel_tool_calls:false): only the first call is reported; later calls are
  // parsed and dropped (neither tool_calls nor content).
  bool parallel_tool_calls = true;
};

class ToolCallParser {
 public:
  virtual ~ToolCallParser() = default;
  virtual std::vector<Delta> Feed(std::string_view text) = 0;
  // End of output. A call still open here is reported with complete=false (see delta.h).
  virtual std::vector<Delta> Finish() = 0;
  // Indices of calls that were still open at Finish() (their arguments are truncated).
  virtual std::vector<int> IncompleteCalls() const = 0;
};

// One-shot form: Feed(text) + Finish(), assembled (delta.h).
ParsedMessage ParseToolCalls(ToolCallParser& parser, std::string_view text);

Result<std::unique_ptr<ToolCallParser>> MakeToolCallParser(std::string_view name,
                                                           const ToolCallOptions& options);
std::vector<std::string> ToolCallParserNames();

// vLLM-style ids: "chatcmpl-tool-" + 32 lowercase hex digits (make_tool_call_id: uuid4().hex). Deterministic for a given seed.
class ToolCallIdGenerator {
 public:
  explicit ToolCallIdGenerator(uint64_t seed);
  std::string Next();

 private:
  uint64_t state_;
};

}  // namespace gemmad::parse
