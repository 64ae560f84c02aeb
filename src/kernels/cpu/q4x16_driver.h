// The kQ4_0x16 Linear's driver, shared by the ISA kernels (linear_q4x16_avx512vnni.cc,
// linear_q4x16_avx2.cc; tensor/quant_blocks.h BlockQ4_0x16): the token side's bound (a long batch
// runs in passes), the -8·Σx biases, the prefetch level, and the walk over the groups of 16 rows
// touching [o_begin, o_end) in blocks that stay in L2 while several token tiles read them (a single
// token reads every group once), each tile's rows inside the range copied out. The tiles are the
// kernel's. Included by ISA-specific translation units: everything here has internal linkage (an
// unnamed namespace), so each file keeps its own copy compiled with its own flags.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "kernels/cpu/stream_prefetch.h"
#include "kernels/registry.h"
#include "kernels/stream_params.h"

namespace gemmad::kernels {
namespace {

constexpr int64_t kBlock = 32;
constexpr int64_t kGroupRows = 16;
constexpr int64_t kGroupBlockBytes = 288;  // sizeof(tensor::BlockQ4_0x16)

// A tile of k tokens (its index + 1) × one group (`g`: its first block); out[t * 16 + l].
using Q4x16TileFn = void (*)(int64_t nb, const int8_t* q, int64_t in, const float* d, const int32_t* bias,
                             const uint8_t* g, int64_t ahead, PrefetchLevel level, float* out);
// The token side: -8·Σx per token and block, out[t * nb + b].
using Q4x16BiasFn = void (*)(const int8_t* q, int64_t n, int64_t in, int32_t* out);

// `self` is the kernel's entry point (for the passes of a long batch); tiles[k - 1] runs k tokens,
// k <= kMaxTileTokens.
template <int kMaxTileTokens>
void RunQ4x16(LinearQuantFn self, const Q4x16TileFn* tiles, Q4x16BiasFn prepare_bias, const int8_t* q,
              const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out, int64_t o_begin, int64_t o_end,
              float* y, int64_t ldy) {
  const int64_t nb = in / kBlock, group_bytes = nb * kGroupBlockBytes;
  // The token side (-8·Σx per token and block) is bounded (kPreparedBytes a call and thread): a
  // longer batch runs in passes of tokens, each a call of its own.
  const auto pass = [&](int64_t t0, int64_t np) {
    self(q + t0 * in, d + t0 * nb, np, in, w, out, o_begin, o_end, y + t0 * ldy, ldy);
  };
  if (RunInPreparedPasses(n, nb * static_cast<int64_t>(sizeof(int32_t)), pass)) return;
  thread_local std::vector<int32_t> bias_buf;
  if (bias_buf.size() < static_cast<size_t>(n * nb)) bias_buf.resize(static_cast<size_t>(n * nb));
  prepare_bias(q, n, in, bias_buf.data());
  // A lone token's group streams are long and sequential (level_q4x16: none on AMD Zen, where the
  // hardware prefetchers alone read faster); a few tokens take longer over each block, and the
  // software prefetch of the other multi-token tiles (`level`) keeps their stream ahead.
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, group_bytes);
  const PrefetchLevel level = n == 1 ? sp.level_q4x16 : sp.level;
  // Groups touching [o_begin, o_end); rows outside the range are computed but not written.
  const int64_t g_begin = o_begin / kGroupRows, g_end = (o_end + kGroupRows - 1) / kGroupRows;
  // Blocks of groups whose weights (up to 128 KiB) stay in L2 while several token tiles read them;
  // a single token reads every group once.
  const int64_t by_l2 = (int64_t{128} << 10) / group_bytes;
  const int64_t group_block = n <= kMaxTileTokens ? g_end - g_begin : (by_l2 < 1 ? 1 : by_l2);
  float r[kMaxTileTokens * kGroupRows];
  for (int64_t gb = g_begin; gb < g_end; gb += group_block) {
    const int64_t ge = gb + group_block < g_end ? gb + group_block : g_end;
    for (int64_t t = 0, k = 0; t < n; t += k) {
      k = n - t < kMaxTileTokens ? n - t : kMaxTileTokens;
      const Q4x16TileFn tile = tiles[k - 1];
      for (int64_t g = gb; g < ge; ++g) {
        tile(nb, q + t * in, in, d + t * nb, bias_buf.data() + t * nb, w + g * group_bytes, ahead, level, r);
        const int64_t lo = g * kGroupRows < o_begin ? o_begin : g * kGroupRows;
        const int64_t hi = (g + 1) * kGroupRows > o_end ? o_end : (g + 1) * kGroupRows;
        for (int64_t i = 0; i < k; ++i) {
          std::memcpy(y + (t + i) * ldy + lo, r + i * kGroupRows + (lo - g * kGroupRows),
                      static_cast<size_t>(hi - lo) * sizeof(float));
        }
      }
    }
  }
}

}  // namespace
}  // namespace gemmad::kernels
