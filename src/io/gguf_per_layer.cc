// Scalar-or-array per-layer GGUF keys.
#include "io/gguf_per_layer.h"

#include <fmt/format.h>

#include <limits>

namespace gemmad::io {
namespace {

Status CheckLayers(std::string_view key, int64_t n_layers) {
  if (n_layers < 1 || n_layers > kGgufMaxLayers) {
    return InvalidArgumentError(
        fmt::format("GGUF key '{}': layer count {} outside 1..{}", key, n_layers, kGgufMaxLayers));
  }
  return Status::Ok();
}

Status LengthError(std::string_view key, size_t got, int64_t n_layers) {
  return InvalidArgumentError(
      fmt::format("GGUF key '{}': array has {} entries, expected one per layer ({})", key, got, n_layers));
}

}  // namespace

Result<std::vector<uint32_t>> GetPerLayerU32(const GgufMetadata& md, std::string_view key, int64_t n_layers,
                                             std::optional<uint32_t> default_value) {
  GEMMAD_RETURN_IF_ERROR(CheckLayers(key, n_layers));
  const auto n = static_cast<size_t>(n_layers);
  const GgufValue* v = md.Find(key);
  if (v == nullptr && default_value) return std::vector<uint32_t>(n, *default_value);
  if (v == nullptr || v->type != GgufValueType::kArray) {
    GEMMAD_ASSIGN_OR_RETURN(uint32_t scalar, md.GetU32(key));
    return std::vector<uint32_t>(n, scalar);
  }
  GEMMAD_ASSIGN_OR_RETURN(std::vector<int64_t> values, md.GetIntArray(key));
  if (values.size() != n) return LengthError(key, values.size(), n_layers);
  std::vector<uint32_t> out;
  out.reserve(n);
  for (int64_t x : values) {
    if (x < 0 || x > std::numeric_limits<uint32_t>::max()) {
      return InvalidArgumentError(fmt::format("GGUF key '{}': entry {} out of range for UINT32", key, x));
    }
    out.push_back(static_cast<uint32_t>(x));
  }
  return out;
}

Result<std::vector<bool>> GetPerLayerBool(const GgufMetadata& md, std::string_view key, int64_t n_layers) {
  GEMMAD_RETURN_IF_ERROR(CheckLayers(key, n_layers));
  const auto n = static_cast<size_t>(n_layers);
  const GgufValue* v = md.Find(key);
  if (v != nullptr && v->type == GgufValueType::kArray) {
    if (v->array.elem_type != GgufValueType::kBool) {
      return InvalidArgumentError(fmt::format("GGUF key '{}': expected ARRAY of BOOL, got ARRAY of {}", key,
                                              GgufValueTypeName(v->array.elem_type)));
    }
    if (v->array.u.size() != n) return LengthError(key, v->array.u.size(), n_layers);
    std::vector<bool> out;
    for (uint64_t b : v->array.u) out.push_back(b != 0);
    return out;
  }
  GEMMAD_ASSIGN_OR_RETURN(uint32_t period, md.GetU32(key));
  if (period == 0) return InvalidArgumentError(fmt::format("GGUF key '{}': period 0", key));
  std::vector<bool> out;
  for (size_t i = 0; i < n; ++i) out.push_back(i % period < period - 1);
  return out;
}

}  // namespace gemmad::io
