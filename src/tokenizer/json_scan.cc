// JsonScanner implementation (RFC 8259 subset needed to walk and skip values exactly).
#include "tokenizer/json_scan.h"

#include <fmt/format.h>

#include "tokenizer/unicode.h"

namespace gemmad::tokenizer {

bool JsonScanner::Fail(std::string_view what) {
  if (error_.empty()) error_ = fmt::format("{} at byte {}", what, pos_);
  return false;
}

void JsonScanner::SkipWs() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') break;
    ++pos_;
  }
}

char JsonScanner::Peek() {
  SkipWs();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

bool JsonScanner::Expect(char c) {
  if (Peek() != c) return Fail(fmt::format("expected '{}'", c));
  ++pos_;
  return true;
}

bool JsonScanner::TryConsume(char c) {
  if (Peek() != c) return false;
  ++pos_;
  return true;
}

bool JsonScanner::NextMember(bool* first, char close) {
  if (!ok()) return false;
  if (TryConsume(close)) return false;
  if (!*first && !Expect(',')) return false;
  *first = false;
  return true;
}

bool JsonScanner::ReadHex4(uint32_t* v) {
  if (pos_ + 4 > text_.size()) return Fail("truncated \\u escape");
  uint32_t r = 0;
  for (int k = 0; k < 4; ++k) {
    char c = text_[pos_++];
    r <<= 4;
    if (c >= '0' && c <= '9') r |= c - '0';
    else if (c >= 'a' && c <= 'f') r |= c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') r |= c - 'A' + 10;
    else return Fail("bad \\u escape");
  }
  *v = r;
  return true;
}

bool JsonScanner::ReadString(std::string_view* view, std::string* storage) {
  if (!Expect('"')) return false;
  const size_t start = pos_;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == '"') {
      *view = text_.substr(start, pos_ - start);
      ++pos_;
      return true;
    }
    if (c == '\\') break;
    if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in string");
    ++pos_;
  }
  if (pos_ >= text_.size()) return Fail("unterminated string");
  storage->assign(text_.substr(start, pos_ - start));
  while (pos_ < text_.size()) {
    char c = text_[pos_++];
    if (c == '"') {
      *view = *storage;
      return true;
    }
    if (static_cast<unsigned char>(c) < 0x20) return Fail("control character in string");
    if (c != '\\') {
      storage->push_back(c);
      continue;
    }
    if (pos_ >= text_.size()) break;
    char e = text_[pos_++];
    switch (e) {
      case '"': storage->push_back('"'); break;
      case '\\': storage->push_back('\\'); break;
      case '/': storage->push_back('/'); break;
      case 'b': storage->push_back('\b'); break;
      case 'f': storage->push_back('\f'); break;
      case 'n': storage->push_back('\n'); break;
      case 'r': storage->push_back('\r'); break;
      case 't': storage->push_back('\t'); break;
      case 'u': {
        uint32_t cp;
        if (!ReadHex4(&cp)) return false;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          uint32_t lo;
          if (pos_ + 2 > text_.size() || text_[pos_] != '\\' || text_[pos_ + 1] != 'u') {
            return Fail("lone leading surrogate in string");
          }
          pos_ += 2;
          if (!ReadHex4(&lo)) return false;
          if (lo < 0xDC00 || lo > 0xDFFF) return Fail("lone leading surrogate in string");
          cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          return Fail("lone trailing surrogate in string");
        }
        unicode::AppendUtf8(cp, storage);
        break;
      }
      default: return Fail("bad escape in string");
    }
  }
  return Fail("unterminated string");
}

bool JsonScanner::ReadInt(int64_t* value) {
  SkipWs();
  size_t start = pos_;
  bool neg = false;
  if (pos_ < text_.size() && text_[pos_] == '-') neg = true, ++pos_;
  int64_t v = 0;
  size_t digits = 0;
  while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
    if (v > (INT64_MAX - 9) / 10) return Fail("integer too large");
    v = v * 10 + (text_[pos_++] - '0');
    ++digits;
  }
  if (digits == 0) {
    pos_ = start;
    return Fail("expected an integer");
  }
  if (pos_ < text_.size() && (text_[pos_] == '.' || text_[pos_] == 'e' || text_[pos_] == 'E')) {
    return Fail("expected an integer");
  }
  *value = neg ? -v : v;
  return true;
}

bool JsonScanner::SkipValue(std::string_view* raw) {
  char c = Peek();
  const size_t start = pos_;
  if (c == '"') {
    std::string_view v;
    std::string s;
    if (!ReadString(&v, &s)) return false;
  } else if (c == '{' || c == '[') {
    const char close = c == '{' ? '}' : ']';
    ++pos_;
    bool first = true;
    while (NextMember(&first, close)) {
      if (c == '{') {
        std::string_view k;
        std::string s;
        if (!ReadString(&k, &s) || !Expect(':')) return false;
      }
      std::string_view ignored;
      if (!SkipValue(&ignored)) return false;
    }
    if (!ok()) return false;
  } else if (c == '-' || (c >= '0' && c <= '9')) {
    while (pos_ < text_.size() && (std::string_view("+-.eE0123456789").find(text_[pos_]) != std::string_view::npos)) {
      ++pos_;
    }
  } else {
    for (std::string_view lit : {"true", "false", "null"}) {
      if (text_.substr(pos_, lit.size()) == lit) {
        pos_ += lit.size();
        *raw = text_.substr(start, pos_ - start);
        return true;
      }
    }
    return Fail("expected a JSON value");
  }
  *raw = text_.substr(start, pos_ - start);
  return true;
}

}  // namespace gemmad::tokenizer
