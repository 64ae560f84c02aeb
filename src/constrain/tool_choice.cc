// ToolCallConstraint (request.h): the forced tool-call constraint for tool_choice required/named.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "constrain/request.h"

namespace gemmad::constrain {
namespace {

using Json = nlohmann::ordered_json;

Result<ToolSchema> ReadTool(const Json& t, size_t i) {
  const std::string where = fmt::format("tools[{}]", i);
  if (!t.is_object()) return InvalidArgumentError(where + ": must be an object");
  auto type = t.find("type");
  if (type != t.end() && !(type->is_string() && type->get<std::string>() == "function")) {
    return InvalidArgumentError(where + ".type: must be \"function\"");
  }
  auto fn = t.find("function");
  if (fn == t.end() || !fn->is_object()) {
    return InvalidArgumentError(where + ": missing object field function");
  }
  auto name = fn->find("name");
  if (name == fn->end() || !name->is_string() || name->get<std::string>().empty()) {
    return InvalidArgumentError(where + ".function: missing string field name");
  }
  ToolSchema out;
  out.name = name->get<std::string>();
  if (auto p = fn->find("parameters"); p != fn->end() && !p->is_null()) {
    if (!p->is_object()) {
      return InvalidArgumentError(where + ".function.parameters: must be an object");
    }
    if (!p->empty()) out.parameters_json = p->dump();
  }
  return out;
}

}  // namespace

Result<std::optional<ConstraintSpec>> ToolCallConstraint(const Json& tools, const Json& tool_choice,
                                                         bool parallel_tool_calls) {
  if (tool_choice.is_null()) return std::optional<ConstraintSpec>();
  std::string named;
  if (tool_choice.is_string()) {
    const std::string c = tool_choice.get<std::string>();
    if (c == "auto" || c == "none") return std::optional<ConstraintSpec>();
    if (c != "required") {
      return InvalidArgumentError(fmt::format(
          "tool_choice: must be \"none\", \"auto\", \"required\" or a named function, got \"{}\"", c));
    }
  } else if (tool_choice.is_object()) {
    auto fn = tool_choice.find("function");
    if (fn == tool_choice.end() || !fn->is_object() || !fn->contains("name") ||
        !(*fn)["name"].is_string()) {
      return InvalidArgumentError("tool_choice: a named choice needs function.name");
    }
    named = (*fn)["name"].get<std::string>();
  } else {
    return InvalidArgumentError("tool_choice: must be a string or an object");
  }
  if (!tools.is_array() || tools.empty()) {
    return InvalidArgumentError("tools: must be a non-empty array when tool_choice is set");
  }
  ConstraintSpec spec;
  spec.kind = ConstraintKind::kGemmaToolCalls;
  for (size_t i = 0; i < tools.size(); ++i) {
    GEMMAD_ASSIGN_OR_RETURN(ToolSchema t, ReadTool(tools[i], i));
    if (named.empty() || t.name == named) spec.tools.push_back(std::move(t));
  }
  if (!named.empty() && spec.tools.empty()) {
    return InvalidArgumentError(
        fmt::format("tool_choice: function \"{}\" is not among the tools", named));
  }
  if (!named.empty()) spec.tools.resize(1);
  spec.min_tool_calls = 1;
  spec.max_tool_calls = (!named.empty() || !parallel_tool_calls) ? 1 : 0;
  return std::optional<ConstraintSpec>(std::move(spec));
}

}  // namespace gemmad::constrain
