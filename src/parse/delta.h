// Parser output types: streaming deltas shaped like OpenAI `chat.completion.chunk` deltas, the
// assembled non-streaming message, and the helpers that relate the two. Invariant: for every
// parser, AssembleMessage(all deltas of a stream) is the one-shot result of the same text.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace gemmad::parse {

// One entry of `delta.tool_calls`. The first delta of a call carries `id` and `name` (its JSON
// form adds "type":"function" and "arguments":""), later ones only `index` and an `arguments`
// fragment. Concatenating the fragments of one index gives that call's JSON arguments.
struct ToolCallDelta {
  int index = 0;                    // 0-based position of the call in this choice
  std::optional<std::string> id;    // set only on the first delta of the call
  std::optional<std::string> name;  // set only on the first delta of the call
  std::string arguments;            // JSON text fragment ("" on the first delta)

  friend bool operator==(const ToolCallDelta&, const ToolCallDelta&) = default;
};

// One streaming event. Parsers emit deltas with exactly one member set, in model-text order:
// `reasoning`, or `content`, or a single `tool_calls` entry. (The role chunk is the server's.)
// Text members never contain protocol markers (`<|"|>`, `<|tool_call>`, `<channel|>`, ...) and
// are always valid UTF-8. A reasoning delta may be "" (vLLM sends {"reasoning":""} when the
// `thought\n` channel label completes); no other empty deltas are emitted.
struct Delta {
  std::optional<std::string> reasoning;
  std::optional<std::string> content;
  std::vector<ToolCallDelta> tool_calls;

  static Delta Reasoning(std::string text);
  static Delta Content(std::string text);
  static Delta ToolCall(ToolCallDelta call);
  bool empty() const { return !reasoning && !content && tool_calls.empty(); }
  friend bool operator==(const Delta&, const Delta&) = default;
};

struct ToolCall {
  std::string id;         // e.g. "chatcmpl-tool-1c5e8b0f9a2d4e67"
  std::string name;
  std::string arguments;  // JSON object text, Python json.dumps style: {"city": "Paris", "n": 2}
  // False when the output ended inside the call's arguments (e.g. max_tokens): `arguments` is
  // then the truncated JSON text exactly as streamed (not valid JSON), as OpenAI does.
  bool complete = true;

  friend bool operator==(const ToolCall&, const ToolCall&) = default;
};

// The non-streaming `message` fields produced by the parsers.
struct ParsedMessage {
  std::optional<std::string> reasoning;  // null when no thinking channel was seen
  std::optional<std::string> content;    // null when empty
  std::vector<ToolCall> tool_calls;

  friend bool operator==(const ParsedMessage&, const ParsedMessage&) = default;
};

// Accumulates deltas into the non-streaming message. Content rules (vLLM's non-streaming
// output): all content text in order (text between and after tool calls included); when at
// least one tool call was parsed it is strip()ped; "" becomes null. Reasoning: the
// concatenation of reasoning deltas, "" when a channel was opened but empty, null otherwise.
class MessageAssembler {
 public:
  void Add(const Delta& delta);
  void Add(const std::vector<Delta>& deltas);
  // Marks tool call `index` as truncated (see ToolCall::complete).
  void MarkIncomplete(int index);
  ParsedMessage Build() const;

 private:
  bool saw_reasoning_ = false;
  std::string reasoning_;
  std::string content_;
  std::vector<ToolCall> calls_;
};

ParsedMessage AssembleMessage(const std::vector<Delta>& deltas);

// Canonical form of an event stream, independent of how the model text was cut into pieces:
// drops empty reasoning/content deltas, merges adjacent deltas of the same kind, and merges
// consecutive tool-call entries of the same index (first entry keeps id and name). Two streams
// are equivalent when their canonical forms are equal. The server may also use it to merge the
// deltas of one engine step into fewer chunks.
std::vector<Delta> CoalesceDeltas(const std::vector<Delta>& deltas);

}  // namespace gemmad::parse
