// JsonFields implementation.
#include "io/json_fields.h"

#include <fmt/format.h>

namespace gemmad::io {

using nlohmann::json;

Result<json> ParseJsonText(std::string_view text, std::string_view label) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return InvalidArgumentError(fmt::format("{}: not valid JSON", label));
  return doc;
}

std::string_view JsonTypeName(const json& v) {
  switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "object";
    case json::value_t::array: return "array";
    case json::value_t::string: return "string";
    case json::value_t::boolean: return "boolean";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned: return "integer";
    case json::value_t::number_float: return "number";
    default: return "value";
  }
}

JsonFields::JsonFields(const json& obj, std::string label, std::string path)
    : obj_(obj), label_(std::move(label)), path_(std::move(path)) {}

const json* JsonFields::Get(std::string_view key) const {
  if (!obj_.is_object()) return nullptr;
  auto it = obj_.find(std::string(key));
  return it == obj_.end() ? nullptr : &*it;
}

bool JsonFields::Has(std::string_view key) const { return Get(key) != nullptr; }
bool JsonFields::IsNull(std::string_view key) const {
  const json* v = Get(key);
  return v != nullptr && v->is_null();
}

std::string JsonFields::ChildPath(std::string_view key) const {
  return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
}

std::string JsonFields::Where(std::string_view key) const { return fmt::format("{}: {}", label_, ChildPath(key)); }

Status JsonFields::Error(std::string_view key, std::string_view problem) const {
  return InvalidArgumentError(fmt::format("{}: {}", Where(key), problem));
}

namespace {
Status TypeError(const JsonFields& f, std::string_view key, std::string_view want, const json& got) {
  return f.Error(key, fmt::format("expected {}, got {}", want, JsonTypeName(got)));
}
}  // namespace

Status JsonFields::IntOpt(std::string_view key, std::optional<int64_t>* out) const {
  const json* v = Get(key);
  if (v == nullptr) return OkStatus();
  if (v->is_null()) {
    out->reset();
    return OkStatus();
  }
  if (v->is_number_unsigned()) {
    if (v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return Error(key, "integer out of range");
    *out = static_cast<int64_t>(v->get<uint64_t>());
  } else if (v->is_number_integer()) {
    *out = v->get<int64_t>();
  } else {
    return TypeError(*this, key, "an integer", *v);
  }
  return OkStatus();
}

Status JsonFields::Int(std::string_view key, int64_t* out) const {
  if (IsNull(key)) return Error(key, "must not be null");
  std::optional<int64_t> v;
  GEMMAD_RETURN_IF_ERROR(IntOpt(key, &v));
  if (v) *out = *v;
  return OkStatus();
}

Status JsonFields::DoubleOpt(std::string_view key, std::optional<double>* out) const {
  const json* v = Get(key);
  if (v == nullptr) return OkStatus();
  if (v->is_null()) {
    out->reset();
    return OkStatus();
  }
  if (!v->is_number()) return TypeError(*this, key, "a number", *v);
  *out = v->get<double>();
  return OkStatus();
}

Status JsonFields::Double(std::string_view key, double* out) const {
  if (IsNull(key)) return Error(key, "must not be null");
  std::optional<double> v;
  GEMMAD_RETURN_IF_ERROR(DoubleOpt(key, &v));
  if (v) *out = *v;
  return OkStatus();
}

Status JsonFields::Bool(std::string_view key, bool* out) const {
  const json* v = Get(key);
  if (v == nullptr) return OkStatus();
  if (!v->is_boolean()) return TypeError(*this, key, "true or false", *v);
  *out = v->get<bool>();
  return OkStatus();
}

Status JsonFields::StringOpt(std::string_view key, std::optional<std::string>* out) const {
  const json* v = Get(key);
  if (v == nullptr) return OkStatus();
  if (v->is_null()) {
    out->reset();
    return OkStatus();
  }
  if (!v->is_string()) return TypeError(*this, key, "a string", *v);
  *out = v->get<std::string>();
  return OkStatus();
}

Status JsonFields::String(std::string_view key, std::string* out) const {
  if (IsNull(key)) return Error(key, "must not be null");
  std::optional<std::string> v;
  GEMMAD_RETURN_IF_ERROR(StringOpt(key, &v));
  if (v) *out = *v;
  return OkStatus();
}

Status JsonFields::IntOrIntList(std::string_view key, std::vector<int64_t>* out) const {
  const json* v = Get(key);
  if (v == nullptr) return OkStatus();
  out->clear();
  if (v->is_null()) return OkStatus();
  if (v->is_number_integer()) {
    out->push_back(v->get<int64_t>());
    return OkStatus();
  }
  if (!v->is_array()) return TypeError(*this, key, "an integer or a list of integers", *v);
  for (const json& e : *v) {
    if (!e.is_number_integer()) return Error(key, fmt::format("expected integers in the list, got {}", JsonTypeName(e)));
    out->push_back(e.get<int64_t>());
  }
  return OkStatus();
}

Status JsonFields::StringList(std::string_view key, std::vector<std::string>* out) const {
  const json* v = Get(key);
  if (v == nullptr || v->is_null()) return OkStatus();
  if (!v->is_array()) return TypeError(*this, key, "a list of strings", *v);
  out->clear();
  for (const json& e : *v) {
    if (!e.is_string()) return Error(key, fmt::format("expected strings in the list, got {}", JsonTypeName(e)));
    out->push_back(e.get<std::string>());
  }
  return OkStatus();
}

Status JsonFields::Object(std::string_view key, const json** out) const {
  const json* v = Get(key);
  *out = nullptr;
  if (v == nullptr || v->is_null()) return OkStatus();
  if (!v->is_object()) return TypeError(*this, key, "an object", *v);
  *out = v;
  return OkStatus();
}

}  // namespace gemmad::io
