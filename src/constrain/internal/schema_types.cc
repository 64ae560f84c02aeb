// SchemaCompiler (schema_compiler.h): strings, numbers, objects and arrays.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "constrain/internal/schema_compiler.h"

namespace gemmad::constrain::internal {
namespace {

constexpr int64_t kMaxItemsBound = 2000;
constexpr size_t kMaxAllOptionalProperties = 24;

Status Err(const std::string& path, const std::string& msg) {
  return InvalidArgumentError(fmt::format("at {}: {}", path.empty() ? "/" : path, msg));
}

Result<int64_t> NonNegInt(const SchemaJson& s, const char* key, const std::string& path, int64_t dflt) {
  if (!s.contains(key)) return dflt;
  const SchemaJson& v = s[key];
  // Values past int64 (a huge unsigned, or a float of 2^63 or more) are refused before any cast.
  if (v.is_number_unsigned() && v.get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) return v.get<int64_t>();
  if (v.is_number_integer() && !v.is_number_unsigned() && v.get<int64_t>() >= 0) return v.get<int64_t>();
  if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= 0 && d < 0x1p63 && d == std::floor(d)) return static_cast<int64_t>(d);
  }
  return Err(path + "/" + key, fmt::format("must be a non-negative integer below 2^63, got {}", v.dump()));
}

int CompareDecimal(const Decimal& a, const Decimal& b) {
  auto sign = [](const Decimal& d) { return (d.int_digits == "0" && d.frac_digits.empty()) ? 0 : (d.negative ? -1 : 1); };
  const int sa = sign(a), sb = sign(b);
  if (sa != sb) return sa < sb ? -1 : 1;
  int mag;
  if (a.int_digits.size() != b.int_digits.size()) {
    mag = a.int_digits.size() < b.int_digits.size() ? -1 : 1;
  } else if (a.int_digits != b.int_digits) {
    mag = a.int_digits < b.int_digits ? -1 : 1;
  } else {
    mag = a.frac_digits < b.frac_digits ? -1 : (a.frac_digits > b.frac_digits ? 1 : 0);
  }
  return sa < 0 ? -mag : mag;
}

// Reads minimum/exclusiveMinimum (low) or maximum/exclusiveMaximum (high), keeping the tighter.
Result<std::optional<NumberBound>> Bound(const SchemaJson& s, bool low, const std::string& path) {
  const char* incl = low ? "minimum" : "maximum";
  const char* excl = low ? "exclusiveMinimum" : "exclusiveMaximum";
  std::optional<NumberBound> best;
  auto consider = [&](const SchemaJson& v, const char* key, bool exclusive) -> Status {
    if (!v.is_number()) return Err(path + "/" + key, fmt::format("must be a number, got {}", v.dump()));
    auto d = ParseDecimal(v.dump());
    if (!d) return Err(path + "/" + key, "unsupported number");
    NumberBound nb{*d, exclusive};
    if (!best) {
      best = nb;
      return OkStatus();
    }
    int c = CompareDecimal(nb.value, best->value);
    if ((low && c > 0) || (!low && c < 0) || (c == 0 && exclusive)) best = nb;
    return OkStatus();
  };
  bool draft4_exclusive = false;
  if (s.contains(excl)) {
    if (s[excl].is_boolean()) {
      draft4_exclusive = s[excl].get<bool>();
    } else {
      GEMMAD_RETURN_IF_ERROR(consider(s[excl], excl, true));
    }
  }
  if (s.contains(incl)) GEMMAD_RETURN_IF_ERROR(consider(s[incl], incl, draft4_exclusive));
  return best;
}

}  // namespace

Result<ExprId> SchemaCompiler::String(const SchemaJson& s, const std::string& path) {
  StringConstraints c;
  GEMMAD_ASSIGN_OR_RETURN(c.min_length, NonNegInt(s, "minLength", path, 0));
  GEMMAD_ASSIGN_OR_RETURN(c.max_length, NonNegInt(s, "maxLength", path, -1));
  if (s.contains("pattern")) {
    if (!s["pattern"].is_string()) return Err(path + "/pattern", "must be a string");
    c.pattern = s["pattern"].get<std::string>();
  }
  if (s.contains("format")) {
    if (!s["format"].is_string()) return Err(path + "/format", "must be a string");
    // Unknown formats are annotations (JSON Schema's default); known ones are enforced.
    if (!FormatRegex(s["format"].get<std::string>()).empty()) c.format = s["format"].get<std::string>();
  }
  GEMMAD_ASSIGN_OR_RETURN(int32_t rule, b_.StringRule(c, fmt::format("at {}", path.empty() ? "/" : path)));
  return ast_.Ref(rule);
}

Result<ExprId> SchemaCompiler::Number(const SchemaJson& s, bool integer, const std::string& path) {
  GEMMAD_ASSIGN_OR_RETURN(auto lo, Bound(s, /*low=*/true, path));
  GEMMAD_ASSIGN_OR_RETURN(auto hi, Bound(s, /*low=*/false, path));
  const std::string where = fmt::format("at {}", path.empty() ? "/" : path);
  GEMMAD_ASSIGN_OR_RETURN(int32_t rule, integer ? b_.IntegerRule(lo, hi, where) : b_.NumberRule(lo, hi, where));
  return ast_.Ref(rule);
}

ExprId SchemaCompiler::Key(const std::string& name) {
  if (b_.options().gemma()) return ast_.Bytes(name);
  return ast_.Bytes(SchemaJson(name).dump());
}

ExprId SchemaCompiler::AdditionalKey(const std::vector<std::string>& declared) {
  std::vector<ExprId> names;
  for (const auto& d : declared) names.push_back(Key(d));
  ExprId any;
  if (b_.options().gemma()) {
    any = b_.AnyBareKey();
  } else {
    // Keys without escapes, so that a declared name cannot be spelled differently.
    any = ast_.Seq({ast_.Bytes("\""), ast_.Star(ast_.CharClass({{0x20, 0x21}, {0x23, 0x5B}, {0x5D, 0x10FFFF}})), ast_.Bytes("\"")});
  }
  return names.empty() ? any : ast_.Except(any, ast_.Alt(std::move(names)));
}

Result<ExprId> SchemaCompiler::ObjectMembers(const SchemaJson& s, const std::string& path, bool* has_required) {
  *has_required = false;
  static const SchemaJson kEmpty = SchemaJson::object();
  const SchemaJson& props = s.contains("properties") ? s["properties"] : kEmpty;
  if (!props.is_object()) return Err(path + "/properties", "must be an object");
  std::vector<std::string> required;
  if (s.contains("required")) {
    if (!s["required"].is_array()) return Err(path + "/required", "must be an array of strings");
    for (const auto& r : s["required"]) {
      if (!r.is_string()) return Err(path + "/required", "must be an array of strings");
      if (std::find(required.begin(), required.end(), r.get<std::string>()) == required.end()) required.push_back(r.get<std::string>());
    }
  }
  SchemaJson addl = b_.options().closed_objects ? SchemaJson(false) : SchemaJson(true);
  if (s.contains("additionalProperties")) addl = s["additionalProperties"];
  if (!addl.is_boolean() && !addl.is_object()) return Err(path + "/additionalProperties", "must be a boolean or a schema");
  const bool addl_allowed = !(addl.is_boolean() && !addl.get<bool>());

  struct Member {
    ExprId expr;
    bool required;
  };
  std::vector<Member> members;
  std::vector<std::string> declared;
  auto is_required = [&](const std::string& n) { return std::find(required.begin(), required.end(), n) != required.end(); };
  for (auto it = props.begin(); it != props.end(); ++it) {
    declared.push_back(it.key());
    const bool req = is_required(it.key());
    if (it.value().is_boolean() && !it.value().get<bool>()) {
      if (req) return ast_.Nothing();
      continue;
    }
    GEMMAD_ASSIGN_OR_RETURN(ExprId v, Value(it.value(), path + "/properties/" + PointerSegment(it.key())));
    members.push_back({ast_.Seq({Key(it.key()), b_.KeySeparator(), v}), req});
  }
  for (const auto& r : required) {
    if (props.contains(r)) continue;
    if (!addl_allowed) return ast_.Nothing();
    declared.push_back(r);
    GEMMAD_ASSIGN_OR_RETURN(ExprId v, Value(addl, path + "/additionalProperties"));
    members.push_back({ast_.Seq({Key(r), b_.KeySeparator(), v}), true});
  }
  std::optional<ExprId> extra;
  if (addl_allowed) {
    GEMMAD_ASSIGN_OR_RETURN(ExprId v, Value(addl, path + "/additionalProperties"));
    extra = ast_.Seq({AdditionalKey(declared), b_.KeySeparator(), v});
  }
  const ExprId tail_b = extra ? ast_.Star(ast_.Seq({b_.ItemSeparator(), *extra})) : ast_.Empty();
  const size_t n = members.size();
  size_t first_req = n;
  for (size_t i = 0; i < n; ++i) {
    if (members[i].required) {
      first_req = i;
      break;
    }
  }
  if (first_req < n) {
    // Optional members before the first required one carry a trailing separator; the rest a
    // leading one: linear in the number of properties.
    *has_required = true;
    std::vector<ExprId> seq;
    for (size_t i = 0; i < first_req; ++i) seq.push_back(ast_.Optional(ast_.Seq({members[i].expr, b_.ItemSeparator()})));
    seq.push_back(members[first_req].expr);
    for (size_t i = first_req + 1; i < n; ++i) {
      ExprId m = ast_.Seq({b_.ItemSeparator(), members[i].expr});
      seq.push_back(members[i].required ? m : ast_.Optional(m));
    }
    seq.push_back(tail_b);
    return ast_.Seq(std::move(seq));
  }
  if (n > kMaxAllOptionalProperties) {
    return UnimplementedError(fmt::format("at {}: more than {} properties, none required, are not supported",
                                          path.empty() ? "/" : path, kMaxAllOptionalProperties));
  }
  // No required member: the first member present may be any of them.
  std::vector<ExprId> after(n + 1);
  after[n] = tail_b;
  for (size_t i = n; i-- > 0;) after[i] = ast_.Seq({ast_.Optional(ast_.Seq({b_.ItemSeparator(), members[i].expr})), after[i + 1]});
  ExprId first = extra ? ast_.Seq({*extra, tail_b}) : ast_.Nothing();
  for (size_t i = n; i-- > 0;) first = ast_.Alt({ast_.Seq({members[i].expr, after[i + 1]}), first});
  return ast_.Optional(first);
}

Result<ExprId> SchemaCompiler::Object(const SchemaJson& s, const std::string& path) {
  bool has_required = false;
  GEMMAD_ASSIGN_OR_RETURN(ExprId members, ObjectMembers(s, path, &has_required));
  ExprId inner = ast_.Seq({members, b_.Ws()});
  if (!has_required) inner = ast_.Optional(inner);
  return ast_.Ref(b_.NewRule("object", ast_.Seq({b_.Open('{'), inner, ast_.Bytes("}")})));
}

Result<ExprId> SchemaCompiler::Array(const SchemaJson& s, const std::string& path) {
  std::vector<SchemaJson> prefix;
  SchemaJson items = true;
  std::string items_path = path + "/items";
  if (s.contains("prefixItems")) {
    if (!s["prefixItems"].is_array()) return Err(path + "/prefixItems", "must be an array of schemas");
    for (const auto& p : s["prefixItems"]) prefix.push_back(p);
    if (s.contains("items")) items = s["items"];
  } else if (s.contains("items") && s["items"].is_array()) {
    for (const auto& p : s["items"]) prefix.push_back(p);
    if (s.contains("additionalItems")) items = s["additionalItems"];
    items_path = path + "/additionalItems";
  } else if (s.contains("items")) {
    items = s["items"];
  }
  GEMMAD_ASSIGN_OR_RETURN(int64_t min, NonNegInt(s, "minItems", path, 0));
  GEMMAD_ASSIGN_OR_RETURN(int64_t max, NonNegInt(s, "maxItems", path, -1));
  const bool items_allowed = !(items.is_boolean() && !items.get<bool>());
  const auto k = static_cast<int64_t>(prefix.size());
  if (!items_allowed) max = max < 0 ? k : std::min(max, k);
  if (max >= 0 && min > max) return ast_.Nothing();
  if (min > kMaxItemsBound || max > kMaxItemsBound) {
    return UnimplementedError(fmt::format("at {}: minItems/maxItems above {} are not supported", path.empty() ? "/" : path, kMaxItemsBound));
  }
  const int64_t usable = max >= 0 ? std::min(k, max) : k;
  std::vector<ExprId> el;
  for (int64_t j = 0; j < usable; ++j) {
    GEMMAD_ASSIGN_OR_RETURN(ExprId e, Value(prefix[static_cast<size_t>(j)], fmt::format("{}/prefixItems/{}", path, j)));
    el.push_back(e);
  }
  ExprId item = ast_.Nothing();
  if (items_allowed && (max < 0 || max > usable)) {
    GEMMAD_ASSIGN_OR_RETURN(item, Value(items, items_path));
  }
  ExprId elements;
  if (max == 0) {
    elements = ast_.Empty();
  } else if (usable == 0) {
    elements = ast_.Seq({item, ast_.Repeat(ast_.Seq({b_.ItemSeparator(), item}), static_cast<int32_t>(std::max<int64_t>(0, min - 1)),
                                           max < 0 ? -1 : static_cast<int32_t>(max - 1))});
  } else {
    ExprId tail = ast_.Empty();
    if (items_allowed && (max < 0 || max > usable)) {
      tail = ast_.Repeat(ast_.Seq({b_.ItemSeparator(), item}), static_cast<int32_t>(std::max<int64_t>(0, min - usable)),
                         max < 0 ? -1 : static_cast<int32_t>(max - usable));
    }
    for (int64_t j = usable - 1; j >= 1; --j) {
      ExprId step = ast_.Seq({b_.ItemSeparator(), el[static_cast<size_t>(j)], tail});
      tail = j < min ? step : ast_.Optional(step);
    }
    elements = ast_.Seq({el[0], tail});
  }
  ExprId inner = max == 0 ? ast_.Empty() : ast_.Seq({elements, b_.Ws()});
  if (min == 0 && max != 0) inner = ast_.Optional(inner);
  return ast_.Ref(b_.NewRule("array", ast_.Seq({b_.Open('['), inner, ast_.Bytes("]")})));
}

}  // namespace gemmad::constrain::internal
