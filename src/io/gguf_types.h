// GGUF type tables: the ggml tensor types (id, name, elements per block, bytes per block) and the
// metadata value types. Types gemmad cannot compute with are still listed so that a file using
// them parses; ids the format retired or that gemmad does not know are absent (FindGgmlType
// returns nullptr and the reader rejects the tensor).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace gemmad::io {

struct GgmlTypeInfo {
  uint32_t id = 0;
  std::string_view name;    // ggml's spelling: "F32", "Q4_K", ...
  uint32_t block_size = 0;  // elements per block (1 for plain types)
  uint32_t type_size = 0;   // bytes per block
};

// The ggml type with this id; nullptr for a retired or unknown id.
const GgmlTypeInfo* FindGgmlType(uint32_t id);

// Bytes of a row of `elements` elements of `type`; nullopt when `elements` is not a whole number
// of blocks or the byte count overflows uint64.
std::optional<uint64_t> GgmlRowBytes(const GgmlTypeInfo& type, uint64_t elements);

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
