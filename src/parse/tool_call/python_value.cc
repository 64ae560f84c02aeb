// Bare value typing (python_value.h).
#include "parse/tool_call/python_value.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <system_error>

#include "parse/text_util.h"

namespace gemmad::parse {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Python digit groups: digit ( '_'? digit )*. Appends the digits (underscores dropped) to `out`
// and advances `i`; false when no digit is at `i` or an underscore is misplaced.
bool ReadDigits(std::string_view s, size_t& i, std::string& out) {
  if (i >= s.size() || !IsDigit(s[i])) return false;
  out += s[i++];
  while (i < s.size()) {
    if (IsDigit(s[i])) {
      out += s[i++];
    } else if (s[i] == '_' && i + 1 < s.size() && IsDigit(s[i + 1])) {
      out += s[i + 1];
      i += 2;
    } else {
      break;
    }
  }
  return true;
}

std::string AsciiLower(std::string_view s) {
  std::string r(s);
  for (char& c : r) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return r;
}

// Python int(): [+-] digits(_digits)*; returns canonical JSON digits.
std::optional<std::string> PyInt(std::string_view s) {
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  std::string digits;
  if (!ReadDigits(s, i, digits) || i != s.size()) return std::nullopt;
  size_t nz = digits.find_first_not_of('0');
  if (nz == std::string::npos) return std::string("0");
  return (negative ? "-" : "") + digits.substr(nz);
}

// Python float() for the finite decimal syntax: [+-] (digits [. [digits]] | . digits)
// [(e|E) [+-] digits]. (inf/nan spellings contain no '.', so vLLM never reaches float() with
// them.) Returns nullopt for invalid syntax or a non-finite result.
std::optional<double> PyFloat(std::string_view s) {
  size_t i = 0;
  std::string norm;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    if (s[i] == '-') norm += '-';
    ++i;
  }
  bool int_part = ReadDigits(s, i, norm);
  bool frac_part = false;
  if (i < s.size() && s[i] == '.') {
    norm += '.';
    ++i;
    frac_part = ReadDigits(s, i, norm);
  }
  if (!int_part && !frac_part) return std::nullopt;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    norm += 'e';
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) norm += s[i++];
    if (!ReadDigits(s, i, norm)) return std::nullopt;
  }
  if (i != s.size()) return std::nullopt;
  double v = 0;
  auto res = std::from_chars(norm.data(), norm.data() + norm.size(), v);
  if (res.ec == std::errc::result_out_of_range) {
    // Underflow is a (signed) zero in Python; overflow is inf (not representable in JSON).
    v = std::strtod(norm.c_str(), nullptr);
  } else if (res.ec != std::errc() || res.ptr != norm.data() + norm.size()) {
    return std::nullopt;
  }
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::string JsonString(std::string_view s) {
  std::string out = "\"";
  AppendJsonEscaped(s, out);
  out += '"';
  return out;
}

}  // namespace

std::string PyFloatRepr(double value) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<size_t>(res.ptr - buf));  // e.g. -1.2345e+17
  std::string out;
  if (!sci.empty() && sci[0] == '-') {
    out += '-';
    sci.remove_prefix(1);
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits += c;
  }
  const int exp10 = std::atoi(std::string(sci.substr(e + 1)).c_str());
  const int decpt = exp10 + 1;  // value = 0.DIGITS * 10^decpt
  const int n = static_cast<int>(digits.size());
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0) {
      out += "0.";
      out.append(static_cast<size_t>(-decpt), '0');
      out += digits;
    } else if (decpt >= n) {
      out += digits;
      out.append(static_cast<size_t>(decpt - n), '0');
      out += ".0";
    } else {
      out += digits.substr(0, static_cast<size_t>(decpt));
      out += '.';
      out += digits.substr(static_cast<size_t>(decpt));
    }
    return out;
  }
  out += digits[0];
  if (n > 1) {
    out += '.';
    out += digits.substr(1);
  }
  const int x = decpt - 1;
  out += x < 0 ? "e-" : "e+";
  const int ax = x < 0 ? -x : x;
  if (ax < 10) out += '0';
  out += std::to_string(ax);
  return out;
}

std::string BareValueToJson(std::string_view raw) {
  const std::string_view v = PyStrip(raw);
  if (v == "true" || v == "false") return std::string(v);
  const std::string lower = AsciiLower(v);
  if (lower == "null" || lower == "none" || lower == "nil") return "null";
  if (v.find('.') != std::string_view::npos) {
    if (auto f = PyFloat(v)) return PyFloatRepr(*f);
    return JsonString(v);
  }
  if (auto i = PyInt(v)) return *i;
  return JsonString(v);
}

}  // namespace gemmad::parse
