// GGUF metadata: lookup, typed getters, formatting.
#include "io/gguf_metadata.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

namespace gemmad::io {
namespace {

bool IsUnsigned(GgufValueType t) {
  return t == GgufValueType::kUint8 || t == GgufValueType::kUint16 || t == GgufValueType::kUint32 ||
         t == GgufValueType::kUint64;
}
bool IsSigned(GgufValueType t) {
  return t == GgufValueType::kInt8 || t == GgufValueType::kInt16 || t == GgufValueType::kInt32 ||
         t == GgufValueType::kInt64;
}

Status TypeError(std::string_view key, std::string_view expected, GgufValueType actual) {
  return InvalidArgumentError(
      fmt::format("GGUF key '{}': expected {}, got {}", key, expected, GgufValueTypeName(actual)));
}

Status RangeError(std::string_view key, std::string_view expected) {
  return InvalidArgumentError(fmt::format("GGUF key '{}': value out of range for {}", key, expected));
}

// The integer value as a signed 128-bit-free pair: true + value when it fits int64.
Result<int64_t> AsI64(const GgufValue& v, std::string_view key) {
  if (IsSigned(v.type)) return v.i;
  if (IsUnsigned(v.type)) {
    if (v.u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return RangeError(key, "INT64");
    return static_cast<int64_t>(v.u);
  }
  return TypeError(key, "an integer", v.type);
}

}  // namespace

size_t GgufArray::size() const { return u.size() + i.size() + f.size() + s.size() + a.size(); }

bool GgufMetadata::Add(GgufKeyValue kv) {
  if (index_.count(kv.key) != 0) return false;
  index_.emplace(kv.key, entries_.size());
  entries_.push_back(std::move(kv));
  return true;
}

const GgufValue* GgufMetadata::Find(std::string_view key) const {
  auto it = index_.find(key);
  return it == index_.end() ? nullptr : &entries_[it->second].value;
}

Result<const GgufValue*> GgufMetadata::Get(std::string_view key) const {
  const GgufValue* v = Find(key);
  if (v == nullptr) return NotFoundError(fmt::format("GGUF key '{}' is missing", key));
  return v;
}

Result<std::string> GgufMetadata::GetString(std::string_view key) const {
  GEMMAD_ASSIGN_OR_RETURN(const GgufValue* v, Get(key));
  if (v->type != GgufValueType::kString) return TypeError(key, "STRING", v->type);
  return v->s;
}

Result<uint64_t> GgufMetadata::GetU64(std::string_view key) const {
  GEMMAD_ASSIGN_OR_RETURN(const GgufValue* v, Get(key));
  if (IsUnsigned(v->type)) return v->u;
  if (IsSigned(v->type)) {
    if (v->i < 0) return RangeError(key, "UINT64");
    return static_cast<uint64_t>(v->i);
  }
  return TypeError(key, "an integer", v->type);
}

Result<uint32_t> GgufMetadata::GetU32(std::string_view key) const {
  GEMMAD_ASSIGN_OR_RETURN(uint64_t u, GetU64(key));
  if (u > std::numeric_limits<uint32_t>::max()) return RangeError(key, "UINT32");
  return static_cast<uint32_t>(u);
}

Result<int64_t> GgufMetadata::GetI64(std::string_view key) const {
  GEMMAD_ASSIGN_OR_RETURN(const GgufValue* v, Get(key));
  return AsI64(*v, key);
}

Result<double> GgufMetadata::GetF64(std::string_view key) const {
  GEMMAD_ASSIGN_OR_RETURN(const GgufValue* v, Get(key));
  if (v->type != GgufValueType::kFloat32 && v->type != GgufValueType::kFloat64) {
    return TypeError(key, "FLOAT32 or FLOAT64", v->type);
  }
  return v->f;
}

Result<bool> GgufMetadata::GetBool(std::string_view key) const {
  GEMMAD_ASSIGN_OR_RETURN(const GgufValue* v, Get(key));
  if (v->type != GgufValueType::kBool) return TypeError(key, "BOOL", v->type);
  return v->u != 0;
}

Result<const GgufArray*> GgufMetadata::GetArray(std::string_view key) const {
  GEMMAD_ASSIGN_OR_RETURN(const GgufValue* v, Get(key));
  if (v->type != GgufValueType::kArray) return TypeError(key, "ARRAY", v->type);
  return &v->array;
}

Result<std::vector<std::string>> GgufMetadata::GetStringArray(std::string_view key) const {
  GEMMAD_ASSIGN_OR_RETURN(const GgufArray* a, GetArray(key));
  if (a->elem_type != GgufValueType::kString) return TypeError(key, "ARRAY of STRING", a->elem_type);
  return a->s;
}

Result<std::vector<int64_t>> GgufMetadata::GetIntArray(std::string_view key) const {
  GEMMAD_ASSIGN_OR_RETURN(const GgufArray* a, GetArray(key));
  if (IsSigned(a->elem_type)) return a->i;
  if (!IsUnsigned(a->elem_type)) return TypeError(key, "ARRAY of integers", a->elem_type);
  std::vector<int64_t> out;
  out.reserve(a->u.size());
  for (uint64_t u : a->u) {
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return RangeError(key, "INT64");
    out.push_back(static_cast<int64_t>(u));
  }
  return out;
}

namespace {

std::string FormatArray(const GgufArray& a, size_t max_elements) {
  std::string out = fmt::format("[{} x {}", GgufValueTypeName(a.elem_type), a.size());
  size_t shown = std::min(a.size(), max_elements);
  for (size_t k = 0; k < shown; ++k) {
    out += k == 0 ? ": " : ", ";
    if (!a.u.empty()) {
      out += a.elem_type == GgufValueType::kBool ? (a.u[k] ? "true" : "false") : fmt::format("{}", a.u[k]);
    } else if (!a.i.empty()) {
      out += fmt::format("{}", a.i[k]);
    } else if (!a.f.empty()) {
      out += fmt::format("{}", a.f[k]);
    } else if (!a.s.empty()) {
      out += fmt::format("\"{}\"", a.s[k]);
    } else {
      out += FormatArray(a.a[k], max_elements);
    }
  }
  if (shown < a.size()) out += ", ...";
  return out + "]";
}

}  // namespace

std::string FormatGgufValue(const GgufValue& value, size_t max_elements) {
  if (value.type == GgufValueType::kArray) return FormatArray(value.array, max_elements);
  if (value.type == GgufValueType::kString) return fmt::format("\"{}\"", value.s);
  if (value.type == GgufValueType::kBool) return value.u ? "true" : "false";
  if (value.type == GgufValueType::kFloat32 || value.type == GgufValueType::kFloat64) {
    return fmt::format("{}", value.f);
  }
  if (IsSigned(value.type)) return fmt::format("{}", value.i);
  return fmt::format("{}", value.u);
}

}  // namespace gemmad::io
