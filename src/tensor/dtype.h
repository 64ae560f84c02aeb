// DType: the closed set of element types gemmad stores. Names follow safetensors ("BF16").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gemmad::tensor {

enum class DType : uint8_t { kF32, kBF16, kF16, kF64, kI64, kI32, kI16, kI8, kU8, kBool };

// Bytes per element.
size_t DTypeSize(DType t);
// "F32", "BF16", ... (the safetensors spelling).
std::string_view DTypeName(DType t);
// Parses the safetensors spelling; nullopt for anything else (e.g. "F8_E4M3").
std::optional<DType> ParseDType(std::string_view name);

}  // namespace gemmad::tensor
