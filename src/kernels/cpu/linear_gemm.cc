// cpu::LinearGemm (ops.h): y = x · wᵀ as an outer-product GEMM over packed operands, on tables
// with a packed tile (AVX-512); elsewhere, and for few rows or outputs, Linear. Rows go in blocks
// of kBlockRows: the block's x is packed once into 12-row micro-panels ([tile][in][12]); tasks over
// (group of 4 column panels of wᵀ, group of tiles) pack their panels per k-block of kKc ([kc][32]
// each, read from 32 rows of w) and run every tile over them, accumulating across k-blocks.
#include <algorithm>
#include <vector>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/linear_gemm_tile.h"
#include "kernels/registry.h"
#include "kernels/view_checks.h"

namespace gemmad::kernels::cpu {
namespace {

constexpr int64_t kMR = kGemmTileRows, kNR = kGemmTileCols;
constexpr int64_t kKc = 256;          // k per packed B panel (32 KB)
constexpr int64_t kGroupPanels = 4;   // panels packed together per task (128 KB of wᵀ)
constexpr int64_t kBlockRows = 768;   // rows packed at a time (64 tiles: at most 3 MB of x at in = 1024)
// Fewer rows, or fewer outputs (x is then streamed once per few FMAs: the SSCP's second conv,
// 32 outputs over 1152 inputs, runs at half Linear's speed): Linear's row kernels do better.
constexpr int64_t kMinRows = 16, kMinOutputs = 64;

bool HasPackedTile() {
#if defined(__x86_64__) || defined(_M_X64)
  return CpuKernels().name == "avx512";
#else
  return false;
#endif
}

void Tile(const float* ap, const float* bp, int64_t kc, float* c, int64_t ldc, int64_t rows, int64_t cols, bool acc) {
#if defined(__x86_64__) || defined(_M_X64)
  GemmTileAvx512(ap, bp, kc, c, ldc, rows, cols, acc);
#else
  (void)ap, (void)bp, (void)kc, (void)c, (void)ldc, (void)rows, (void)cols, (void)acc;
#endif
}

// Rows [r0, r0 + rows) of x into ap: [tiles][in][12], zero past the last row.
void PackRows(const ExecContext& ctx, const float* x, int64_t in, int64_t r0, int64_t rows, float* ap) {
  const int64_t tiles = (rows + kMR - 1) / kMR;
  ParallelFor(ctx, tiles, 4, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      float* dst = ap + t * in * kMR;
      for (int64_t r = 0; r < kMR; ++r) {
        const int64_t row = t * kMR + r;
        const float* src = x + (r0 + row) * in;
        if (row >= rows) {
          for (int64_t kk = 0; kk < in; ++kk) dst[kk * kMR + r] = 0.0f;
        } else {
          for (int64_t kk = 0; kk < in; ++kk) dst[kk * kMR + r] = src[kk];
        }
      }
    }
  });
}

// Columns [c0, c0 + cols) of wᵀ, k in [k0, k0 + kc), into bp: [kc][32], zero past the last column.
void PackPanel(const float* w, int64_t in, int64_t c0, int64_t cols, int64_t k0, int64_t kc, float* bp) {
  const float* src = w + c0 * in + k0;
  for (int64_t kk = 0; kk < kc; ++kk) {
    float* dst = bp + kk * kNR;
    for (int64_t c = 0; c < cols; ++c) dst[c] = src[c * in + kk];
    for (int64_t c = cols; c < kNR; ++c) dst[c] = 0.0f;
  }
}

}  // namespace

void LinearGemm(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y) {
  internal::CheckDType(x, tensor::DType::kF32, "LinearGemm x");
  internal::CheckDType(w, tensor::DType::kF32, "LinearGemm w");
  internal::CheckDType(y, tensor::DType::kF32, "LinearGemm y");
  internal::CheckRank(x, 2, "LinearGemm x");
  internal::CheckRank(w, 2, "LinearGemm w");
  internal::CheckRank(y, 2, "LinearGemm y");
  const int64_t n = x.shape[0], in = x.shape[1], out = w.shape[0];
  GEMMAD_CHECK(w.shape[1] == in && y.shape[0] == n && y.shape[1] == out && x.data != y.data,
               "LinearGemm: x {} w {} y {}", x.shape.ToString(), w.shape.ToString(), y.shape.ToString());
  if (!HasPackedTile() || n < kMinRows || out < kMinOutputs || in == 0) {
    cpu::Linear(ctx, x, w, y);
    return;
  }
  const float* xp = x.As<const float>();
  const float* wp = w.As<const float>();
  float* yp = y.As<float>();
  const int64_t panels = (out + kNR - 1) / kNR;
  std::vector<float> ap(static_cast<size_t>(((std::min(n, kBlockRows) + kMR - 1) / kMR) * kMR * in));
  for (int64_t r0 = 0; r0 < n; r0 += kBlockRows) {
    const int64_t rows = std::min(kBlockRows, n - r0), tiles = (rows + kMR - 1) / kMR;
    PackRows(ctx, xp, in, r0, rows, ap.data());
    // Tasks: groups of up to kGroupPanels panels (each tile's x stays in L1 across the group's
    // panels) × groups of tiles (enough tasks for the pool when there are few panels).
    const int64_t pgroups = (panels + kGroupPanels - 1) / kGroupPanels;
    const int64_t tgroups = std::min(tiles, std::max<int64_t>(1, (8 + pgroups - 1) / pgroups));
    const int64_t per_tgroup = (tiles + tgroups - 1) / tgroups;
    ParallelFor(ctx, pgroups * tgroups, 1, [&](int64_t b, int64_t e) {
      std::vector<float> bp(static_cast<size_t>(kGroupPanels * kKc * kNR));
      for (int64_t task = b; task < e; ++task) {
        const int64_t pg = task / tgroups, tg = task % tgroups;
        const int64_t p0 = pg * kGroupPanels, p1 = std::min(panels, p0 + kGroupPanels);
        const int64_t t0 = tg * per_tgroup, t1 = std::min(tiles, t0 + per_tgroup);
        for (int64_t k0 = 0; k0 < in; k0 += kKc) {
          const int64_t kc = std::min(kKc, in - k0);
          for (int64_t p = p0; p < p1; ++p) {
            PackPanel(wp, in, p * kNR, std::min(kNR, out - p * kNR), k0, kc, bp.data() + (p - p0) * kKc * kNR);
          }
          for (int64_t t = t0; t < t1; ++t) {
            for (int64_t p = p0; p < p1; ++p) {
              Tile(ap.data() + (t * in + k0) * kMR, bp.data() + (p - p0) * kKc * kNR, kc,
                   yp + (r0 + t * kMR) * out + p * kNR, out, std::min(kMR, rows - t * kMR),
                   std::min(kNR, out - p * kNR), k0 > 0);
            }
          }
        }
      }
    });
  }
}

}  // namespace gemmad::kernels::cpu
