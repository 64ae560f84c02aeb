// The packed micro-kernel behind cpu::LinearGemm (internal to kernels/cpu): a 12-row × 32-column
// tile of C from packed panels. Defined in linear_gemm_avx512.cc (x86-64 builds only).
#pragma once

#include <cstdint>

namespace gemmad::kernels::cpu {

inline constexpr int64_t kGemmTileRows = 12, kGemmTileCols = 32;

// C[r, c] (+)= Σ_kk ap[kk·12 + r] · bp[kk·32 + c] for r < rows, c < cols (rows <= 12, cols <= 32);
// accumulate: add to C, else overwrite. ap: [kc][12] (rows past `rows` may hold anything finite);
// bp: [kc][32] (columns past `cols` likewise); C: row stride ldc. Nothing outside the tile is written.
void GemmTileAvx512(const float* ap, const float* bp, int64_t kc, float* c, int64_t ldc, int64_t rows, int64_t cols,
                    bool accumulate);

}  // namespace gemmad::kernels::cpu
