// The GGUF metadata value types (spec gguf.md §1.2).
#include "io/gguf_types.h"

#include <array>
#include <cstdint>

namespace gemmad::io {
namespace {

constexpr std::array<std::string_view, 13> kValueTypeNames = {
    "UINT8", "INT8", "UINT16", "INT16", "UINT32", "INT32", "FLOAT32",
    "BOOL", "STRING", "ARRAY", "UINT64", "INT64", "FLOAT64"};
constexpr std::array<uint32_t, 13> kValueTypeBytes = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

}  // namespace

std::optional<GgufValueType> GgufValueTypeFromId(uint32_t id) {
  if (id >= kValueTypeNames.size()) return std::nullopt;
  return static_cast<GgufValueType>(id);
}

std::string_view GgufValueTypeName(GgufValueType type) {
  auto i = static_cast<uint32_t>(type);
  return i < kValueTypeNames.size() ? kValueTypeNames[i] : "UNKNOWN";
}

uint32_t GgufValueFixedBytes(GgufValueType type) {
  auto i = static_cast<uint32_t>(type);
  return i < kValueTypeBytes.size() ? kValueTypeBytes[i] : 0;
}

}  // namespace gemmad::io
