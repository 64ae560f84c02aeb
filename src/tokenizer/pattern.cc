// Pattern parsing and matching.
#include "tokenizer/pattern.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace gemmad::tokenizer {

Result<Pattern> Pattern::Parse(const nlohmann::json& j, std::string_view where) {
  Pattern p;
  if (j.is_object() && j.size() == 1 && j.contains("String") && j["String"].is_string()) {
    p.literal_ = j["String"].get<std::string>();
    if (p.literal_.empty()) {
      return UnimplementedError(fmt::format("tokenizer.json: {}: an empty String pattern is not supported", where));
    }
    return p;
  }
  if (j.is_object() && j.size() == 1 && j.contains("Regex") && j["Regex"].is_string()) {
    auto re = Regex::Compile(j["Regex"].get<std::string>());
    if (!re.ok()) return re.status().WithPrefix(fmt::format("tokenizer.json: {}", where));
    p.regex_ = *re;
    return p;
  }
  return DataLossError(fmt::format("tokenizer.json: {}: pattern must be {{\"String\": ..}} or {{\"Regex\": ..}}", where));
}

void Pattern::FindMatches(std::string_view s, std::vector<std::pair<size_t, size_t>>* out) const {
  out->clear();
  if (regex_) {
    *out = regex_->FindAll(s);
    return;
  }
  size_t pos = 0;
  while ((pos = s.find(literal_, pos)) != std::string_view::npos) {
    out->emplace_back(pos, pos + literal_.size());
    pos += literal_.size();
  }
}

std::string Pattern::Replace(std::string_view s, std::string_view content) const {
  std::vector<std::pair<size_t, size_t>> m;
  FindMatches(s, &m);
  if (m.empty()) return std::string(s);
  std::string out;
  out.reserve(s.size() + m.size() * content.size());
  size_t last = 0;
  for (auto [a, b] : m) {
    out.append(s.substr(last, a - last));
    out.append(content);
    last = b;
  }
  out.append(s.substr(last));
  return out;
}

}  // namespace gemmad::tokenizer
