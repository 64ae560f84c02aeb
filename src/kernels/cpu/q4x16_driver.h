// The kQ4_0x16 Linear's driver, shared by the ISA kernels (linear_q4x16_avx512vnni.cc,
// linear_q4x16_avx2.cc; tensor/quant_blocks.h BlockQ4_0x16): the token side's bound (a long batch
// runs in passes), the -8·Σx biases, the prefetch level, and the walk over the groups of 16 rows
// touching [o_begin, o_end) in blocks that stay in L2 while several token tiles read them (a single
// token reads every group once, several side by side), each tile's rows inside the range copied
// out. The tiles are the kernel's. Included by ISA-specific translation units: everything here has
// internal linkage (an unnamed namespace), so each file keeps its own copy compiled with its own flags.
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
// A lone token × G groups side by side (the first group's first block at `g`, the others `stride`
// bytes apart); x: the token's activations, d and bias its per-block scales and -8·Σx; out[i * 16 + l].
using Q4x16LoneFn = void (*)(int64_t nb, const int8_t* x, const float* d, const int32_t* bias, const uint8_t* g,
                             int64_t stride, int64_t ahead, PrefetchLevel level, float* out);
// The token side: -8·Σx per token and block, out[t * nb + b].
using Q4x16BiasFn = void (*)(const int8_t* q, int64_t n, int64_t in, int32_t* out);

// The five lines (288 bytes) of the block `ahead` bytes past `blk`, at `level`.
inline void PrefetchBlock(const uint8_t* blk, int64_t ahead, PrefetchLevel level) {
  const char* at = reinterpret_cast<const char*>(blk) + ahead;
  for (int l = 0; l < 5; ++l) PrefetchAt(at + 64 * l, level);
}

// `self` is the kernel's entry point (for the passes of a long batch); tiles[k - 1] runs k tokens,
// k <= kMaxTileTokens; lone[0] and lone[1] run a lone token over 2 and 4 groups (StreamParams
// q4x16_lone_groups).
template <int kMaxTileTokens>
void RunQ4x16(LinearQuantFn self, const Q4x16TileFn* tiles, const Q4x16LoneFn* lone, Q4x16BiasFn prepare_bias,
              const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out, int64_t o_begin,
              int64_t o_end, float* y, int64_t ldy) {
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
  float r[(kMaxTileTokens > 4 ? kMaxTileTokens : 4) * kGroupRows];
  // Group g's rows inside [o_begin, o_end) for k tokens (token i's 16 at r + i * stride) into y.
  const auto emit = [&](int64_t g, int64_t t, int64_t k, const float* rg, int64_t stride) {
    const int64_t lo = g * kGroupRows < o_begin ? o_begin : g * kGroupRows;
    const int64_t hi = (g + 1) * kGroupRows > o_end ? o_end : (g + 1) * kGroupRows;
    for (int64_t i = 0; i < k; ++i) {
      std::memcpy(y + (t + i) * ldy + lo, rg + i * stride + (lo - g * kGroupRows),
                  static_cast<size_t>(hi - lo) * sizeof(float));
    }
  };
  // A lone token reads `side` groups side by side: groups j, j + s, j + 2s, ... of the range (s =
  // its groups / side), each of those streams a sequential walk through its share of the matrix;
  // the groups past side · s one at a time.
  const int64_t side = n == 1 && (sp.q4x16_lone_groups == 2 || sp.q4x16_lone_groups == 4) ? sp.q4x16_lone_groups : 1;
  for (int64_t gb = g_begin; gb < g_end; gb += group_block) {
    const int64_t ge = gb + group_block < g_end ? gb + group_block : g_end;
    int64_t g_single = gb;  // the first group the tiles below read one at a time
    if (side > 1) {
      const int64_t share = (ge - gb) / side;
      const Q4x16LoneFn tile = lone[side == 2 ? 0 : 1];
      for (int64_t j = 0; j < share; ++j) {
        tile(nb, q, d, bias_buf.data(), w + (gb + j) * group_bytes, share * group_bytes, ahead, level, r);
        for (int64_t i = 0; i < side; ++i) emit(gb + j + i * share, 0, 1, r + i * kGroupRows, kGroupRows);
      }
      g_single = gb + side * share;
    }
    for (int64_t t = 0, k = 0; t < n; t += k) {
      k = n - t < kMaxTileTokens ? n - t : kMaxTileTokens;
      const Q4x16TileFn tile = tiles[k - 1];
      for (int64_t g = g_single; g < ge; ++g) {
        tile(nb, q + t * in, in, d + t * nb, bias_buf.data() + t * nb, w + g * group_bytes, ahead, level, r);
        emit(g, t, k, r, kGroupRows);
      }
    }
  }
}

}  // namespace
}  // namespace gemmad::kernels
