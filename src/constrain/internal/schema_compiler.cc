// SchemaCompiler (schema_compiler.h): dispatch over combinators, $ref, enum/const and types.
#include "constrain/internal/schema_compiler.h"

#include <fmt/format.h>

#include <set>

namespace gemmad::constrain::internal {
namespace {


Status Err(const std::string& path, const std::string& msg) {
  return InvalidArgumentError(fmt::format("at {}: {}", path.empty() ? "/" : path, msg));
}

const std::set<std::string>& KnownTypes() {
  static const std::set<std::string> k = {"string", "number", "integer", "boolean", "null", "object", "array"};
  return k;
}

bool HasAny(const SchemaJson& s, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (s.contains(k)) return true;
  }
  return false;
}

bool MatchesType(const SchemaJson& v, const std::string& t) {
  if (t == "string") return v.is_string();
  if (t == "boolean") return v.is_boolean();
  if (t == "null") return v.is_null();
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "number") return v.is_number();
  if (t == "integer") {
    if (v.is_number_integer()) return true;
    if (v.is_number_float()) {
      double d = v.get<double>();
      return d == static_cast<double>(static_cast<int64_t>(d));
    }
  }
  return false;
}

}  // namespace

SchemaCompiler::SchemaCompiler(const SchemaJson& document, const JsonOptions& options, GrammarAst& ast)
    : doc_(document), ast_(ast), b_(ast, options) {}

Result<ExprId> SchemaCompiler::Value(const SchemaJson& s, const std::string& path) {
  ++depth_;
  auto r = ValueAtDepth(s, path);
  --depth_;
  return r;
}

Result<ExprId> SchemaCompiler::ValueAtDepth(const SchemaJson& s, const std::string& path) {
  if (Status n = ast_.meter().CheckNesting(depth_, "the schema"); !n.ok()) {
    return Err(path, std::string(n.message()));
  }
  GEMMAD_RETURN_IF_ERROR(ast_.CheckBudget());
  if (s.is_boolean()) return s.get<bool>() ? ast_.Ref(b_.AnyValueRule()) : ast_.Nothing();
  if (!s.is_object()) return Err(path, fmt::format("a schema must be an object or a boolean, got {}", s.type_name()));
  for (auto it = s.begin(); it != s.end(); ++it) {
    GEMMAD_RETURN_IF_ERROR(CheckKeywordSupported(it.key(), it.value(), path));
  }
  RefResolver resolve = [this](const std::string& ref, const std::string& where) { return Resolve(ref, where); };
  if (s.contains("$ref")) {
    if (!s["$ref"].is_string()) return Err(path + "/$ref", "must be a string");
    bool other = false;
    for (auto it = s.begin(); it != s.end(); ++it) {
      if (it.key() != "$ref" && it.key() != "$defs" && it.key() != "definitions" && !IsAnnotationKeyword(it.key())) {
        other = true;
      }
    }
    if (!other) return RefTo(s["$ref"].get<std::string>(), path);
    SchemaJson rest = s;
    rest.erase("$ref");
    SchemaJson wrapper = {{"allOf", SchemaJson::array({SchemaJson{{"$ref", s["$ref"]}}, rest})}};
    GEMMAD_ASSIGN_OR_RETURN(SchemaJson merged, MergeAllOf(wrapper, resolve, path));
    ++depth_;
    auto r = Value(merged, path);
    --depth_;
    return r;
  }
  if (s.contains("allOf")) {
    GEMMAD_ASSIGN_OR_RETURN(SchemaJson merged, MergeAllOf(s, resolve, path));
    ++depth_;
    auto r = Value(merged, path);
    --depth_;
    return r;
  }
  return Dispatch(s, path);
}

Result<ExprId> SchemaCompiler::Dispatch(const SchemaJson& s, const std::string& path) {
  if (s.contains("anyOf") && s.contains("oneOf")) {
    return UnimplementedError(fmt::format("at {}: anyOf together with oneOf is not supported", path.empty() ? "/" : path));
  }
  for (const char* comb : {"anyOf", "oneOf"}) {
    if (!s.contains(comb)) continue;
    const SchemaJson& branches = s[comb];
    const std::string where = path + "/" + comb;
    if (!branches.is_array() || branches.empty()) return Err(where, "must be a non-empty array");
    SchemaJson rest = s;
    rest.erase(comb);
    bool restricting = false;
    for (auto it = rest.begin(); it != rest.end(); ++it) {
      if (!IsAnnotationKeyword(it.key()) && it.key() != "$defs" && it.key() != "definitions") restricting = true;
    }
    std::vector<ExprId> alts;
    RefResolver resolve = [this](const std::string& ref, const std::string& w) { return Resolve(ref, w); };
    for (size_t i = 0; i < branches.size(); ++i) {
      const std::string bpath = fmt::format("{}/{}", where, i);
      ++depth_;
      Result<ExprId> e = ast_.Nothing();
      if (restricting) {
        SchemaJson wrapper = {{"allOf", SchemaJson::array({rest, branches[i]})}};
        auto merged = MergeAllOf(wrapper, resolve, bpath);
        if (!merged.ok()) {
          --depth_;
          return merged.status();
        }
        e = Value(*merged, bpath);
      } else {
        e = Value(branches[i], bpath);
      }
      --depth_;
      if (!e.ok()) return e.status();
      alts.push_back(*e);
    }
    return ast_.Alt(std::move(alts));
  }
  if (s.contains("nullable")) {
    if (!s["nullable"].is_boolean()) return Err(path + "/nullable", "must be a boolean");
    if (s["nullable"].get<bool>()) {
      SchemaJson inner = s;
      inner.erase("nullable");
      GEMMAD_ASSIGN_OR_RETURN(ExprId v, Dispatch(inner, path));
      return ast_.Alt({v, ast_.Bytes("null")});
    }
  }
  if (s.contains("enum") || s.contains("const")) return Enum(s, path);
  std::vector<std::string> types;
  if (s.contains("type")) {
    const SchemaJson& t = s["type"];
    if (t.is_string()) {
      types.push_back(t.get<std::string>());
    } else if (t.is_array() && !t.empty()) {
      for (const auto& x : t) {
        if (!x.is_string()) return Err(path + "/type", "must be a string or an array of strings");
        types.push_back(x.get<std::string>());
      }
    } else {
      return Err(path + "/type", "must be a string or a non-empty array of strings");
    }
    for (const auto& x : types) {
      if (!KnownTypes().count(x)) return Err(path + "/type", fmt::format("unknown type \"{}\"", x));
    }
  } else {
    // No type: the keywords present say which kinds of values are meant.
    if (HasAny(s, {"properties", "required", "additionalProperties"})) types.push_back("object");
    if (HasAny(s, {"items", "prefixItems", "minItems", "maxItems", "additionalItems"})) types.push_back("array");
    if (HasAny(s, {"minLength", "maxLength", "pattern", "format"})) types.push_back("string");
    if (HasAny(s, {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})) types.push_back("number");
    if (types.empty()) return ast_.Ref(b_.AnyValueRule());
  }
  std::vector<ExprId> alts;
  for (const auto& t : types) {
    GEMMAD_ASSIGN_OR_RETURN(ExprId e, Typed(s, t, path));
    alts.push_back(e);
  }
  return ast_.Alt(std::move(alts));
}

Result<ExprId> SchemaCompiler::Enum(const SchemaJson& s, const std::string& path) {
  std::vector<SchemaJson> values;
  if (s.contains("enum")) {
    if (!s["enum"].is_array() || s["enum"].empty()) return Err(path + "/enum", "must be a non-empty array");
    for (const auto& v : s["enum"]) values.push_back(v);
  }
  if (s.contains("const")) {
    if (s.contains("enum")) {
      bool found = false;
      for (const auto& v : values) found = found || v == s["const"];
      values.clear();
      if (found) values.push_back(s["const"]);
    } else {
      values.push_back(s["const"]);
    }
  }
  std::vector<ExprId> alts;
  for (const auto& v : values) {
    bool ok = true;
    if (s.contains("type")) {
      const SchemaJson& t = s["type"];
      ok = false;
      if (t.is_string()) ok = MatchesType(v, t.get<std::string>());
      if (t.is_array()) {
        for (const auto& x : t) ok = ok || (x.is_string() && MatchesType(v, x.get<std::string>()));
      }
    }
    if (ok) alts.push_back(b_.Literal(v.dump()));
  }
  if (s.contains("nullable") && s["nullable"].is_boolean() && s["nullable"].get<bool>()) alts.push_back(ast_.Bytes("null"));
  return ast_.Alt(std::move(alts));
}

Result<ExprId> SchemaCompiler::Typed(const SchemaJson& s, const std::string& t, const std::string& path) {
  if (t == "string") return String(s, path);
  if (t == "integer") return Number(s, /*integer=*/true, path);
  if (t == "number") return Number(s, /*integer=*/false, path);
  if (t == "boolean") return ast_.Alt({ast_.Bytes("true"), ast_.Bytes("false")});
  if (t == "null") return ast_.Bytes("null");
  if (t == "object") return Object(s, path);
  return Array(s, path);
}

Result<ExprId> SchemaCompiler::RefTo(const std::string& ref, const std::string& path) {
  auto it = ref_rules_.find(ref);
  if (it != ref_rules_.end()) return ast_.Ref(it->second);
  GEMMAD_ASSIGN_OR_RETURN(const SchemaJson* target, Resolve(ref, path));
  std::string name = "ref";
  for (char c : ref) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  int32_t rule = ast_.AddRule(ast_.FreshName(name));
  ref_rules_[ref] = rule;
  ++depth_;
  auto body = Value(*target, ref.size() > 1 ? ref.substr(1) : "");
  --depth_;
  if (!body.ok()) return body.status();
  ast_.SetBody(rule, *body);
  return ast_.Ref(rule);
}

Result<const SchemaJson*> SchemaCompiler::Resolve(const std::string& ref, const std::string& path) {
  if (ref.empty() || ref[0] != '#' || (ref.size() > 1 && ref[1] != '/')) {
    return UnimplementedError(fmt::format("at {}: $ref \"{}\": only local JSON-pointer references (\"#/...\") are supported",
                                          path.empty() ? "/" : path, ref));
  }
  const SchemaJson* cur = &doc_;
  size_t i = 1;
  while (i < ref.size()) {
    size_t next = ref.find('/', i + 1);
    std::string raw = ref.substr(i + 1, (next == std::string::npos ? ref.size() : next) - i - 1);
    std::string seg;
    for (size_t k = 0; k < raw.size(); ++k) {
      if (raw[k] == '~' && k + 1 < raw.size() && (raw[k + 1] == '0' || raw[k + 1] == '1')) {
        seg += raw[k + 1] == '0' ? '~' : '/';
        ++k;
      } else if (raw[k] == '%' && k + 2 < raw.size() && std::isxdigit(static_cast<unsigned char>(raw[k + 1])) &&
                 std::isxdigit(static_cast<unsigned char>(raw[k + 2]))) {
        seg += static_cast<char>(std::stoi(raw.substr(k + 1, 2), nullptr, 16));
        k += 2;
      } else {
        seg += raw[k];
      }
    }
    if (cur->is_object() && cur->contains(seg)) {
      cur = &(*cur)[seg];
    } else if (cur->is_array() && !seg.empty() && seg.find_first_not_of("0123456789") == std::string::npos &&
               std::stoul(seg) < cur->size()) {
      cur = &(*cur)[std::stoul(seg)];
    } else {
      return Err(path, fmt::format("$ref \"{}\" does not resolve", ref));
    }
    i = next == std::string::npos ? ref.size() : next;
  }
  return cur;
}

}  // namespace gemmad::constrain::internal
