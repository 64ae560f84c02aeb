// cpu::LinearGemm and cpu::PackGemmWeights (ops.h): y = x · wᵀ as an outer-product GEMM over
// packed operands. Rows go in blocks of kBlockRows: the block's x is packed once into 12-row
// micro-panels ([tile][in][12]); tasks over (group of 4 column panels of wᵀ, group of tiles) run
// every tile over the group's panels per k-block of kKc, accumulating across k-blocks. A prepacked
// w ([panels][in][32], PackGemmWeights) is read in place; an [out, in] w is packed per task and
// k-block (read from 32 rows of w) — only where the table has the AVX-512 tile and there are enough
// rows and outputs, else it goes to Linear. Tables without it run a portable tile.
#include <algorithm>
#include <vector>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/cpu/linear_gemm_tile.h"
#include "kernels/gemm_op_contracts.h"
#include "kernels/registry.h"

namespace gemmad::kernels::cpu {
namespace {

constexpr int64_t kMR = kGemmTileRows, kNR = kGemmTileCols;
static_assert(kNR == internal::kGemmPanelCols);
constexpr int64_t kKc = 512;          // k per packed B panel (64 KB)
constexpr int64_t kGroupPanels = 4;   // panels per task (each tile's x stays in L1 across them)
constexpr int64_t kBlockRows = 768;   // rows packed at a time (64 tiles: at most 3 MB of x at in = 1024)
// An [out, in] w with fewer rows, or fewer outputs (x is then streamed once per few FMAs: the
// SSCP's second conv, 32 outputs over 1152 inputs, runs at half Linear's speed) goes to Linear.
constexpr int64_t kMinRows = 16, kMinOutputs = 64;

bool HasAvx512Tile() {
#if defined(__x86_64__) || defined(_M_X64)
  return CpuKernels().name == "avx512";
#else
  return false;
#endif
}

// The portable tile: GemmTileAvx512's contract in plain loops.
void GemmTileGeneric(const float* ap, const float* bp, int64_t kc, float* c, int64_t ldc, int64_t rows, int64_t cols,
                     bool accumulate) {
  float acc[kMR][kNR] = {};
  for (int64_t kk = 0; kk < kc; ++kk) {
    for (int64_t r = 0; r < kMR; ++r) {
      const float a = ap[kk * kMR + r];
      for (int64_t j = 0; j < kNR; ++j) acc[r][j] += a * bp[kk * kNR + j];
    }
  }
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < cols; ++j) c[r * ldc + j] = accumulate ? c[r * ldc + j] + acc[r][j] : acc[r][j];
  }
}

using TileFn = void (*)(const float*, const float*, int64_t, float*, int64_t, int64_t, int64_t, bool);

TileFn PickTile() {
#if defined(__x86_64__) || defined(_M_X64)
  if (HasAvx512Tile()) return &GemmTileAvx512;
#endif
  return &GemmTileGeneric;
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
        for (int64_t kk = 0; kk < in; ++kk) dst[kk * kMR + r] = row < rows ? src[kk] : 0.0f;
      }
    }
  });
}

// Panel p of wᵀ ([out, in] w), k in [k0, k0 + kc), into bp: [kc][32], zero past the last column.
void PackPanel(const float* w, int64_t in, int64_t out, int64_t p, int64_t k0, int64_t kc, float* bp) {
  const int64_t c0 = p * kNR, cols = std::min(kNR, out - c0);
  const float* src = w + c0 * in + k0;
  for (int64_t kk = 0; kk < kc; ++kk) {
    float* dst = bp + kk * kNR;
    for (int64_t c = 0; c < cols; ++c) dst[c] = src[c * in + kk];
    for (int64_t c = cols; c < kNR; ++c) dst[c] = 0.0f;
  }
}

}  // namespace

void LinearGemm(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y) {
  // Plain variables, not a structured binding: the lambdas below capture them (clang 14).
  const internal::LinearGemmShape shape = internal::CheckLinearGemm(x, w, y);
  const int64_t n = shape.n, in = shape.in, out = shape.out;
  const bool packed = shape.packed;
  if (!packed && (!HasAvx512Tile() || n < kMinRows || out < kMinOutputs || in == 0)) {
    cpu::Linear(ctx, x, w, y);
    return;
  }
  if (n == 0 || out == 0) return;
  const TileFn tile = PickTile();
  const float* xp = x.As<const float>();
  const float* wp = w.As<const float>();
  float* yp = y.As<float>();
  const int64_t panels = (out + kNR - 1) / kNR, pgroups = (panels + kGroupPanels - 1) / kGroupPanels;
  std::vector<float> ap(static_cast<size_t>(((std::min(n, kBlockRows) + kMR - 1) / kMR) * kMR * std::max<int64_t>(in, 1)));
  for (int64_t r0 = 0; r0 < n; r0 += kBlockRows) {
    const int64_t rows = std::min(kBlockRows, n - r0), tiles = (rows + kMR - 1) / kMR;
    PackRows(ctx, xp, in, r0, rows, ap.data());
    // Enough tasks for the pool when there are few panels: split the tiles into groups too.
    const int64_t tgroups = std::min(tiles, std::max<int64_t>(1, (8 + pgroups - 1) / pgroups));
    const int64_t per_tgroup = (tiles + tgroups - 1) / tgroups;
    ParallelFor(ctx, pgroups * tgroups, 1, [&](int64_t b, int64_t e) {
      std::vector<float> bp(packed ? 0 : static_cast<size_t>(kGroupPanels * kKc * kNR));
      for (int64_t task = b; task < e; ++task) {
        const int64_t pg = task / tgroups, tg = task % tgroups;
        const int64_t p0 = pg * kGroupPanels, p1 = std::min(panels, p0 + kGroupPanels);
        const int64_t t0 = tg * per_tgroup, t1 = std::min(tiles, t0 + per_tgroup);
        for (int64_t k0 = 0; k0 < in || (in == 0 && k0 == 0); k0 += kKc) {
          const int64_t kc = std::min(kKc, in - k0);
          if (!packed) {
            for (int64_t p = p0; p < p1; ++p) PackPanel(wp, in, out, p, k0, kc, bp.data() + (p - p0) * kKc * kNR);
          }
          for (int64_t t = t0; t < t1; ++t) {
            for (int64_t p = p0; p < p1; ++p) {
              const float* panel = packed ? wp + (p * in + k0) * kNR : bp.data() + (p - p0) * kKc * kNR;
              tile(ap.data() + (t * in + k0) * kMR, panel, kc, yp + (r0 + t * kMR) * out + p * kNR, out,
                   std::min(kMR, rows - t * kMR), std::min(kNR, out - p * kNR), k0 > 0);
            }
          }
        }
      }
    });
  }
}

void PackGemmWeights(const ExecContext& ctx, const TensorView& w, const TensorView& packed) {
  const internal::PackGemmShape shape = internal::CheckPackGemmWeights(w, packed);
  const int64_t out = shape.out, in = shape.in;
  const float* wp = w.As<const float>();
  float* pp = packed.As<float>();
  ParallelFor(ctx, packed.shape[0], 1, [&](int64_t b, int64_t e) {
    for (int64_t p = b; p < e; ++p) PackPanel(wp, in, out, p, 0, in, pp + p * in * kNR);
  });
}

}  // namespace gemmad::kernels::cpu
