// JSON summary of a GGUF file (for `gemmad inspect`).
#include "io/gguf_summary.h"

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>

namespace gemmad::io {
namespace {

using json = nlohmann::ordered_json;  // keys in file order

json ScalarJson(const GgufValue& v) {
  switch (v.type) {
    case GgufValueType::kString: return v.s;
    case GgufValueType::kBool: return v.u != 0;
    case GgufValueType::kFloat32: case GgufValueType::kFloat64: return v.f;
    case GgufValueType::kInt8: case GgufValueType::kInt16: case GgufValueType::kInt32:
    case GgufValueType::kInt64: return v.i;
    default: return v.u;
  }
}

json ArrayJson(const GgufArray& a, size_t max_elements) {
  json head = json::array();
  size_t n = std::min(a.size(), max_elements);
  for (size_t k = 0; k < n; ++k) {
    if (a.elem_type == GgufValueType::kArray) {
      head.push_back(ArrayJson(a.a[k], max_elements));
    } else if (!a.s.empty()) {
      head.push_back(a.s[k]);
    } else if (!a.f.empty()) {
      head.push_back(a.f[k]);
    } else if (!a.i.empty()) {
      head.push_back(a.i[k]);
    } else {
      head.push_back(a.elem_type == GgufValueType::kBool ? json(a.u[k] != 0) : json(a.u[k]));
    }
  }
  return {{"type", "ARRAY"}, {"elem_type", GgufValueTypeName(a.elem_type)}, {"count", a.size()}, {"head", head}};
}

}  // namespace

std::string GgufSummaryJson(const GgufHeader& header, std::string_view path, size_t max_array_elements) {
  json md = json::object();
  for (const auto& kv : header.metadata.entries()) {
    md[kv.key] = kv.value.type == GgufValueType::kArray
                     ? ArrayJson(kv.value.array, max_array_elements)
                     : json{{"type", GgufValueTypeName(kv.value.type)}, {"value", ScalarJson(kv.value)}};
  }
  json tensors = json::array();
  std::map<std::string, int64_t> dtypes;
  for (const auto& t : header.tensors) {
    tensors.push_back({{"name", t.name}, {"type", t.type->name}, {"ne", t.ne}, {"offset", t.offset},
                       {"bytes", t.size_bytes}});
    dtypes[std::string(t.type->name)]++;
  }
  json out = {{"file", path}, {"version", header.version}, {"alignment", header.alignment},
              {"data_offset", header.data_offset}, {"metadata", md}, {"tensors", tensors}, {"dtypes", dtypes}};
  return out.dump(2, ' ', false, json::error_handler_t::replace);
}

}  // namespace gemmad::io
