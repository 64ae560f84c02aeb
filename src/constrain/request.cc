// Parsing of the structured-output request fields and server flag into ConstraintSpec (request.h).
#include "constrain/request.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <vector>

#include "base/json_depth.h"
#include "base/strings.h"

namespace gemmad::constrain {
namespace {

using Json = nlohmann::ordered_json;

std::string TypeName(const Json& j) { return std::string(j.type_name()); }

// Deeper than this, a schema string is refused before anything recursive (dump) walks it; the
// compiler's own nesting bound (CompileBudget::max_nesting) is tighter.
constexpr int kMaxSchemaTextDepth = 256;

// A schema given as an object (or boolean) or as a JSON string holding one.
Result<std::string> SchemaText(const Json& v, const std::string& field) {
  if (v.is_object() || v.is_boolean()) return v.dump();
  if (v.is_string()) {
    if (JsonNestingDepth(v.get_ref<const std::string&>(), kMaxSchemaTextDepth) > kMaxSchemaTextDepth) {
      return InvalidArgumentError(
          fmt::format("{}: the schema is nested more than {} levels deep", field, kMaxSchemaTextDepth));
    }
    Json parsed = Json::parse(v.get<std::string>(), nullptr, /*allow_exceptions=*/false);
    if (parsed.is_discarded()) {
      return InvalidArgumentError(fmt::format("{}: the string is not valid JSON", field));
    }
    if (!parsed.is_object() && !parsed.is_boolean()) {
      return InvalidArgumentError(
          fmt::format("{}: a JSON schema must be an object or a boolean, got {}", field,
                      TypeName(parsed)));
    }
    return parsed.dump();
  }
  return InvalidArgumentError(fmt::format(
      "{}: a JSON schema must be an object or a JSON string, got {}", field, TypeName(v)));
}

Result<std::string> StringField(const Json& v, const std::string& field) {
  if (!v.is_string()) {
    return InvalidArgumentError(fmt::format("{}: must be a string, got {}", field, TypeName(v)));
  }
  return v.get<std::string>();
}

Result<std::vector<std::string>> ChoiceField(const Json& v, const std::string& field) {
  if (!v.is_array() || v.empty()) {
    return InvalidArgumentError(
        fmt::format("{}: must be a non-empty array of strings", field));
  }
  std::vector<std::string> out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string()) {
      return InvalidArgumentError(
          fmt::format("{}[{}]: must be a string, got {}", field, i, TypeName(v[i])));
    }
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

Result<bool> BoolField(const Json& v, const std::string& field) {
  if (!v.is_boolean()) {
    return InvalidArgumentError(fmt::format("{}: must be a boolean, got {}", field, TypeName(v)));
  }
  return v.get<bool>();
}

// One constraint found in the request, with the name of the field it came from.
struct Found {
  std::string field;
  ConstraintSpec spec;
};

// Reads one of the five constraint kinds from `key` of `obj` (if present and not null).
Status ReadKind(const Json& obj, const std::string& key, ConstraintKind kind,
                const std::string& field, std::vector<Found>& out) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return OkStatus();
  ConstraintSpec s;
  s.kind = kind;
  switch (kind) {
    case ConstraintKind::kJsonSchema: {
      GEMMAD_ASSIGN_OR_RETURN(s.json_schema, SchemaText(*it, field));
      break;
    }
    case ConstraintKind::kRegex: {
      GEMMAD_ASSIGN_OR_RETURN(s.regex, StringField(*it, field));
      break;
    }
    case ConstraintKind::kChoice: {
      GEMMAD_ASSIGN_OR_RETURN(s.choices, ChoiceField(*it, field));
      break;
    }
    case ConstraintKind::kGrammar: {
      GEMMAD_ASSIGN_OR_RETURN(s.grammar, StringField(*it, field));
      if (TrimAscii(s.grammar).empty()) {
        return InvalidArgumentError(fmt::format("{}: the grammar is empty", field));
      }
      break;
    }
    case ConstraintKind::kJsonObject: {
      GEMMAD_ASSIGN_OR_RETURN(bool on, BoolField(*it, field));
      if (!on) return OkStatus();
      break;
    }
    case ConstraintKind::kGemmaToolCalls:
      break;
  }
  out.push_back({field, std::move(s)});
  return OkStatus();
}

Status ReadResponseFormat(const Json& rf, std::vector<Found>& out) {
  if (!rf.is_object()) {
    return InvalidArgumentError(
        fmt::format("response_format: must be an object, got {}", TypeName(rf)));
  }
  auto t = rf.find("type");
  if (t == rf.end() || !t->is_string()) {
    return InvalidArgumentError("response_format: missing string field type");
  }
  const std::string type = t->get<std::string>();
  if (type == "text") return OkStatus();
  if (type == "json_object") {
    ConstraintSpec s;
    s.kind = ConstraintKind::kJsonObject;
    out.push_back({"response_format", std::move(s)});
    return OkStatus();
  }
  if (type == "structural_tag") {
    return UnimplementedError("response_format: type structural_tag is not supported");
  }
  if (type != "json_schema") {
    return InvalidArgumentError(fmt::format(
        "response_format.type: must be one of text, json_object, json_schema, got \"{}\"", type));
  }
  auto js = rf.find("json_schema");
  if (js == rf.end() || js->is_null()) {
    return InvalidArgumentError("response_format: type json_schema requires the field json_schema");
  }
  if (!js->is_object()) {
    return InvalidArgumentError(fmt::format(
        "response_format.json_schema: must be an object, got {}", TypeName(*js)));
  }
  if (auto n = js->find("name"); n != js->end() && !n->is_null() && !n->is_string()) {
    return InvalidArgumentError("response_format.json_schema.name: must be a string");
  }
  if (auto st = js->find("strict"); st != js->end() && !st->is_null() && !st->is_boolean()) {
    return InvalidArgumentError("response_format.json_schema.strict: must be a boolean");
  }
  auto schema = js->find("schema");
  if (schema == js->end() || schema->is_null()) {
    return InvalidArgumentError("response_format.json_schema: missing field schema");
  }
  ConstraintSpec s;
  s.kind = ConstraintKind::kJsonSchema;
  GEMMAD_ASSIGN_OR_RETURN(s.json_schema, SchemaText(*schema, "response_format.json_schema.schema"));
  out.push_back({"response_format", std::move(s)});
  return OkStatus();
}

Status ReadStructuredOutputs(const Json& so, std::vector<Found>& out, ConstraintSpec& options) {
  if (!so.is_object()) {
    return InvalidArgumentError(
        fmt::format("structured_outputs: must be an object, got {}", TypeName(so)));
  }
  GEMMAD_RETURN_IF_ERROR(
      ReadKind(so, "json", ConstraintKind::kJsonSchema, "structured_outputs.json", out));
  GEMMAD_RETURN_IF_ERROR(
      ReadKind(so, "regex", ConstraintKind::kRegex, "structured_outputs.regex", out));
  GEMMAD_RETURN_IF_ERROR(
      ReadKind(so, "choice", ConstraintKind::kChoice, "structured_outputs.choice", out));
  GEMMAD_RETURN_IF_ERROR(
      ReadKind(so, "grammar", ConstraintKind::kGrammar, "structured_outputs.grammar", out));
  GEMMAD_RETURN_IF_ERROR(ReadKind(so, "json_object", ConstraintKind::kJsonObject,
                                  "structured_outputs.json_object", out));
  for (const char* unsupported : {"structural_tag", "whitespace_pattern"}) {
    if (auto it = so.find(unsupported); it != so.end() && !it->is_null()) {
      return UnimplementedError(
          fmt::format("structured_outputs.{}: is not supported", unsupported));
    }
  }
  if (auto it = so.find("disable_any_whitespace"); it != so.end() && !it->is_null()) {
    GEMMAD_ASSIGN_OR_RETURN(options.disable_any_whitespace,
                            BoolField(*it, "structured_outputs.disable_any_whitespace"));
  }
  if (auto it = so.find("disable_additional_properties"); it != so.end() && !it->is_null()) {
    GEMMAD_ASSIGN_OR_RETURN(options.disable_additional_properties,
                            BoolField(*it, "structured_outputs.disable_additional_properties"));
  }
  return OkStatus();
}

Status ReadLegacy(const Json& body, std::vector<Found>& out) {
  GEMMAD_RETURN_IF_ERROR(
      ReadKind(body, "guided_json", ConstraintKind::kJsonSchema, "guided_json", out));
  GEMMAD_RETURN_IF_ERROR(ReadKind(body, "guided_regex", ConstraintKind::kRegex, "guided_regex", out));
  GEMMAD_RETURN_IF_ERROR(
      ReadKind(body, "guided_choice", ConstraintKind::kChoice, "guided_choice", out));
  GEMMAD_RETURN_IF_ERROR(
      ReadKind(body, "guided_grammar", ConstraintKind::kGrammar, "guided_grammar", out));
  if (auto it = body.find("guided_whitespace_pattern"); it != body.end() && !it->is_null()) {
    return UnimplementedError("guided_whitespace_pattern: is not supported");
  }
  return OkStatus();
}

}  // namespace

Result<StructuredOutputsConfig> ParseStructuredOutputsConfig(std::string_view json_text) {
  Json j = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    return InvalidArgumentError("--structured-outputs-config: must be a JSON object");
  }
  StructuredOutputsConfig c;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string field = "--structured-outputs-config." + it.key();
    if (it.key() == "backend") {
      GEMMAD_ASSIGN_OR_RETURN(c.backend, StringField(*it, field));
      static const char* kKnown[] = {"auto", "xgrammar", "guidance", "outlines",
                                     "lm-format-enforcer"};
      bool known = false;
      for (const char* k : kKnown) known = known || c.backend == k;
      if (!known) {
        return InvalidArgumentError(fmt::format(
            "{}: must be one of auto, xgrammar, guidance, outlines, lm-format-enforcer, got \"{}\"",
            field, c.backend));
      }
    } else if (it.key() == "enable_in_reasoning") {
      GEMMAD_ASSIGN_OR_RETURN(c.enable_in_reasoning, BoolField(*it, field));
    } else if (it.key() == "disable_any_whitespace") {
      GEMMAD_ASSIGN_OR_RETURN(c.disable_any_whitespace, BoolField(*it, field));
    } else if (it.key() == "disable_additional_properties") {
      GEMMAD_ASSIGN_OR_RETURN(c.disable_additional_properties, BoolField(*it, field));
    } else if (it.key() == "disable_fallback" || it.key() == "reasoning_parser") {
      // Accepted for compatibility; gemmad has one engine and takes the parser from its own flag.
    } else {
      return InvalidArgumentError(fmt::format("{}: unknown key", field));
    }
  }
  // vLLM's StructuredOutputsConfig validator, word for word.
  if (c.disable_any_whitespace && c.backend != "xgrammar" && c.backend != "guidance") {
    return InvalidArgumentError(
        "--structured-outputs-config: disable_any_whitespace is only supported for xgrammar and guidance backends.");
  }
  if (c.disable_additional_properties && c.backend != "guidance") {
    return InvalidArgumentError(
        "--structured-outputs-config: disable_additional_properties is only supported for the guidance backend.");
  }
  return c;
}

Result<std::optional<ConstraintSpec>> ParseRequestConstraint(const Json& body,
                                                             const StructuredOutputsConfig& config) {
  if (!body.is_object()) return InvalidArgumentError("request body: must be a JSON object");
  ConstraintSpec options;
  options.disable_any_whitespace = config.disable_any_whitespace;
  options.disable_additional_properties = config.disable_additional_properties;
  std::vector<Found> found;
  bool modern = false;
  if (auto it = body.find("structured_outputs"); it != body.end() && !it->is_null()) {
    GEMMAD_RETURN_IF_ERROR(ReadStructuredOutputs(*it, found, options));
    modern = true;
  }
  if (auto it = body.find("response_format"); it != body.end() && !it->is_null()) {
    GEMMAD_RETURN_IF_ERROR(ReadResponseFormat(*it, found));
    modern = true;
  }
  if (!modern) GEMMAD_RETURN_IF_ERROR(ReadLegacy(body, found));
  if (found.empty()) return std::optional<ConstraintSpec>();
  if (found.size() > 1) {
    std::vector<std::string> names;
    for (const auto& f : found) names.push_back(f.field);
    return InvalidArgumentError(fmt::format(
        "structured_outputs: only one of json, regex, choice, grammar, json_object may be set "
        "(got {})",
        StrJoin(names, ", ")));
  }
  ConstraintSpec spec = std::move(found.front().spec);
  spec.disable_any_whitespace = options.disable_any_whitespace;
  spec.disable_additional_properties = options.disable_additional_properties || ClosesObjectsByDefault(config);
  return std::optional<ConstraintSpec>(std::move(spec));
}

bool ClosesObjectsByDefault(const StructuredOutputsConfig& config) {
  return config.backend != "guidance" || config.disable_additional_properties;
}

}  // namespace gemmad::constrain
