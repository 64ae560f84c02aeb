// JsonScanner: a minimal zero-copy pull reader for the large parts of tokenizer.json (the
// 262k-entry vocabulary and 515k merges), which a DOM parser takes ~1 s to build. Small parts
// are handed to nlohmann as raw text spans. Invariant: never reads past the input; every
// failure records one message with the byte offset.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace gemmad::tokenizer {

class JsonScanner {
 public:
  explicit JsonScanner(std::string_view text) : text_(text) {}

  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }
  size_t pos() const { return pos_; }

  // Skips whitespace and returns the next character (0 at the end).
  char Peek();
  // Consumes `c` (after whitespace) or records an error.
  bool Expect(char c);
  // Consumes `c` when it is next; returns whether it did.
  bool TryConsume(char c);
  // Reads a string. `*view` points into the input when the string has no escapes, else into
  // `*storage` (unescaped). Lone surrogates are an error, as in serde_json.
  bool ReadString(std::string_view* view, std::string* storage);
  // Reads an integer (no fraction/exponent).
  bool ReadInt(int64_t* value);
  // Skips one value of any type; `*raw` receives its text.
  bool SkipValue(std::string_view* raw);
  // Object/array iteration: call after '{' / '['. Returns false at the closing bracket (which
  // it consumes) or on error; consumes the ',' between members.
  bool NextMember(bool* first, char close);
  bool Fail(std::string_view what);

 private:
  void SkipWs();
  bool ReadHex4(uint32_t* v);
  std::string_view text_;
  size_t pos_ = 0;
  std::string error_;
};

}  // namespace gemmad::tokenizer
