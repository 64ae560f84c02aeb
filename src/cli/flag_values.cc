// Text -> flag value conversions (see flag_values.h).
#include "cli/flag_values.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "base/strings.h"

namespace gemmad::cli {
namespace {

using nlohmann::json;

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// "12" or "12.5" (no sign, no exponent).
bool IsPlainDecimal(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return AllDigits(s);
  return AllDigits(s.substr(0, dot)) && AllDigits(s.substr(dot + 1));
}

Status FlagError(const FlagSpec& spec, std::string_view what, std::string_view text) {
  return InvalidArgumentError(fmt::format("argument --{}: invalid {} value: '{}'", spec.name, what, text));
}

}  // namespace

Result<bool> ParseBoolText(std::string_view text) {
  std::string t = ToLowerAscii(TrimAscii(text));
  if (t == "true" || t == "1" || t == "yes" || t == "on") return true;
  if (t == "false" || t == "0" || t == "no" || t == "off") return false;
  return InvalidArgumentError(fmt::format("'{}' is not a boolean (true/false)", text));
}

Result<int64_t> ParseIntText(std::string_view text) {
  std::string t(TrimAscii(text));
  std::string_view digits = t;
  if (!digits.empty() && (digits[0] == '-' || digits[0] == '+')) digits.remove_prefix(1);
  if (!AllDigits(digits)) return InvalidArgumentError(fmt::format("'{}' is not an integer", text));
  errno = 0;
  long long v = std::strtoll(t.c_str(), nullptr, 10);
  if (errno == ERANGE) return InvalidArgumentError(fmt::format("'{}' is out of range", text));
  return static_cast<int64_t>(v);
}

Result<double> ParseFloatText(std::string_view text) {
  std::string t(TrimAscii(text));
  if (t.empty()) return InvalidArgumentError("empty number");
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(t.c_str(), &end);
  if (end != t.c_str() + t.size() || errno == ERANGE || std::isnan(v)) {
    return InvalidArgumentError(fmt::format("'{}' is not a number", text));
  }
  return v;
}

Result<int64_t> ParseTokenCountText(std::string_view text) {
  std::string_view t = TrimAscii(text);
  if (ToLowerAscii(t) == "auto") return int64_t{-1};
  if (t.empty()) return InvalidArgumentError("empty token count");
  char suffix = t.back();
  int64_t mult = 0;
  bool binary = false;
  switch (suffix) {
    case 'k': mult = 1000; break;
    case 'm': mult = 1000000; break;
    case 'g': mult = 1000000000; break;
    case 't': mult = 1000000000000; break;
    case 'K': mult = int64_t{1} << 10; binary = true; break;
    case 'M': mult = int64_t{1} << 20; binary = true; break;
    case 'G': mult = int64_t{1} << 30; binary = true; break;
    case 'T': mult = int64_t{1} << 40; binary = true; break;
    default: return ParseIntText(t);
  }
  std::string_view number = t.substr(0, t.size() - 1);
  if (!IsPlainDecimal(number)) {
    return InvalidArgumentError(fmt::format("'{}' is not a token count (e.g. 8192, 32k, 32K)", text));
  }
  if (binary) {
    if (number.find('.') != std::string_view::npos) {
      return InvalidArgumentError(fmt::format(
          "decimals are not allowed with binary suffixes like {}; did you mean {}{}?", suffix,
          number, static_cast<char>(suffix - 'A' + 'a')));
    }
    GEMMAD_ASSIGN_OR_RETURN(int64_t n, ParseIntText(number));
    return n * mult;
  }
  GEMMAD_ASSIGN_OR_RETURN(double n, ParseFloatText(number));
  return static_cast<int64_t>(n * static_cast<double>(mult));
}

json ParseLooseJson(std::string_view text) {
  json v = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (v.is_discarded()) return json(std::string(text));
  return v;
}

Result<json> ParseMmLimitsText(std::string_view text) {
  std::string_view t = TrimAscii(text);
  if (!t.empty() && t.front() == '{') {
    json v = json::parse(t, nullptr, false);
    if (v.is_discarded() || !v.is_object()) {
      return InvalidArgumentError(fmt::format("'{}' is not a JSON object", text));
    }
    return v;
  }
  json out = json::object();
  for (const std::string& item : StrSplit(t, ',')) {
    std::string_view kv = TrimAscii(item);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      return InvalidArgumentError(
          fmt::format("'{}' is neither JSON nor modality=count pairs (e.g. image=4,audio=1)", text));
    }
    auto count = ParseIntText(kv.substr(eq + 1));
    if (!count.ok() || *count < 0) {
      return InvalidArgumentError(fmt::format("'{}': count for '{}' must be a non-negative integer",
                                              text, TrimAscii(kv.substr(0, eq))));
    }
    out[std::string(TrimAscii(kv.substr(0, eq)))] = *count;
  }
  return out;
}

Result<json> ParseFlagValue(const FlagSpec& spec, std::string_view text) {
  switch (spec.type) {
    case FlagType::kBool: {
      auto v = ParseBoolText(text);
      if (!v.ok()) return FlagError(spec, "bool", text);
      return json(*v);
    }
    case FlagType::kInt: {
      auto v = ParseIntText(text);
      if (!v.ok()) return FlagError(spec, "int", text);
      return json(*v);
    }
    case FlagType::kFloat: {
      auto v = ParseFloatText(text);
      if (!v.ok()) return FlagError(spec, "float", text);
      return json(*v);
    }
    case FlagType::kTokenCount: {
      auto v = ParseTokenCountText(text);
      if (!v.ok()) return InvalidArgumentError(fmt::format("argument --{}: {}", spec.name, v.status().message()));
      return json(*v);
    }
    case FlagType::kJson: {
      json v = json::parse(text, nullptr, false);
      if (v.is_discarded()) return FlagError(spec, "JSON", text);
      return v;
    }
    case FlagType::kMmLimits: {
      auto v = ParseMmLimitsText(text);
      if (!v.ok()) return InvalidArgumentError(fmt::format("argument --{}: {}", spec.name, v.status().message()));
      return *v;
    }
    case FlagType::kString:
    case FlagType::kStringList:
      break;
  }
  std::string s(text);
  if (!spec.choices.empty()) {
    for (const std::string& c : StrSplit(spec.choices, '|')) {
      if (c == s) return json(s);
    }
    std::vector<std::string> quoted;
    for (const std::string& c : StrSplit(spec.choices, '|')) quoted.push_back("'" + c + "'");
    return InvalidArgumentError(fmt::format("argument --{}: invalid choice: '{}' (choose from {})",
                                            spec.name, s, StrJoin(quoted, ", ")));
  }
  return json(s);
}

}  // namespace gemmad::cli
