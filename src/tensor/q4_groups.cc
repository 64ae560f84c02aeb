// GroupQ4_0Rows: each 16-row group's blocks moved from BlockQ4_0x2 pairs into BlockQ4_0x16.
#include "tensor/q4_groups.h"

#include <cstring>

#include "base/check.h"
#include "tensor/quant_blocks.h"

namespace gemmad::tensor {

void GroupQ4_0Rows(const uint8_t* src, int64_t rows, int64_t in, uint8_t* dst) {
  GEMMAD_CHECK(rows % 16 == 0 && in % kQuantBlock == 0, "GroupQ4_0Rows: {} rows of {}", rows, in);
  const int64_t nb = in / kQuantBlock;
  for (int64_t g = 0; g < rows / 16; ++g) {
    for (int64_t b = 0; b < nb; ++b) {
      BlockQ4_0x16 out;
      for (int l = 0; l < 16; ++l) {
        BlockQ4_0x2 pair;
        std::memcpy(&pair, src + ((g * 8 + l / 2) * nb + b) * static_cast<int64_t>(sizeof(BlockQ4_0x2)), sizeof pair);
        out.d[l] = pair.d[l % 2];
        for (int j = 0; j < 4; ++j) std::memcpy(out.qs[j][l], pair.qs[l % 2] + 4 * j, 4);
      }
      std::memcpy(dst + (g * nb + b) * static_cast<int64_t>(sizeof(BlockQ4_0x16)), &out, sizeof out);
    }
  }
}

}  // namespace gemmad::tensor
