// allOf merging and keyword classification (json_schema.h).
#include <fmt/format.h>

#include <set>

#include "constrain/internal/json_builder.h"
#include "constrain/internal/json_schema.h"

namespace gemmad::constrain::internal {
namespace {

const std::set<std::string>& Unsupported() {
  static const std::set<std::string> k = {
      "not", "if", "then", "else", "dependentRequired", "dependentSchemas", "dependencies", "multipleOf",
      "patternProperties", "propertyNames", "contains", "minContains", "maxContains", "unevaluatedProperties",
      "unevaluatedItems", "$dynamicRef", "$recursiveRef", "maxProperties"};
  return k;
}

const std::set<std::string>& Enforced() {
  static const std::set<std::string> k = {
      "type", "enum", "const", "properties", "required", "additionalProperties", "items", "prefixItems",
      "additionalItems", "minItems", "maxItems", "minLength", "maxLength", "pattern", "format", "minimum",
      "maximum", "exclusiveMinimum", "exclusiveMaximum", "anyOf", "oneOf", "allOf", "$ref", "nullable",
      "uniqueItems", "minProperties"};
  return k;
}

Status Unmergeable(const std::string& where, const std::string& key) {
  return UnimplementedError(fmt::format("at {}: allOf: cannot merge two different '{}'", where.empty() ? "/" : where, key));
}

std::vector<std::string> TypeList(const SchemaJson& t) {
  std::vector<std::string> out;
  if (t.is_string()) out.push_back(t.get<std::string>());
  if (t.is_array()) {
    for (const auto& x : t) {
      if (x.is_string()) out.push_back(x.get<std::string>());
    }
  }
  return out;
}

SchemaJson IntersectTypes(const SchemaJson& a, const SchemaJson& b) {
  std::vector<std::string> ta = TypeList(a), tb = TypeList(b), out;
  auto has = [](const std::vector<std::string>& v, const std::string& t) { return std::find(v.begin(), v.end(), t) != v.end(); };
  for (const auto& t : ta) {
    if (has(tb, t) || (t == "integer" && has(tb, "number"))) out.push_back(t);
    else if (t == "number" && has(tb, "integer")) out.push_back("integer");
  }
  SchemaJson r = SchemaJson::array();
  for (const auto& t : out) {
    if (std::find(r.begin(), r.end(), t) == r.end()) r.push_back(t);
  }
  return r;
}

bool Tighter(const SchemaJson& a, const SchemaJson& b, bool low) {
  auto da = ParseDecimal(a.dump()), db = ParseDecimal(b.dump());
  if (!da || !db) return false;
  double x = a.get<double>(), y = b.get<double>();
  return low ? x > y : x < y;
}

Result<SchemaJson> Merge2(const SchemaJson& a, const SchemaJson& b, const std::string& where);

Status MergeProperties(const SchemaJson& a, const SchemaJson& b, SchemaJson& out, const std::string& where) {
  static const SchemaJson kEmpty = SchemaJson::object();
  for (const SchemaJson* s : {&a, &b}) {
    if (s->contains("properties") && !(*s)["properties"].is_object()) {
      return InvalidArgumentError(fmt::format("at {}/properties: must be an object", where));
    }
  }
  const SchemaJson& pa = a.contains("properties") ? a["properties"] : kEmpty;
  const SchemaJson& pb = b.contains("properties") ? b["properties"] : kEmpty;
  const SchemaJson add_a = a.contains("additionalProperties") ? a["additionalProperties"] : SchemaJson(true);
  const SchemaJson add_b = b.contains("additionalProperties") ? b["additionalProperties"] : SchemaJson(true);
  SchemaJson props = SchemaJson::object();
  auto merge_key = [&](const std::string& k) -> Status {
    const SchemaJson& sa = pa.contains(k) ? pa[k] : add_a;
    const SchemaJson& sb = pb.contains(k) ? pb[k] : add_b;
    GEMMAD_ASSIGN_OR_RETURN(SchemaJson m, Merge2(sa, sb, where + "/properties/" + PointerSegment(k)));
    props[k] = std::move(m);
    return OkStatus();
  };
  for (auto it = pa.begin(); it != pa.end(); ++it) GEMMAD_RETURN_IF_ERROR(merge_key(it.key()));
  for (auto it = pb.begin(); it != pb.end(); ++it) {
    if (!props.contains(it.key())) GEMMAD_RETURN_IF_ERROR(merge_key(it.key()));
  }
  if (!props.empty()) out["properties"] = props;
  if (a.contains("additionalProperties") || b.contains("additionalProperties")) {
    GEMMAD_ASSIGN_OR_RETURN(SchemaJson add, Merge2(add_a, add_b, where + "/additionalProperties"));
    out["additionalProperties"] = add;
  }
  return OkStatus();
}

Result<SchemaJson> Merge2(const SchemaJson& a, const SchemaJson& b, const std::string& where) {
  if (a.is_boolean()) return a.get<bool>() ? b : a;
  if (b.is_boolean()) return b.get<bool>() ? a : b;
  SchemaJson out = SchemaJson::object();
  std::set<std::string> keys;
  for (auto it = a.begin(); it != a.end(); ++it) keys.insert(it.key());
  for (auto it = b.begin(); it != b.end(); ++it) keys.insert(it.key());
  if (keys.count("properties") || keys.count("additionalProperties")) GEMMAD_RETURN_IF_ERROR(MergeProperties(a, b, out, where));
  for (const auto& k : keys) {
    if (k == "properties" || k == "additionalProperties") continue;
    const bool ia = a.contains(k), ib = b.contains(k);
    if (!ia || !ib) {
      out[k] = ia ? a[k] : b[k];
      continue;
    }
    const SchemaJson& x = a[k];
    const SchemaJson& y = b[k];
    if (k == "type") {
      SchemaJson t = IntersectTypes(x, y);
      if (t.empty()) return SchemaJson(false);
      out[k] = t.size() == 1 ? t[0] : t;
    } else if (k == "required") {
      if (!x.is_array() || !y.is_array()) return Unmergeable(where, k);
      SchemaJson r = x;
      for (const auto& v : y) {
        if (std::find(r.begin(), r.end(), v) == r.end()) r.push_back(v);
      }
      out[k] = r;
    } else if (k == "enum") {
      if (!x.is_array() || !y.is_array()) return Unmergeable(where, k);
      SchemaJson r = SchemaJson::array();
      for (const auto& v : x) {
        if (std::find(y.begin(), y.end(), v) != y.end()) r.push_back(v);
      }
      if (r.empty()) return SchemaJson(false);
      out[k] = r;
    } else if (k == "minItems" || k == "minLength" || k == "minProperties" || k == "maxItems" || k == "maxLength") {
      if (!x.is_number() || !y.is_number()) return Unmergeable(where, k);
      const bool take_larger = k.rfind("min", 0) == 0;
      out[k] = (x.get<double>() >= y.get<double>()) == take_larger ? x : y;
    } else if (k == "minimum" || k == "exclusiveMinimum" || k == "maximum" || k == "exclusiveMaximum") {
      if (!x.is_number() || !y.is_number()) return Unmergeable(where, k);
      const bool low = k == "minimum" || k == "exclusiveMinimum";
      out[k] = Tighter(x, y, low) ? x : y;
    } else if (k == "items") {
      if (x.is_array() || y.is_array()) {
        if (x != y) return Unmergeable(where, k);
        out[k] = x;
      } else {
        GEMMAD_ASSIGN_OR_RETURN(out[k], Merge2(x, y, where + "/items"));
      }
    } else if (k == "nullable") {
      out[k] = x.is_boolean() && y.is_boolean() && x.get<bool>() && y.get<bool>();
    } else if (k == "anyOf" || k == "oneOf") {
      return UnimplementedError(fmt::format("at {}: allOf: more than one branch has '{}'", where.empty() ? "/" : where, k));
    } else if (k == "$defs" || k == "definitions" || !Enforced().count(k)) {
      out[k] = x;  // annotation, or definitions resolved against the document anyway
    } else if (x == y) {
      out[k] = x;
    } else {
      return Unmergeable(where, k);
    }
  }
  if (out.contains("const")) {
    if (out.contains("enum")) {
      bool found = std::find(out["enum"].begin(), out["enum"].end(), out["const"]) != out["enum"].end();
      if (!found) return SchemaJson(false);
      out.erase("enum");
    }
  }
  return out;
}

// Inlines $ref and nested allOf of one branch.
Result<SchemaJson> Expand(const SchemaJson& s, const RefResolver& resolve, const std::string& where, int depth) {
  if (depth > 16) return UnimplementedError(fmt::format("at {}: allOf: $ref chain too deep (recursive $ref inside allOf?)", where));
  if (!s.is_object()) return s;
  SchemaJson cur = s;
  if (cur.contains("$ref")) {
    if (!cur["$ref"].is_string()) return InvalidArgumentError(fmt::format("at {}/$ref: must be a string", where));
    GEMMAD_ASSIGN_OR_RETURN(const SchemaJson* target, resolve(cur["$ref"].get<std::string>(), where));
    GEMMAD_ASSIGN_OR_RETURN(SchemaJson t, Expand(*target, resolve, where, depth + 1));
    cur.erase("$ref");
    GEMMAD_ASSIGN_OR_RETURN(cur, Merge2(t, cur, where));
  }
  if (cur.is_object() && cur.contains("allOf")) {
    GEMMAD_ASSIGN_OR_RETURN(cur, MergeAllOf(cur, resolve, where));
  }
  return cur;
}

}  // namespace

bool IsAnnotationKeyword(const std::string& key) {
  return !Enforced().count(key) && !Unsupported().count(key) && key != "$defs" && key != "definitions";
}

Status CheckKeywordSupported(const std::string& key, const SchemaJson& value, const std::string& where) {
  const std::string at = where.empty() ? "/" : where;
  if (Unsupported().count(key)) {
    return UnimplementedError(fmt::format("at {}: keyword '{}' is not supported", at, key));
  }
  if (key == "uniqueItems" && value.is_boolean() && value.get<bool>()) {
    return UnimplementedError(fmt::format("at {}: keyword 'uniqueItems': true is not supported", at));
  }
  if (key == "minProperties" && !(value.is_number() && value.get<double>() <= 0)) {
    return UnimplementedError(fmt::format("at {}: keyword 'minProperties' is not supported", at));
  }
  return OkStatus();
}

Result<SchemaJson> MergeAllOf(const SchemaJson& schema, const RefResolver& resolve, const std::string& where) {
  SchemaJson acc = schema;
  SchemaJson branches = SchemaJson::array();
  if (schema.contains("allOf")) {
    if (!schema["allOf"].is_array() || schema["allOf"].empty()) {
      return InvalidArgumentError(fmt::format("at {}/allOf: must be a non-empty array", where));
    }
    branches = schema["allOf"];
    acc.erase("allOf");
  }
  GEMMAD_ASSIGN_OR_RETURN(acc, Expand(acc, resolve, where, 0));
  for (size_t i = 0; i < branches.size(); ++i) {
    const std::string bw = fmt::format("{}/allOf/{}", where, i);
    if (!branches[i].is_object() && !branches[i].is_boolean()) {
      return InvalidArgumentError(fmt::format("at {}: a schema must be an object or a boolean", bw));
    }
    if (branches[i].is_object()) {
      for (auto it = branches[i].begin(); it != branches[i].end(); ++it) {
        GEMMAD_RETURN_IF_ERROR(CheckKeywordSupported(it.key(), it.value(), bw));
      }
    }
    GEMMAD_ASSIGN_OR_RETURN(SchemaJson b, Expand(branches[i], resolve, bw, 0));
    GEMMAD_ASSIGN_OR_RETURN(acc, Merge2(acc, b, bw));
  }
  return acc;
}

std::string PointerSegment(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace gemmad::constrain::internal
