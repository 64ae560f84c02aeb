// DType sizes and names.
#include "tensor/dtype.h"

#include "tensor/ggml_types.h"
#include "tensor/lut_rows.h"
#include "tensor/quant_blocks.h"

namespace gemmad::tensor {

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kF64: case DType::kI64: return 8;
    case DType::kF32: case DType::kI32: return 4;
    case DType::kBF16: case DType::kF16: case DType::kI16: return 2;
    case DType::kI8: case DType::kU8: case DType::kBool: case DType::kF8E4M3: return 1;
    case DType::kQ8R: case DType::kQ4_0: case DType::kQ4_0x16: case DType::kF8R: case DType::kLut4R: case DType::kLut2R:
    case DType::kI8BR:
      return 0;
    case DType::kGgmlQ8_0: case DType::kGgmlQ5_0: case DType::kGgmlQ4_K: case DType::kGgmlQ6_K: return 0;
  }
  return 0;
}

bool IsBlockQuantized(DType t) {
  return t == DType::kQ8R || t == DType::kQ4_0 || t == DType::kQ4_0x16 || t == DType::kF8R || t == DType::kLut4R ||
         t == DType::kLut2R ||
         t == DType::kI8BR || GgmlTypeId(t).has_value();
}

std::optional<uint32_t> GgmlTypeId(DType t) {
  switch (t) {
    case DType::kGgmlQ8_0: return kGgmlQ8_0;
    case DType::kGgmlQ5_0: return kGgmlQ5_0;
    case DType::kGgmlQ4_K: return kGgmlQ4_K;
    case DType::kGgmlQ6_K: return kGgmlQ6_K;
    default: return std::nullopt;
  }
}

std::optional<DType> DTypeForGgmlType(uint32_t ggml_type) {
  for (DType t : {DType::kGgmlQ8_0, DType::kGgmlQ5_0, DType::kGgmlQ4_K, DType::kGgmlQ6_K}) {
    if (GgmlTypeId(t) == ggml_type) return t;
  }
  return std::nullopt;
}

int64_t BlockElements(DType t) {
  if (auto id = GgmlTypeId(t)) return FindGgmlType(*id)->block_size;
  if (t == DType::kLut4R || t == DType::kLut2R) return LutGroupElements(LutBits(t));
  return IsBlockQuantized(t) && t != DType::kF8R && t != DType::kI8BR ? kQuantBlock : 1;
}

size_t RowBytes(DType t, int64_t cols) {
  const auto c = static_cast<size_t>(cols);
  switch (t) {
    case DType::kQ8R: case DType::kF8R: case DType::kI8BR: return sizeof(float) + c;
    case DType::kQ4_0: case DType::kQ4_0x16: return c / kQuantBlock * sizeof(BlockQ4_0);
    case DType::kLut4R: case DType::kLut2R: return LutRowBytes(LutBits(t), cols);
    default:
      if (auto id = GgmlTypeId(t)) {
        const GgmlTypeInfo* g = FindGgmlType(*id);
        return c / g->block_size * g->type_size;
      }
      return c * DTypeSize(t);
  }
}

std::string_view DTypeName(DType t) {
  switch (t) {
    case DType::kF32: return "F32";
    case DType::kBF16: return "BF16";
    case DType::kF16: return "F16";
    case DType::kF64: return "F64";
    case DType::kI64: return "I64";
    case DType::kI32: return "I32";
    case DType::kI16: return "I16";
    case DType::kI8: return "I8";
    case DType::kU8: return "U8";
    case DType::kBool: return "BOOL";
    case DType::kQ8R: return "Q8_R";
    case DType::kQ4_0: return "Q4_0";
    case DType::kQ4_0x16: return "Q4_0x16";
    case DType::kGgmlQ8_0: return "Q8_0";
    case DType::kGgmlQ5_0: return "Q5_0";
    case DType::kGgmlQ4_K: return "Q4_K";
    case DType::kGgmlQ6_K: return "Q6_K";
    case DType::kF8E4M3: return "F8_E4M3";
    case DType::kF8R: return "F8_R";
    case DType::kLut4R: return "LUT4_R";
    case DType::kLut2R: return "LUT2_R";
    case DType::kI8BR: return "I8B_R";
  }
  return "?";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (DType t : {DType::kF32, DType::kBF16, DType::kF16, DType::kF64, DType::kI64, DType::kI32,
                  DType::kI16, DType::kI8, DType::kU8, DType::kBool, DType::kF8E4M3}) {
    if (DTypeName(t) == name) return t;
  }
  return std::nullopt;
}

}  // namespace gemmad::tensor
