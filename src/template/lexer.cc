// Lexer implementation. Mirrors jinja2.lexer's rules: a data run ends at the first "{{", "{%" or
// "{#"; a `-` modifier strips all whitespace on that side, lstrip_blocks removes the indentation
// before a block or comment tag that starts a line, trim_blocks drops one newline after a block
// or comment tag; end tags are only recognised outside brackets.
#include "template/lexer.h"

#include <algorithm>
#include <string>

#include "template/unicode.h"

namespace gemmad::tmpl::internal {
namespace {

std::string Normalise(std::string_view src) {
  std::string out;
  out.reserve(src.size());
  for (size_t i = 0; i < src.size(); ++i) {
    if (src[i] == '\r') {
      out.push_back('\n');
      if (i + 1 < src.size() && src[i + 1] == '\n') ++i;
    } else {
      out.push_back(src[i]);
    }
  }
  if (!out.empty() && out.back() == '\n') out.pop_back();  // keep_trailing_newline=False
  return out;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsNameStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsNameChar(char c) { return IsNameStart(c) || IsDigit(c); }

class Lexer {
 public:
  explicit Lexer(std::string src) : src_(std::move(src)) {}

  Result<LexResult> Run() {
    while (pos_ < src_.size()) {
      if (!LexRoot()) return Fail();
    }
    tokens_.push_back(Token{Tok::kEof, static_cast<uint32_t>(src_.size()), {}});
    LexResult r;
    r.source = std::move(src_);
    r.tokens = std::move(tokens_);
    return r;
  }

 private:
  Status Fail() {
    SourceMap map(src_);
    return InvalidArgumentError(map.Position(err_offset_) + ": " + err_);
  }
  bool Error(size_t offset, std::string what) {
    err_offset_ = static_cast<uint32_t>(offset);
    err_ = std::move(what);
    return false;
  }

  // Length of the whitespace run starting at p (Python \s, Unicode aware).
  size_t SpaceRun(size_t p) const {
    size_t q = p;
    while (q < src_.size()) {
      size_t next = q;
      if (!IsSpace(NextCodepoint(src_, &next))) break;
      q = next;
    }
    return q - p;
  }

  void EmitData(std::string_view text, size_t offset) {
    if (text.empty()) return;
    tokens_.push_back(Token{Tok::kData, static_cast<uint32_t>(offset), std::string(text)});
  }

  // Applies the `-` / lstrip rules to the data before a tag and emits it.
  void EmitDataBeforeTag(size_t start, size_t tag, char kind, char modifier) {
    std::string_view text(src_.data() + start, tag - start);
    if (modifier == '-') {
      text = PyStrip(text, false, true);
    } else if (modifier != '+' && kind != '{') {
      size_t nl = text.rfind('\n');
      size_t l_pos = nl == std::string_view::npos ? 0 : nl + 1;
      if (l_pos > 0 || line_starting_) {
        std::string_view tail = text.substr(l_pos);
        if (!tail.empty() && PyStrip(tail, true, false).empty()) text = text.substr(0, l_pos);
      }
    }
    EmitData(text, start);
  }

  // True when a raw-begin tag starts at p ("{%" [-+] ws "raw" ws ("-%}" | "%}")); sets *end.
  bool MatchRawBegin(size_t p, size_t* end) const {
    size_t q = p + 2;
    if (q < src_.size() && (src_[q] == '-' || src_[q] == '+')) ++q;
    q += SpaceRun(q);
    if (src_.compare(q, 3, "raw") != 0) return false;
    q += 3;
    if (q < src_.size() && IsNameChar(src_[q])) return false;
    q += SpaceRun(q);
    if (src_.compare(q, 3, "-%}") == 0) {
      q += 3;
      *end = q + SpaceRun(q);
      return true;
    }
    if (src_.compare(q, 2, "%}") == 0) {
      *end = q + 2;
      return true;
    }
    return false;
  }

  bool LexRoot() {
    size_t tag = pos_;
    while (true) {
      tag = src_.find('{', tag);
      if (tag == std::string::npos || tag + 1 >= src_.size()) {
        EmitData(std::string_view(src_).substr(pos_), pos_);
        pos_ = src_.size();
        return true;
      }
      char k = src_[tag + 1];
      if (k == '{' || k == '%' || k == '#') break;
      ++tag;
    }
    char kind = src_[tag + 1];
    char modifier = tag + 2 < src_.size() ? src_[tag + 2] : '\0';
    if (modifier != '-' && modifier != '+') modifier = '\0';
    EmitDataBeforeTag(pos_, tag, kind, modifier);
    size_t body = tag + 2 + (modifier ? 1 : 0);
    if (kind == '#') return LexComment(tag, body);
    size_t raw_end = 0;
    if (kind == '%' && MatchRawBegin(tag, &raw_end)) return LexRaw(tag, raw_end);
    return LexTag(tag, body, kind == '{');
  }

  bool LexComment(size_t tag, size_t body) {
    size_t end = src_.find("#}", body);
    if (end == std::string::npos) return Error(tag, "missing end of comment tag");
    size_t after = end + 2;
    if (end > body && src_[end - 1] == '-') {
      after += SpaceRun(after);
    } else if (!(end > body && src_[end - 1] == '+')) {
      if (after < src_.size() && src_[after] == '\n') ++after;
    }
    SetEnd(after);
    return true;
  }

  bool LexRaw(size_t tag, size_t body) {
    // Find "{%" [-+] ws "endraw" ws ("+%}" | "-%}" ws | "%}" "\n"?).
    size_t p = body;
    while (true) {
      size_t open = src_.find("{%", p);
      if (open == std::string::npos) return Error(tag, "missing end of raw directive");
      size_t q = open + 2;
      char modifier = '\0';
      if (q < src_.size() && (src_[q] == '-' || src_[q] == '+')) modifier = src_[q++];
      q += SpaceRun(q);
      if (src_.compare(q, 6, "endraw") != 0) {
        p = open + 2;
        continue;
      }
      q += 6;
      q += SpaceRun(q);
      size_t after;
      if (src_.compare(q, 3, "+%}") == 0) {
        after = q + 3;
      } else if (src_.compare(q, 3, "-%}") == 0) {
        after = q + 3 + SpaceRun(q + 3);
      } else if (src_.compare(q, 2, "%}") == 0) {
        after = q + 2;
        if (after < src_.size() && src_[after] == '\n') ++after;
      } else {
        p = open + 2;
        continue;
      }
      line_starting_ = false;  // the raw-begin match ended with "%}" or whitespace
      if (body > 0 && src_[body - 1] == '\n') line_starting_ = true;
      EmitDataBeforeTag(body, open, '%', modifier);
      SetEnd(after);
      return true;
    }
  }

  void SetEnd(size_t after) {
    line_starting_ = after > 0 && src_[after - 1] == '\n';
    pos_ = after;
  }

  bool LexTag(size_t tag, size_t body, bool is_var) {
    tokens_.push_back(Token{is_var ? Tok::kVarBegin : Tok::kBlockBegin,
                            static_cast<uint32_t>(tag), {}});
    std::string balance;
    size_t p = body;
    while (true) {
      p += SpaceRun(p);
      if (p >= src_.size()) return Error(tag, "unexpected end of template, the tag was never closed");
      if (balance.empty() && TryTagEnd(p, is_var)) return true;
      if (!LexToken(&p, &balance)) return false;
    }
  }

  bool TryTagEnd(size_t p, bool is_var) {
    std::string_view rest = std::string_view(src_).substr(p);
    const std::string_view close = is_var ? "}}" : "%}";
    size_t after;
    if (!is_var && rest.substr(0, 3) == "+%}") {
      after = p + 3;
    } else if (rest.size() >= 3 && rest[0] == '-' && rest.substr(1, 2) == close) {
      after = p + 3 + SpaceRun(p + 3);
    } else if (rest.substr(0, 2) == close) {
      after = p + 2;
      if (!is_var && after < src_.size() && src_[after] == '\n') ++after;
    } else {
      return false;
    }
    tokens_.push_back(Token{is_var ? Tok::kVarEnd : Tok::kBlockEnd, static_cast<uint32_t>(p), {}});
    SetEnd(after);
    return true;
  }

  // Number: jinja2's float and integer patterns (underscores allowed, 0b/0o/0x prefixes).
  bool LexNumber(size_t* pp) {
    size_t p = *pp;
    auto digits = [&](size_t q, auto pred) {
      size_t start = q;
      while (q < src_.size() && (pred(src_[q]) || (src_[q] == '_' && q > start && q + 1 < src_.size() && pred(src_[q + 1])))) ++q;
      return q;
    };
    auto dec = [](char c) { return IsDigit(c); };
    size_t int_end = digits(p, dec);
    size_t q = int_end;
    bool is_float = false;
    if (q + 1 < src_.size() && src_[q] == '.' && IsDigit(src_[q + 1])) {
      q = digits(q + 1, dec);
      is_float = true;
    }
    if (q < src_.size() && (src_[q] == 'e' || src_[q] == 'E')) {
      size_t e = q + 1;
      if (e < src_.size() && (src_[e] == '+' || src_[e] == '-')) ++e;
      if (e < src_.size() && IsDigit(src_[e])) {
        q = digits(e, dec);
        is_float = true;
      }
    }
    std::string clean;
    if (is_float) {
      for (size_t i = p; i < q; ++i) {
        if (src_[i] != '_') clean.push_back(src_[i]);
      }
      Token t{Tok::kFloat, static_cast<uint32_t>(p), clean};
      t.float_value = std::strtod(clean.c_str(), nullptr);
      tokens_.push_back(std::move(t));
      *pp = q;
      return true;
    }
    int base = 10;
    size_t start = p;
    if (src_[p] == '0' && p + 1 < src_.size()) {
      char b = static_cast<char>(src_[p + 1] | 0x20);
      if (b == 'b' || b == 'o' || b == 'x') {
        base = b == 'b' ? 2 : (b == 'o' ? 8 : 16);
        start = p + 2;
        if (start < src_.size() && src_[start] == '_') ++start;
        auto hexd = [base](char c) {
          int v = (c >= '0' && c <= '9') ? c - '0'
                  : ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') ? (c | 0x20) - 'a' + 10 : 99;
          return v < base;
        };
        int_end = digits(start, hexd);
        if (int_end == start) return Error(p, "invalid number literal");
      } else if (IsDigit(src_[p + 1]) || src_[p + 1] == '_') {
        // "0(_?0)*": only zeros may follow a leading zero.
        int_end = p + 1;
        while (int_end < src_.size() && (src_[int_end] == '0' || (src_[int_end] == '_' && int_end + 1 < src_.size() && src_[int_end + 1] == '0'))) ++int_end;
      }
    }
    for (size_t i = start; i < int_end; ++i) {
      if (src_[i] != '_') clean.push_back(src_[i]);
    }
    errno = 0;
    unsigned long long v = std::strtoull(clean.c_str(), nullptr, base);
    if (errno == ERANGE || v > static_cast<unsigned long long>(INT64_MAX)) {
      return Error(p, "integer literal too large");
    }
    Token t{Tok::kInt, static_cast<uint32_t>(p), std::string(src_, p, int_end - p)};
    t.int_value = static_cast<int64_t>(v);
    tokens_.push_back(std::move(t));
    *pp = int_end;
    return true;
  }

  bool LexString(size_t* pp);

  bool LexToken(size_t* pp, std::string* balance) {
    size_t p = *pp;
    char c = src_[p];
    if (IsDigit(c)) return LexNumber(pp);
    if (IsNameStart(c)) {
      size_t q = p;
      while (q < src_.size() && IsNameChar(src_[q])) ++q;
      tokens_.push_back(Token{Tok::kName, static_cast<uint32_t>(p), src_.substr(p, q - p)});
      *pp = q;
      return true;
    }
    if (c == '\'' || c == '"') return LexString(pp);
    static const char* kTwo[] = {"//", "**", "==", "!=", "<=", ">="};
    for (const char* op : kTwo) {
      if (src_.compare(p, 2, op) == 0) {
        tokens_.push_back(Token{Tok::kOp, static_cast<uint32_t>(p), op});
        *pp = p + 2;
        return true;
      }
    }
    if (std::string_view("+-/*%~[](){}<>=.:|,;").find(c) == std::string_view::npos) {
      return Error(p, std::string("unexpected char '") + c + "'");
    }
    if (c == '(' || c == '[' || c == '{') {
      balance->push_back(c == '(' ? ')' : (c == '[' ? ']' : '}'));
    } else if (c == ')' || c == ']' || c == '}') {
      if (balance->empty()) return Error(p, std::string("unexpected '") + c + "'");
      if (balance->back() != c) {
        return Error(p, std::string("unexpected '") + c + "', expected '" + balance->back() + "'");
      }
      balance->pop_back();
    }
    tokens_.push_back(Token{Tok::kOp, static_cast<uint32_t>(p), std::string(1, c)});
    *pp = p + 1;
    return true;
  }

  std::string src_;
  size_t pos_ = 0;
  bool line_starting_ = true;
  std::vector<Token> tokens_;
  uint32_t err_offset_ = 0;
  std::string err_;
};

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  c = static_cast<char>(c | 0x20);
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Decodes a string literal's body like Python's "unicode-escape" codec.
bool DecodeEscapes(std::string_view body, std::string* out, std::string* error) {
  for (size_t i = 0; i < body.size(); ++i) {
    char c = body[i];
    if (c != '\\' || i + 1 >= body.size()) {
      out->push_back(c);
      continue;
    }
    char e = body[++i];
    switch (e) {
      case '\n': break;
      case '\\': out->push_back('\\'); break;
      case '\'': out->push_back('\''); break;
      case '"': out->push_back('"'); break;
      case 'a': out->push_back('\a'); break;
      case 'b': out->push_back('\b'); break;
      case 'f': out->push_back('\f'); break;
      case 'n': out->push_back('\n'); break;
      case 'r': out->push_back('\r'); break;
      case 't': out->push_back('\t'); break;
      case 'v': out->push_back('\v'); break;
      case 'x':
      case 'u':
      case 'U': {
        int n = e == 'x' ? 2 : (e == 'u' ? 4 : 8);
        uint32_t cp = 0;
        for (int k = 0; k < n; ++k) {
          if (i + 1 >= body.size() || HexValue(body[i + 1]) < 0) {
            *error = std::string("truncated \\") + e + " escape in string literal";
            return false;
          }
          cp = cp * 16 + static_cast<uint32_t>(HexValue(body[++i]));
        }
        if (cp > 0x10FFFF) {
          *error = "illegal Unicode character in string literal";
          return false;
        }
        AppendCodepoint(*out, cp);
        break;
      }
      default:
        if (e >= '0' && e <= '7') {
          uint32_t cp = static_cast<uint32_t>(e - '0');
          for (int k = 0; k < 2 && i + 1 < body.size() && body[i + 1] >= '0' && body[i + 1] <= '7'; ++k) {
            cp = cp * 8 + static_cast<uint32_t>(body[++i] - '0');
          }
          AppendCodepoint(*out, cp);
        } else {
          out->push_back('\\');
          out->push_back(e);
        }
    }
  }
  return true;
}

bool Lexer::LexString(size_t* pp) {
  size_t p = *pp;
  char quote = src_[p];
  size_t q = p + 1;
  while (q < src_.size() && src_[q] != quote) {
    if (src_[q] == '\\') ++q;
    ++q;
  }
  if (q >= src_.size()) return Error(p, std::string("unexpected char '") + quote + "' (unterminated string)");
  std::string decoded, error;
  if (!DecodeEscapes(std::string_view(src_).substr(p + 1, q - p - 1), &decoded, &error)) {
    return Error(p, error);
  }
  tokens_.push_back(Token{Tok::kString, static_cast<uint32_t>(p), std::move(decoded)});
  *pp = q + 1;
  return true;
}

}  // namespace

SourceMap::SourceMap(std::string_view normalised_source) : source_(normalised_source) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < source_.size(); ++i) {
    if (source_[i] == '\n') line_starts_.push_back(static_cast<uint32_t>(i + 1));
  }
}

std::string SourceMap::Position(uint32_t offset) const {
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());
  uint32_t start = line_starts_[line - 1];
  size_t end = std::min<size_t>(offset, source_.size());
  size_t col = CodepointCount(std::string_view(source_).substr(start, end - start)) + 1;
  return std::to_string(line) + ":" + std::to_string(col);
}

Result<LexResult> Lex(std::string_view source) {
  Lexer lexer(Normalise(source));
  return lexer.Run();
}

}  // namespace gemmad::tmpl::internal
