// GGUF type tables: the ggml tensor types (tensor/ggml_types.h, re-exported here: the reader rejects
// a tensor whose id FindGgmlType does not know) and the metadata value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "tensor/ggml_types.h"

namespace gemmad::io {

using tensor::FindGgmlType;
using tensor::GgmlRowBytes;
using tensor::GgmlTypeInfo;

// Metadata value types (§1.2 of the spec), with their on-disk ids.
enum class GgufValueType : uint32_t {
  kUint8 = 0, kInt8 = 1, kUint16 = 2, kInt16 = 3, kUint32 = 4, kInt32 = 5, kFloat32 = 6,
  kBool = 7, kString = 8, kArray = 9, kUint64 = 10, kInt64 = 11, kFloat64 = 12,
};

// The type for an on-disk id; nullopt for an unknown id.
std::optional<GgufValueType> GgufValueTypeFromId(uint32_t id);
// "UINT32", "STRING", ...
std::string_view GgufValueTypeName(GgufValueType type);
// Bytes of one value on disk for fixed-size types; 0 for STRING and ARRAY.
uint32_t GgufValueFixedBytes(GgufValueType type);

}  // namespace gemmad::io
