// Row sizes of the ggml types (the table itself is constexpr in the header).
#include "tensor/ggml_types.h"

namespace gemmad::tensor {

std::optional<uint64_t> GgmlRowBytes(const GgmlTypeInfo& type, uint64_t elements) {
  if (elements % type.block_size != 0) return std::nullopt;
  uint64_t blocks = elements / type.block_size;
  if (blocks > UINT64_MAX / type.type_size) return std::nullopt;
  return blocks * type.type_size;
}

}  // namespace gemmad::tensor
