// Gemma4ArgsConverter (gemma4_args.h).
#include "parse/tool_call/gemma4_args.h"

#include "parse/text_util.h"
#include "parse/tool_call/python_value.h"

namespace gemmad::parse {
namespace {

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

}  // namespace

void Gemma4ArgsConverter::Begin(std::string& out) {
  stack_.clear();
  key_.clear();
  bare_.clear();
  held_brace_ = false;
  close_pending_ = false;
  dead_depth_ = 0;
  dead_in_string_ = false;
  OpenContainer(/*is_object=*/true, out);
}

void Gemma4ArgsConverter::Text(std::string_view text, std::string& out) {
  for (char c : text) {
    if (state_ == State::kClosed) return;
    if (close_pending_) ReinterpretBrace();
    Char(c, out);
  }
}

void Gemma4ArgsConverter::BeginValue(std::string& out) {
  Frame& f = stack_.back();
  if (f.num_members++ > 0) out += ", ";
  if (f.is_object) {
    out += '"';
    AppendJsonEscaped(key_, out);
    out += "\": ";
    key_.clear();
  }
}

void Gemma4ArgsConverter::EmitBare(std::string& out) {
  BeginValue(out);
  out += BareValueToJson(bare_);
  bare_.clear();
}

void Gemma4ArgsConverter::OpenContainer(bool is_object, std::string& out) {
  out += is_object ? '{' : '[';
  stack_.push_back(Frame{is_object});
  state_ = is_object ? State::kKeyStart : State::kArrayElement;
}

void Gemma4ArgsConverter::CloseContainer(std::string& out) {
  out += stack_.back().is_object ? '}' : ']';
  stack_.pop_back();
  if (stack_.empty()) {
    state_ = State::kClosed;
  } else {
    AfterValue();
  }
}

void Gemma4ArgsConverter::AfterValue() {
  state_ = InObject() ? State::kKeyStart : State::kArrayElement;
}

void Gemma4ArgsConverter::ObjectBrace(std::string& out) {
  if (AtTop()) {
    close_pending_ = true;  // decided by what follows (Text, or Close at a marker)
    return;
  }
  if (state_ == State::kValueStart) {  // `key:}`: vLLM gives the key an empty string
    BeginValue(out);
    out += "\"\"";
  }
  key_.clear();
  CloseContainer(out);
}

void Gemma4ArgsConverter::ReinterpretBrace() {
  close_pending_ = false;
  switch (state_) {
    case State::kKeyStart:
      key_.assign(1, '}');
      state_ = State::kKeyBare;
      return;
    case State::kKeyBare:
    case State::kKeyAfterQuote:
      key_ += '}';
      return;
    case State::kValueStart:  // `key:}x`: an empty bare value, vLLM stops parsing
      key_.clear();
      dead_depth_ = 0;
      dead_in_string_ = false;
      state_ = State::kDead;
      return;
    default:
      return;  // kDead: still skipping
  }
}

void Gemma4ArgsConverter::Char(char c, std::string& out) {
  switch (state_) {
    case State::kKeyStart:
      if (IsSpace(c) || c == ',') return;
      if (c == '}') return ObjectBrace(out);
      if (c == ':') {
        key_.clear();
        state_ = State::kValueStart;
        return;
      }
      key_.assign(1, c);
      state_ = State::kKeyBare;
      return;
    case State::kKeyBare:
    case State::kKeyAfterQuote:
      if (c == ':') {
        if (state_ == State::kKeyBare) key_ = std::string(PyStrip(key_));
        state_ = State::kValueStart;
      } else if (c == '}') {
        ObjectBrace(out);
      } else if (state_ == State::kKeyBare || !IsSpace(c)) {
        key_ += c;
      }
      return;
    case State::kKeyQuoted:
      key_ += c;
      return;
    case State::kValueStart:
      if (IsSpace(c)) return;
      if (c == '{' || c == '[') {
        BeginValue(out);
        return OpenContainer(c == '{', out);
      }
      if (c == '}') return ObjectBrace(out);
      if (c == ',' || c == ']') {  // `key:,`: vLLM stops parsing this object
        key_.clear();
        dead_depth_ = 0;
        dead_in_string_ = false;
        state_ = State::kDead;
        return;
      }
      bare_.assign(1, c);
      state_ = State::kBare;
      return;
    case State::kString:
      if (held_brace_) out += '}';
      held_brace_ = c == '}';
      if (!held_brace_) AppendJsonEscaped(std::string_view(&c, 1), out);
      return;
    case State::kBare:
      if (c == ',') {
        EmitBare(out);
        AfterValue();
      } else if (InObject() && c == '}') {
        EmitBare(out);
        AfterValue();
        ObjectBrace(out);
      } else if (c == ']') {
        EmitBare(out);
        if (InObject()) {  // vLLM: the ']' starts the next key
          key_.assign(1, c);
          state_ = State::kKeyBare;
        } else {
          CloseContainer(out);
        }
      } else {
        bare_ += c;
      }
      return;
    case State::kArrayElement:
      if (IsSpace(c) || c == ',') return;
      if (c == ']') return CloseContainer(out);
      if (c == '{' || c == '[') {
        BeginValue(out);
        return OpenContainer(c == '{', out);
      }
      bare_.assign(1, c);
      state_ = State::kBare;
      return;
    case State::kDead:
      if (dead_in_string_) return;
      if (c == '{') {
        ++dead_depth_;
      } else if (c == '}') {
        if (dead_depth_ == 0) return ObjectBrace(out);
        --dead_depth_;
      }
      return;
    case State::kClosed:
      return;
  }
}

void Gemma4ArgsConverter::Quote(std::string& out) {
  if (close_pending_) ReinterpretBrace();
  switch (state_) {
    case State::kKeyStart:
      key_.clear();
      state_ = State::kKeyQuoted;
      return;
    case State::kKeyQuoted:
      state_ = State::kKeyAfterQuote;
      return;
    case State::kValueStart:
    case State::kArrayElement:
      BeginValue(out);
      out += '"';
      state_ = State::kString;
      return;
    case State::kString:
      if (held_brace_) out += '}';
      held_brace_ = false;
      out += '"';
      AfterValue();
      return;
    case State::kDead:
      dead_in_string_ = !dead_in_string_;
      return;
    default:
      return;  // a stray quote inside a key or a bare value is dropped
  }
}

void Gemma4ArgsConverter::Close(std::string& out) {
  switch (state_) {
    case State::kString:
      held_brace_ = false;  // `…x}<tool_call|>`: that '}' closed the arguments (as vLLM)
      out += '"';
      break;
    case State::kBare:
      EmitBare(out);
      break;
    case State::kValueStart:  // `key:}<tool_call|>` or `key:<tool_call|>`
      BeginValue(out);
      out += "\"\"";
      break;
    case State::kClosed:
      return;
    default:
      break;
  }
  key_.clear();
  close_pending_ = false;
  while (!stack_.empty()) {
    out += stack_.back().is_object ? '}' : ']';
    stack_.pop_back();
  }
  state_ = State::kClosed;
}

}  // namespace gemmad::parse
