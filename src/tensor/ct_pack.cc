// compressed-tensors bit packing (see ct_pack.h).
#include "tensor/ct_pack.h"

#include <cstring>

namespace gemmad::tensor {

void CtPackRow(const int8_t* q, int64_t k, int bits, int32_t* words) {
  const int64_t n = CtPackedWords(k, bits);
  std::memset(words, 0, static_cast<size_t>(n) * sizeof(int32_t));
  for (int64_t i = 0; i < k; ++i) {
    const uint64_t u = static_cast<uint32_t>(q[i] + (1 << (bits - 1))) & ((1u << bits) - 1u);
    const int64_t bit = i * bits, w = bit / 32, off = bit % 32;
    const uint64_t shifted = u << off;
    words[w] = static_cast<int32_t>(static_cast<uint32_t>(words[w]) | static_cast<uint32_t>(shifted));
    if (off + bits > 32) words[w + 1] = static_cast<int32_t>(static_cast<uint32_t>(words[w + 1]) | static_cast<uint32_t>(shifted >> 32));
  }
}

}  // namespace gemmad::tensor
