// ConstraintSpec::CacheKey: a canonical, unambiguous serialisation of the spec.
#include "constrain/constraint_spec.h"

#include <nlohmann/json.hpp>

namespace gemmad::constrain {
namespace {

// Re-serialises JSON text without whitespace (key order kept); the raw text when it does not parse.
std::string CanonicalJson(const std::string& text) {
  // ordered_json: property order is meaningful (it is the order the output must follow).
  nlohmann::ordered_json j = nlohmann::ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return "raw:" + text;
  return j.dump();
}

}  // namespace

std::string_view ConstraintKindName(ConstraintKind kind) {
  switch (kind) {
    case ConstraintKind::kJsonSchema: return "json_schema";
    case ConstraintKind::kJsonObject: return "json_object";
    case ConstraintKind::kRegex: return "regex";
    case ConstraintKind::kChoice: return "choice";
    case ConstraintKind::kGrammar: return "grammar";
    case ConstraintKind::kGemmaToolCalls: return "gemma_tool_calls";
  }
  return "unknown";
}

std::string ConstraintSpec::CacheKey() const {
  nlohmann::json k = nlohmann::json::array();
  k.push_back(std::string(ConstraintKindName(kind)));
  k.push_back(disable_any_whitespace);
  k.push_back(disable_additional_properties);
  switch (kind) {
    case ConstraintKind::kJsonSchema: k.push_back(CanonicalJson(json_schema)); break;
    case ConstraintKind::kJsonObject: break;
    case ConstraintKind::kRegex: k.push_back(regex); break;
    case ConstraintKind::kChoice: k.push_back(choices); break;
    case ConstraintKind::kGrammar: k.push_back(grammar); break;
    case ConstraintKind::kGemmaToolCalls:
      for (const auto& t : tools) {
        k.push_back(t.name);
        k.push_back(t.parameters_json.empty() ? std::string() : CanonicalJson(t.parameters_json));
      }
      k.push_back(min_tool_calls);
      k.push_back(max_tool_calls);
      break;
  }
  return k.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace gemmad::constrain
