// DType sizes and names.
#include "tensor/dtype.h"

#include "tensor/quant_blocks.h"

namespace gemmad::tensor {

size_t DTypeSize(DType t) {
  switch (t) {
    case DType::kF64: case DType::kI64: return 8;
    case DType::kF32: case DType::kI32: return 4;
    case DType::kBF16: case DType::kF16: case DType::kI16: return 2;
    case DType::kI8: case DType::kU8: case DType::kBool: return 1;
    case DType::kQ8R: case DType::kQ4_0: return 0;
  }
  return 0;
}

bool IsBlockQuantized(DType t) { return t == DType::kQ8R || t == DType::kQ4_0; }

size_t RowBytes(DType t, int64_t cols) {
  const auto c = static_cast<size_t>(cols);
  switch (t) {
    case DType::kQ8R: return sizeof(float) + c;
    case DType::kQ4_0: return c / kQuantBlock * sizeof(BlockQ4_0);
    default: return c * DTypeSize(t);
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
  }
  return "?";
}

std::optional<DType> ParseDType(std::string_view name) {
  for (DType t : {DType::kF32, DType::kBF16, DType::kF16, DType::kF64, DType::kI64, DType::kI32,
                  DType::kI16, DType::kI8, DType::kU8, DType::kBool}) {
    if (DTypeName(t) == name) return t;
  }
  return std::nullopt;
}

}  // namespace gemmad::tensor
