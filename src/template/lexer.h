// Lexer: splits template source into data and tag tokens with jinja2's whitespace rules as
// transformers configures them (trim_blocks, lstrip_blocks, `-`/`+` modifiers, raw blocks,
// comments dropped, \r\n normalised, one trailing newline removed).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::tmpl::internal {

enum class Tok : uint8_t {
  kData,
  kVarBegin,
  kVarEnd,
  kBlockBegin,
  kBlockEnd,
  kName,
  kString,
  kInt,
  kFloat,
  kOp,
  kEof,
};

struct Token {
  Tok type;
  uint32_t offset;   // byte offset in the normalised source
  std::string text;  // data, name, decoded string, operator
  int64_t int_value = 0;
  double float_value = 0;
};

// Maps byte offsets of the normalised source to "line:column" (1-based, columns in code points).
class SourceMap {
 public:
  explicit SourceMap(std::string_view normalised_source);
  std::string Position(uint32_t offset) const;

 private:
  std::string source_;
  std::vector<uint32_t> line_starts_;
};

struct LexResult {
  std::string source;  // normalised source (offsets refer to it)
  std::vector<Token> tokens;
};

// Errors: InvalidArgument "<line>:<column>: <what>" (the caller adds the template name).
Result<LexResult> Lex(std::string_view source);

}  // namespace gemmad::tmpl::internal
