// StopStringFilter implementation (vLLM v1 detokenizer semantics).
#include "api/stop_strings.h"

#include <algorithm>

namespace gemmad::api {
namespace {
bool IsContinuation(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }
}  // namespace

size_t Utf8StepBack(std::string_view s, size_t end, size_t n) {
  size_t pos = std::min(end, s.size());
  while (n > 0 && pos > 0) {
    --pos;
    while (pos > 0 && IsContinuation(s[pos])) --pos;
    --n;
  }
  return pos;
}

size_t Utf8Length(std::string_view s) {
  size_t n = 0;
  for (char c : s) n += IsContinuation(c) ? 0 : 1;
  return n;
}

StopStringFilter::StopStringFilter(std::vector<std::string> stop_strings, bool include_stop_str_in_output)
    : stops_(std::move(stop_strings)), include_in_output_(include_stop_str_in_output) {
  if (!stops_.empty() && !include_in_output_) {
    size_t longest = 0;
    for (const std::string& s : stops_) longest = std::max(longest, Utf8Length(s));
    hold_back_chars_ = longest > 0 ? longest - 1 : 0;
  }
}

bool StopStringFilter::Append(std::string_view text, bool check) {
  if (stopped()) return false;
  text_.append(text);
  if (!check || text.empty()) return false;
  // The match that ends first wins (list order breaks ties): what a text fed one character at
  // a time finds, so the result does not depend on chunking. vLLM, fed one token at a time,
  // agrees except when two stop strings complete within the same token.
  size_t best_at = std::string::npos, best_end = std::string::npos;
  const std::string* best = nullptr;
  for (const std::string& stop : stops_) {
    // Only text that ends inside the new part can hold a new match.
    size_t window = text.size() + stop.size() - 1;
    size_t start = text_.size() > window ? text_.size() - window : 0;
    size_t at = text_.find(stop, start);
    if (at == std::string::npos || at + stop.size() >= best_end) continue;
    best_at = at;
    best_end = at + stop.size();
    best = &stop;
  }
  if (best == nullptr) return false;
  matched_ = *best;
  text_.resize(include_in_output_ ? best_end : best_at);
  sent_ = std::min(sent_, text_.size());
  return true;
}

std::string StopStringFilter::TakeReady(bool finished) {
  size_t limit = text_.size();
  if (!finished && !stopped()) limit = Utf8StepBack(text_, text_.size(), hold_back_chars_);
  if (limit <= sent_) return "";
  std::string out = text_.substr(sent_, limit - sent_);
  sent_ = limit;
  return out;
}

}  // namespace gemmad::api
