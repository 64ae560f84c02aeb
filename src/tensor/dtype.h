// DType: the closed set of element types gemmad stores. Names follow safetensors ("BF16"); the
// block-quantized weight types are gemmad's own load-time formats (kQ8R, kQ4_0:
// tensor/quant_blocks.h) and the ggml types GGUF files store and the kernels read as they are
// (kGgmlQ8_0, kGgmlQ5_0, kGgmlQ4_K, kGgmlQ6_K: tensor/ggml_blocks.h, rows of whole blocks, one
// row after the other). Block types have a row size but no element size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace gemmad::tensor {

enum class DType : uint8_t { kF32, kBF16, kF16, kF64, kI64, kI32, kI16, kI8, kU8, kBool, kQ8R, kQ4_0,
                            kGgmlQ8_0, kGgmlQ5_0, kGgmlQ4_K, kGgmlQ6_K, kF8E4M3, kF8R, kLut4R, kLut2R, kI8BR,
                            kQ4_0x16 };

// Bytes per element; 0 for the block-quantized types (use RowBytes).
size_t DTypeSize(DType t);
// kQ8R (int8 per row, fp32 row scale), kQ4_0 (int4 in blocks of 32 with an f16 scale; kQ4_0x16 the same
// blocks with rows in groups of 16, for kernels that take a row per lane), kF8R (FP8
// E4M3 per row with an fp32 row scale: tensor/quant_blocks.h), kLut4R / kLut2R (4- and 2-bit codes
// indexing a 16-entry table per row: tensor/lut_rows.h), kI8BR (int8 per row with an fp32 row scale,
// each weight bf16(q · s): tensor/i8b_rows.h) and the kGgml* types. kF8E4M3 is a
// plain element type (safetensors "F8_E4M3", tensor/fp8.h).
bool IsBlockQuantized(DType t);
// The kGgml* types: the ggml type id (tensor/ggml_types.h) of one, nullopt for any other dtype.
std::optional<uint32_t> GgmlTypeId(DType t);
// The dtype the kernels read a ggml type as directly, nullopt when they do not.
std::optional<DType> DTypeForGgmlType(uint32_t ggml_type);
// Elements per block along a row: 32 (kQ8R counts as 32, kQ4_0, kQ4_0x16, Q8_0, Q5_0, kLut4R), 64 (kLut2R), 256
// (K types), 1 otherwise (kF8R and kI8BR included: their rows have any length).
int64_t BlockElements(DType t);
// Bytes of one row of `cols` elements (cols must be a multiple of BlockElements for the block types).
size_t RowBytes(DType t, int64_t cols);
// "F32", "BF16", ... (the safetensors spelling; "Q8_R", "Q4_0", "Q4_0x16", "F8_R", "LUT4_R", "LUT2_R", "I8B_R", and
// ggml's "Q8_0", "Q5_0", "Q4_K", "Q6_K" for the block types).
std::string_view DTypeName(DType t);
// Parses the safetensors spelling (F8_E4M3 included); nullopt for anything else (e.g. "F8_E5M2",
// and the block types, which never come from a safetensors header).
std::optional<DType> ParseDType(std::string_view name);

}  // namespace gemmad::tensor
