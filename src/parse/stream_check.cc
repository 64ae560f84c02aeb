// ValidateDeltaStream (stream_check.h).
#include "parse/stream_check.h"

#include <fmt/format.h>

#include "parse/gemma4/markers.h"
#include "parse/text_util.h"

namespace gemmad::parse {
namespace {

std::string CheckText(std::string_view what, const std::string& s) {
  std::string fixed;
  AppendValidUtf8(s, /*at_end=*/true, fixed);
  if (fixed != s) return fmt::format("{} is not valid UTF-8", what);
  for (const auto& m : gemma4::AllMarkers()) {
    if (s.find(m.text) != std::string::npos) {
      return fmt::format("{} contains the marker {}: {}", what, m.text, s);
    }
  }
  return "";
}

}  // namespace

std::string ValidateDeltaStream(const std::vector<Delta>& deltas) {
  int next_index = 0;
  for (size_t k = 0; k < deltas.size(); ++k) {
    const Delta& d = deltas[k];
    const int members =
        (d.reasoning ? 1 : 0) + (d.content ? 1 : 0) + (d.tool_calls.empty() ? 0 : 1);
    if (members != 1 || d.tool_calls.size() > 1) {
      return fmt::format("delta {}: must have exactly one member", k);
    }
    std::string e;
    if (d.reasoning) e = CheckText("reasoning", *d.reasoning);
    if (d.content) {
      if (d.content->empty()) return fmt::format("delta {}: empty content", k);
      e = CheckText("content", *d.content);
    }
    if (!e.empty()) return fmt::format("delta {}: {}", k, e);
    for (const auto& tc : d.tool_calls) {
      e = CheckText("arguments", tc.arguments);
      if (!e.empty()) return fmt::format("delta {}: {}", k, e);
      if (tc.id.has_value() != tc.name.has_value()) {
        return fmt::format("delta {}: id and name must come together", k);
      }
      if (tc.id) {
        if (tc.index != next_index) {
          return fmt::format("delta {}: new call has index {}, expected {}", k, tc.index,
                             next_index);
        }
        if (!tc.arguments.empty()) return fmt::format("delta {}: first delta has arguments", k);
        if (tc.name->empty()) return fmt::format("delta {}: empty name", k);
        if (auto ne = CheckText("name", *tc.name); !ne.empty()) {
          return fmt::format("delta {}: {}", k, ne);
        }
        ++next_index;
      } else if (tc.index != next_index - 1 || tc.arguments.empty()) {
        return fmt::format("delta {}: fragment for call {} while call {} is current", k,
                           tc.index, next_index - 1);
      }
    }
  }
  return "";
}

}  // namespace gemmad::parse
