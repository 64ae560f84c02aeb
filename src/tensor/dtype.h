// DType: the closed set of element types gemmad stores. Names follow safetensors ("BF16"); the
// two block-quantized weight types are gemmad's own load-time formats (tensor/quant_blocks.h):
// their rows are self-contained runs of blocks, so they have a row size but no element size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gemmad::tensor {

enum class DType : uint8_t { kF32, kBF16, kF16, kF64, kI64, kI32, kI16, kI8, kU8, kBool, kQ8R, kQ4_0 };

// Bytes per element; 0 for the block-quantized types (use RowBytes).
size_t DTypeSize(DType t);
// kQ8R (int8 per row, fp32 row scale) and kQ4_0 (int4 in blocks of 32 with an f16 scale).
bool IsBlockQuantized(DType t);
// Bytes of one row of `cols` elements (cols must be a multiple of kQuantBlock for the block types).
size_t RowBytes(DType t, int64_t cols);
// "F32", "BF16", ... (the safetensors spelling; "Q8_R" and "Q4_0" for the block types).
std::string_view DTypeName(DType t);
// Parses the safetensors spelling; nullopt for anything else (e.g. "F8_E4M3", and the block
// types, which never come from a safetensors header).
std::optional<DType> ParseDType(std::string_view name);

}  // namespace gemmad::tensor
