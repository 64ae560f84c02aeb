// JsonBuilder (json_builder.h): whitespace policy, strings, numbers, literals, any-value rules.
#include "constrain/internal/json_builder.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "constrain/internal/number_range.h"
#include "constrain/internal/regex.h"

namespace gemmad::constrain::internal {
namespace {

constexpr int64_t kMaxStringLengthBound = 4096;
constexpr int32_t kMaxInlineSpaces = 4;
constexpr int32_t kMaxIndent = 40;

ExprId Hex(GrammarAst& ast) { return ast.ByteClass({{'0', '9'}, {'A', 'F'}, {'a', 'f'}}); }

// One JSON string character, JSON-encoded: raw, a simple escape, \uXXXX (non-surrogate) or a
// \uD8xx\uDCxx surrogate pair (one character).
ExprId JsonChar(GrammarAst& ast) {
  ExprId raw = ast.CharClass({{0x20, 0x21}, {0x23, 0x5B}, {0x5D, 0x10FFFF}});
  ExprId simple = ast.Seq({ast.Bytes("\\"), ast.ByteClass({{'"', '"'}, {'\\', '\\'}, {'/', '/'}, {'b', 'b'},
                                                           {'f', 'f'}, {'n', 'n'}, {'r', 'r'}, {'t', 't'}})});
  // First hex digit not d/D, or d/D followed by 0-7: not a surrogate.
  ExprId bmp = ast.Seq({ast.Bytes("\\u"),
                        ast.Alt({ast.Seq({ast.ByteClass({{'0', '9'}, {'A', 'C'}, {'E', 'F'}, {'a', 'c'}, {'e', 'f'}}),
                                          Hex(ast), Hex(ast), Hex(ast)}),
                                 ast.Seq({ast.ByteClass({{'D', 'D'}, {'d', 'd'}}), ast.ByteClass({{'0', '7'}}), Hex(ast),
                                          Hex(ast)})})});
  ExprId pair = ast.Seq({ast.Bytes("\\u"), ast.ByteClass({{'D', 'D'}, {'d', 'd'}}),
                         ast.ByteClass({{'8', '9'}, {'A', 'B'}, {'a', 'b'}}), Hex(ast), Hex(ast), ast.Bytes("\\u"),
                         ast.ByteClass({{'D', 'D'}, {'d', 'd'}}), ast.ByteClass({{'C', 'F'}, {'c', 'f'}}), Hex(ast),
                         Hex(ast)});
  return ast.Alt({raw, simple, bmp, pair});
}

// The same for length-bounded strings, where \u escapes are limited to control characters
// (\u0000-\u001f, as json.dumps writes them): every other character is written raw. Keeps the
// unrolled length automaton small.
ExprId BoundedJsonChar(GrammarAst& ast) {
  ExprId raw = ast.CharClass({{0x20, 0x21}, {0x23, 0x5B}, {0x5D, 0x10FFFF}});
  ExprId simple = ast.Seq({ast.Bytes("\\"), ast.ByteClass({{'"', '"'}, {'\\', '\\'}, {'/', '/'}, {'b', 'b'},
                                                           {'f', 'f'}, {'n', 'n'}, {'r', 'r'}, {'t', 't'}})});
  ExprId control = ast.Seq({ast.Bytes("\\u00"), ast.ByteClass({{'0', '1'}}), Hex(ast)});
  return ast.Alt({raw, simple, control});
}

}  // namespace

std::optional<Decimal> ParseDecimal(std::string_view t) {
  size_t i = 0;
  Decimal d;
  if (i < t.size() && t[i] == '-') {
    d.negative = true;
    ++i;
  }
  std::string digits;
  int64_t point = -1;
  for (; i < t.size() && (std::isdigit(static_cast<unsigned char>(t[i])) || t[i] == '.'); ++i) {
    if (t[i] == '.') {
      if (point >= 0) return std::nullopt;
      point = static_cast<int64_t>(digits.size());
    } else {
      digits += t[i];
    }
  }
  if (digits.empty()) return std::nullopt;
  if (point < 0) point = static_cast<int64_t>(digits.size());
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) neg = t[i++] == '-';
    int64_t e = 0;
    size_t start = i;
    for (; i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])); ++i) {
      e = std::min<int64_t>(e * 10 + (t[i] - '0'), 100000);
    }
    if (i == start) return std::nullopt;
    point += neg ? -e : e;
  }
  if (i != t.size() || point > 4000 || point < -4000) return std::nullopt;
  while (point < 0) {
    digits.insert(digits.begin(), '0');
    ++point;
  }
  while (static_cast<int64_t>(digits.size()) < point) digits += '0';
  d.int_digits = digits.substr(0, static_cast<size_t>(point));
  d.frac_digits = digits.substr(static_cast<size_t>(point));
  size_t nz = d.int_digits.find_first_not_of('0');
  d.int_digits = nz == std::string::npos ? "0" : d.int_digits.substr(nz);
  while (!d.frac_digits.empty() && d.frac_digits.back() == '0') d.frac_digits.pop_back();
  return d;
}

ExprId JsonBuilder::Ws() {
  if (options_.compact || options_.gemma()) return ast_.Empty();
  ExprId blank = ast_.ByteClass({{' ', ' '}, {'\t', '\t'}});
  return ast_.Seq({ast_.Repeat(blank, 0, kMaxInlineSpaces),
                   ast_.Optional(ast_.Seq({ast_.Bytes("\n"), ast_.Repeat(blank, 0, kMaxIndent)}))});
}

ExprId JsonBuilder::ItemSeparator() {
  if (options_.gemma()) return ast_.Bytes(",");
  if (options_.compact) return ast_.Bytes(", ");
  return ast_.Seq({Ws(), ast_.Bytes(","), Ws()});
}

ExprId JsonBuilder::KeySeparator() {
  if (options_.gemma()) return ast_.Bytes(":");
  if (options_.compact) return ast_.Bytes(": ");
  return ast_.Seq({Ws(), ast_.Bytes(":"), Ws()});
}

ExprId JsonBuilder::Open(char c) { return ast_.Seq({ast_.Bytes(std::string(1, c)), Ws()}); }
ExprId JsonBuilder::Close(char c) { return ast_.Seq({Ws(), ast_.Bytes(std::string(1, c))}); }

ExprId JsonBuilder::AnyStringContent() {
  if (options_.gemma()) return GemmaSafeText();
  return ast_.Star(JsonChar(ast_));
}

ExprId JsonBuilder::StringChar() {
  if (options_.gemma()) return ast_.CharClass({{0, 0x10FFFF}});
  return BoundedJsonChar(ast_);
}

ExprId JsonBuilder::GemmaSafeText() {
  // Raw text that cannot be mistaken for protocol markers by a text-level parser: no "<|" and no
  // "|>" (covers <|"|>, <|tool_call>, <tool_call|>, ...).
  ExprId any = ast_.Star(ast_.CharClass({{0, 0x10FFFF}}));
  ExprId bad = ast_.Seq({any, ast_.Alt({ast_.Bytes("<|"), ast_.Bytes("|>")}), ast_.Star(ast_.CharClass({{0, 0x10FFFF}}))});
  return ast_.Except(ast_.Star(ast_.CharClass({{0, 0x10FFFF}})), bad);
}

ExprId JsonBuilder::Quote(ExprId content) {
  if (options_.gemma()) return ast_.Seq({ast_.Token(options_.gemma_quote_token), content, ast_.Token(options_.gemma_quote_token)});
  return ast_.Seq({ast_.Bytes("\""), content, ast_.Bytes("\"")});
}

int32_t JsonBuilder::NewRule(std::string_view base, ExprId body) {
  int32_t r = ast_.AddRule(fmt::format("{}_{}", base, ast_.num_rules()));
  ast_.SetBody(r, body);
  return r;
}

Result<int32_t> JsonBuilder::StringRule(const StringConstraints& c, std::string_view where) {
  std::vector<ExprId> parts;
  if (!c.format.empty()) {
    std::string re = FormatRegex(c.format);
    if (re.empty()) return UnimplementedError(fmt::format("{}: format \"{}\" is not supported", where, c.format));
    GEMMAD_ASSIGN_OR_RETURN(ExprId f, ParseRegex(re, Target(), RegexAnchoring::kWhole, ast_));
    parts.push_back(f);
  }
  if (!c.pattern.empty()) {
    auto p = ParseRegex(c.pattern, Target(), RegexAnchoring::kSearch, ast_);
    if (!p.ok()) return p.status().WithPrefix(fmt::format("{}: pattern", where));
    parts.push_back(*p);
  }
  if (c.min_length > 0 || c.max_length >= 0) {
    if (c.max_length >= 0 && c.max_length < c.min_length) {
      return InvalidArgumentError(fmt::format("{}: maxLength {} is below minLength {}", where, c.max_length, c.min_length));
    }
    if (c.min_length > kMaxStringLengthBound || c.max_length > kMaxStringLengthBound) {
      return UnimplementedError(fmt::format("{}: string length bounds above {} are not supported", where,
                                            kMaxStringLengthBound));
    }
    parts.push_back(ast_.Repeat(StringChar(), static_cast<int32_t>(c.min_length), static_cast<int32_t>(c.max_length)));
  }
  if (options_.gemma() && !parts.empty()) parts.push_back(GemmaSafeText());
  ExprId content = parts.empty() ? AnyStringContent() : ast_.Intersect(std::move(parts));
  return NewRule("string", Quote(content));
}

Result<int32_t> JsonBuilder::IntegerRule(const std::optional<NumberBound>& lo, const std::optional<NumberBound>& hi,
                                         std::string_view where) {
  (void)where;
  if (!lo && !hi) {
    ExprId digits = ast_.Alt({ast_.Bytes("0"), ast_.Seq({ast_.ByteClass({{'1', '9'}}), ast_.Star(ast_.ByteClass({{'0', '9'}}))})});
    return NewRule("integer", ast_.Seq({ast_.Optional(ast_.Bytes("-")), digits}));
  }
  return NewRule("integer", IntegerRangeExpr(lo, hi, ast_));
}

Result<int32_t> JsonBuilder::NumberRule(const std::optional<NumberBound>& lo, const std::optional<NumberBound>& hi,
                                        std::string_view where) {
  (void)where;
  if (lo || hi) return NewRule("number", DecimalRangeExpr(lo, hi, ast_));
  ExprId digit = ast_.ByteClass({{'0', '9'}});
  ExprId integer = ast_.Alt({ast_.Bytes("0"), ast_.Seq({ast_.ByteClass({{'1', '9'}}), ast_.Star(digit)})});
  ExprId frac = ast_.Optional(ast_.Seq({ast_.Bytes("."), ast_.Plus(digit)}));
  // Gemma tool-call numbers have no exponent (vLLM's parser turns "1e5" into a string).
  ExprId exp = options_.gemma() ? ast_.Empty()
                                : ast_.Optional(ast_.Seq({ast_.ByteClass({{'e', 'e'}, {'E', 'E'}}),
                                                          ast_.Optional(ast_.ByteClass({{'+', '+'}, {'-', '-'}})), ast_.Plus(digit)}));
  return NewRule("number", ast_.Seq({ast_.Optional(ast_.Bytes("-")), integer, frac, exp}));
}

ExprId JsonBuilder::GemmaLiteral(const nlohmann::ordered_json& j) {
  if (j.is_string()) return Quote(ast_.Bytes(j.get<std::string>()));
  if (j.is_object()) {
    std::vector<ExprId> parts = {ast_.Bytes("{")};
    bool first = true;
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (!first) parts.push_back(ast_.Bytes(","));
      first = false;
      parts.push_back(ast_.Bytes(it.key() + ":"));
      parts.push_back(GemmaLiteral(it.value()));
    }
    parts.push_back(ast_.Bytes("}"));
    return ast_.Seq(std::move(parts));
  }
  if (j.is_array()) {
    std::vector<ExprId> parts = {ast_.Bytes("[")};
    for (size_t i = 0; i < j.size(); ++i) {
      if (i) parts.push_back(ast_.Bytes(","));
      parts.push_back(GemmaLiteral(j[i]));
    }
    parts.push_back(ast_.Bytes("]"));
    return ast_.Seq(std::move(parts));
  }
  return ast_.Bytes(j.dump());
}

ExprId JsonBuilder::Literal(std::string_view json_text) {
  auto j = nlohmann::ordered_json::parse(json_text, nullptr, false);
  if (j.is_discarded()) return ast_.Bytes(json_text);
  if (options_.gemma()) return GemmaLiteral(j);
  return JsonLiteral(j);
}

// A JSON value with exactly these members and items, spaced by the whitespace policy.
ExprId JsonBuilder::JsonLiteral(const nlohmann::ordered_json& j) {
  if (j.is_object() || j.is_array()) {
    const bool obj = j.is_object();
    std::vector<ExprId> parts = {Open(obj ? '{' : '[')};
    size_t i = 0;
    for (auto it = j.begin(); it != j.end(); ++it, ++i) {
      if (i) parts.push_back(ItemSeparator());
      if (obj) {
        parts.push_back(ast_.Bytes(nlohmann::ordered_json(it.key()).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
        parts.push_back(KeySeparator());
      }
      parts.push_back(JsonLiteral(*it));
    }
    if (i) parts.push_back(Ws());
    parts.push_back(ast_.Bytes(obj ? "}" : "]"));
    return ast_.Seq(std::move(parts));
  }
  return ast_.Bytes(j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void JsonBuilder::BuildAnyRules() {
  any_value_ = ast_.AddRule(ast_.FreshName("json_value"));
  any_object_ = ast_.AddRule(ast_.FreshName("json_object"));
  int32_t array = ast_.AddRule(ast_.FreshName("json_array"));
  int32_t str = NewRule("json_string", Quote(AnyStringContent()));
  int32_t num = *NumberRule(std::nullopt, std::nullopt, "");
  ast_.SetBody(any_value_, ast_.Alt({ast_.Ref(any_object_), ast_.Ref(array), ast_.Ref(str), ast_.Ref(num),
                                     ast_.Bytes("true"), ast_.Bytes("false"), ast_.Bytes("null")}));
  ExprId key = options_.gemma() ? AnyBareKey() : ast_.Ref(str);
  ExprId member = ast_.Seq({key, KeySeparator(), ast_.Ref(any_value_)});
  ExprId members = ast_.Seq({member, ast_.Star(ast_.Seq({ItemSeparator(), member}))});
  ast_.SetBody(any_object_, ast_.Seq({Open('{'), ast_.Optional(ast_.Seq({members, Ws()})), ast_.Bytes("}")}));
  ExprId items = ast_.Seq({ast_.Ref(any_value_), ast_.Star(ast_.Seq({ItemSeparator(), ast_.Ref(any_value_)}))});
  ast_.SetBody(array, ast_.Seq({Open('['), ast_.Optional(ast_.Seq({items, Ws()})), ast_.Bytes("]")}));
}

int32_t JsonBuilder::AnyValueRule() {
  if (any_value_ < 0) BuildAnyRules();
  return any_value_;
}

int32_t JsonBuilder::AnyObjectRule() {
  if (any_object_ < 0) BuildAnyRules();
  return any_object_;
}

ExprId JsonBuilder::AnyBareKey() {
  return ast_.Seq({ast_.ByteClass({{'A', 'Z'}, {'_', '_'}, {'a', 'z'}}),
                   ast_.Repeat(ast_.ByteClass({{'-', '.'}, {'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}), 0, 63)});
}

RegexTarget JsonBuilder::Target() const {
  return options_.gemma() ? RegexTarget::kRaw : RegexTarget::kJsonString;
}

std::string FormatRegex(std::string_view format) {
  static const std::string kYear = "([1-9][0-9]{3}|0[1-9][0-9]{2}|00[1-9][0-9]|000[1-9])";
  static const std::string kDate =
      kYear + "-((0[13578]|1[02])-(0[1-9]|[12][0-9]|3[01])|(0[469]|11)-(0[1-9]|[12][0-9]|30)|02-(0[1-9]|1[0-9]|2[0-8]))";
  static const std::string kTime =
      "([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,6})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])";
  if (format == "date") return kDate;
  if (format == "time") return kTime;
  if (format == "date-time") return kDate + "T" + kTime;
  if (format == "uuid") return "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";
  if (format == "ipv4") {
    return "(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}";
  }
  if (format == "email") {
    return "[A-Za-z0-9_%+-]{1,32}(\\.[A-Za-z0-9_%+-]{1,32}){0,3}@"
           "[A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?){0,3}"
           "\\.[A-Za-z]{2,12}";
  }
  return "";
}

}  // namespace gemmad::constrain::internal
