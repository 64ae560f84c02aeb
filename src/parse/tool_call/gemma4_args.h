// Gemma4ArgsConverter: streams the arguments of one Gemma 4 tool call (the text after
// `call:NAME{`, with `<|"|>` markers given separately) into JSON text, incrementally.
// Invariant: output is append-only and final — what it appended is never revised, so the
// concatenation of all fragments is exactly the final JSON (no vLLM "structure changed"
// rewinds). A value is emitted as soon as it cannot change: strings character by character,
// bare values (numbers, true/false/null) when their terminator arrives, a key together with the
// start of its value. Conversion rules: chat-format.md §6.1 (see python_value.h); separators
// ", " and ": " as Python json.dumps. As vLLM's regex (arguments end at the first
// `}<tool_call|>`), a top-level `}` closes the arguments only when a marker follows it; followed
// by text it is part of the next key (nested objects close at their matching `}`).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gemmad::parse {

class Gemma4ArgsConverter {
 public:
  // Starts a new call's arguments (the `{` after the name): appends "{".
  void Begin(std::string& out);
  // Plain text inside the arguments.
  void Text(std::string_view text, std::string& out);
  // A `<|"|>` marker.
  void Quote(std::string& out);
  // The call ended (`<tool_call|>` or a new `<|tool_call>`): completes a pending value and
  // closes every open container, so the output is valid JSON. Idempotent.
  void Close(std::string& out);
  // True when the last argument character was a top-level `}` (the model closed the
  // arguments; only the end marker is missing).
  bool close_pending() const { return close_pending_; }
  bool closed() const { return state_ == State::kClosed; }

 private:
  enum class State {
    kKeyStart,       // object: before a key (skipping spaces and commas)
    kKeyBare,        // object: inside an unquoted key
    kKeyQuoted,      // object: inside a <|"|>-quoted key
    kKeyAfterQuote,  // object: after a quoted key, before ':'
    kValueStart,     // object: after ':'
    kString,         // inside a <|"|> string value
    kBare,           // inside a bare value
    kArrayElement,   // array: before an element (skipping spaces and commas)
    kDead,           // object abandoned after an empty value (vLLM stops parsing it)
    kClosed,         // Close() was called
  };
  struct Frame {
    bool is_object;
    int num_members = 0;
  };

  void Char(char c, std::string& out);
  void BeginValue(std::string& out);
  void EmitBare(std::string& out);
  void OpenContainer(bool is_object, std::string& out);
  void CloseContainer(std::string& out);
  // '}' in an object state: closes a nested object; at top level only marks close_pending_.
  void ObjectBrace(std::string& out);
  // Text followed a pending top-level '}': it was argument text after all.
  void ReinterpretBrace();
  bool AtTop() const { return stack_.size() == 1; }
  void AfterValue();
  bool InObject() const { return !stack_.empty() && stack_.back().is_object; }

  State state_ = State::kClosed;
  std::vector<Frame> stack_;
  std::string key_;
  std::string bare_;
  bool held_brace_ = false;  // a '}' at the end of a string, not yet known to be content
  bool close_pending_ = false;
  int dead_depth_ = 0;
  bool dead_in_string_ = false;
};

}  // namespace gemmad::parse
