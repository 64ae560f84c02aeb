// JsonBuilder: the JSON pieces shared by the json_object and JSON-schema front ends — the
// whitespace policy, strings (with length bounds, patterns and formats), numbers (with bounds),
// literals and the rules for an arbitrary JSON value.
//
// Whitespace (docs/structured-outputs.md): by default between JSON tokens at most 4 spaces/tabs,
// optionally followed by one newline and at most 40 spaces/tabs of indentation (no blank lines,
// no runaway newlines). With `compact` (disable_any_whitespace) the only spacing is ", " between
// items and ": " after keys, as Python's json.dumps writes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "constrain/internal/frontends.h"
#include "constrain/internal/grammar_ast.h"
#include "constrain/internal/regex.h"

namespace gemmad::constrain::internal {

// A decimal bound: digits of the integer and fraction parts of |value| (no sign, no exponent).
struct Decimal {
  bool negative = false;
  std::string int_digits = "0";  // no leading zeros (except "0")
  std::string frac_digits;       // no trailing zeros
};
// Parses a JSON number's text (e.g. "-1.5e-3") into a Decimal; nullopt for malformed text.
std::optional<Decimal> ParseDecimal(std::string_view text);

struct NumberBound {
  Decimal value;
  bool exclusive = false;
};

struct StringConstraints {
  int64_t min_length = 0;
  int64_t max_length = -1;      // -1: unbounded
  std::string pattern;          // ECMAScript, search semantics; empty: none
  std::string format;           // date, time, date-time, uuid, email, ipv4; empty: none
};

class JsonBuilder {
 public:
  JsonBuilder(GrammarAst& ast, const JsonOptions& options) : ast_(ast), options_(options) {}

  GrammarAst& ast() { return ast_; }
  const JsonOptions& options() const { return options_; }

  ExprId Ws();                    // between JSON tokens (empty when compact)
  ExprId ItemSeparator();         // ws "," ws   |  ", "
  ExprId KeySeparator();          // ws ":" ws   |  ": "
  ExprId Open(char c);            // c ws        |  c
  ExprId Close(char c);           // ws c        |  c

  // A rule matching one JSON string under `c` (errors name `where`).
  Result<int32_t> StringRule(const StringConstraints& c, std::string_view where);
  // Content of a string (between the quotes) with any characters, JSON-encoded.
  ExprId AnyStringContent();
  // One character of string content (a JSON character with its escapes; raw in Gemma syntax).
  ExprId StringChar();
  // `content` between the string delimiters (`"` or the `<|"|>` token).
  ExprId Quote(ExprId content);
  // Gemma syntax: a bare object key ([A-Za-z_][A-Za-z0-9_.-]{0,63}).
  ExprId AnyBareKey();
  // A rule for integers / numbers within optional bounds.
  Result<int32_t> IntegerRule(const std::optional<NumberBound>& lo, const std::optional<NumberBound>& hi,
                              std::string_view where);
  Result<int32_t> NumberRule(const std::optional<NumberBound>& lo, const std::optional<NumberBound>& hi,
                             std::string_view where);
  // The JSON value `json_text` (valid JSON) with members in the given order, spaced by the policy.
  ExprId Literal(std::string_view json_text);
  // The rule for any JSON value (created once).
  int32_t AnyValueRule();
  // The rule for any JSON object (created once).
  int32_t AnyObjectRule();
  // A new rule named after `base` with body `body`.
  int32_t NewRule(std::string_view base, ExprId body);

 private:
  void BuildAnyRules();
  ExprId GemmaSafeText();
  ExprId GemmaLiteral(const nlohmann::ordered_json& j);
  ExprId JsonLiteral(const nlohmann::ordered_json& j);
  RegexTarget Target() const;
  GrammarAst& ast_;
  JsonOptions options_;
  int32_t any_value_ = -1;
  int32_t any_object_ = -1;
};

// Regular expression text (raw target) for a string format, or empty when unknown.
std::string FormatRegex(std::string_view format);

}  // namespace gemmad::constrain::internal
