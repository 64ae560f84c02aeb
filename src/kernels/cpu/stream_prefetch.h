// The batch-1 kernels' software prefetch under the active StreamParams (kernels/stream_params.h),
// the row and token orders of the tiles (RowTiles, TokenGroups), and the bound on the few-token
// tiles' prepared token side.
// Included by ISA-specific translation units: everything here has internal linkage (an unnamed
// namespace), so each file keeps its own copy compiled with its own flags and the linker never
// picks one file's AVX-512 copy for another's callers. Intrinsics only, no library code.
#pragma once

#include <xmmintrin.h>

#include <cstdint>

#include "kernels/stream_params.h"

namespace gemmad::kernels {
namespace {

// A software prefetch of the line at p into the level the active StreamParams name.
inline void PrefetchAt(const void* p, PrefetchLevel level) {
  if (level == PrefetchLevel::kL1) {
    _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0);
  } else if (level == PrefetchLevel::kL2) {
    _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1);
  }
}

// Prefetch distance in bytes for one row stream of row_bytes: bf16, Q4_0 and the K types.
inline int64_t AheadBytes(const StreamParams& sp, int64_t row_bytes) {
  return row_bytes >= sp.long_row_bytes ? sp.ahead_long : sp.ahead_short;
}

// The same for the int8-weight tiles (Q8_R, GGUF Q8_0 and Q5_0).
inline int64_t AheadBytesInt8(const StreamParams& sp, int64_t row_bytes) {
  return row_bytes >= sp.long_row_bytes ? sp.ahead_long : sp.ahead_short_int8;
}

// Batch-1 tiles read four rows at once. Taking them as rows j, j + q, j + 2q, j + 3q of a block of
// `rows` (q = rows / 4, j < q; the last rows % 4 rows one by one) makes each of the four streams a
// sequential walk through a quarter of the block, instead of four streams a row apart that jump
// ahead by four rows at every tile: hardware prefetchers follow long sequential streams, and
// rows of 1-3 KB (q/k/v, gate/up at H = 1536) left them a few lines per stream and page. On AMD
// Zen 4 a bf16 1x4 loop over 3 KB rows read 15-16 GB/s with adjacent rows and 24-31 GB/s with
// quarters, one thread, no software prefetch (docs/cpu-performance.md §17). Which rows share a
// tile changes no output: every row is its own chain. Used by the bf16/f32 and Q8_R tiles and the
// avx512 table's code-table (kLut4R/kLut2R), int8-row (kI8BR) and FP8-row tiles (their rows of
// 0.4-1.5 KB at H = 1536 lost the most: the integer LUT4 gate_up tile went from 13.5 to 20-25 GB/s
// on Zen 4, docs/cpu-performance.md §23); the Q4_0 pair tiles and the GGUF Q8_0/Q5_0 tiles
// measured slower with it there (they do more work per byte and lean on the software prefetch)
// and keep adjacent rows.
inline int64_t QuarterStreams(int64_t rows) { return rows / 4; }

// The row tiles of [o_begin, o_end) for the tiles of R rows: a lone token takes rows o + k·q
// (k < R, q = rows / R: one row from each of R parts, QuarterStreams' order for R = 4), token
// groups take R adjacent rows; the rows left over run one at a time. full(o, step) runs the rows
// o + k·step (k < R), one(o) runs row o.
template <int R, class Full, class One>
inline void RowTiles(bool lone, int64_t o_begin, int64_t o_end, Full&& full, One&& one) {
  const int64_t q = lone ? (o_end - o_begin) / R : 0;
  for (int64_t j = 0; j < q; ++j) full(o_begin + j, q);
  int64_t o = o_begin + R * q;
  for (; !lone && o + R <= o_end; o += R) full(o, 1);
  for (; o < o_end; ++o) one(o);
}

// A call's tokens in groups of four (when there are several: a batch) and then one at a time:
// four(t0) runs tokens t0 .. t0 + 3, one(t0) token t0. Tiles that are batch-invariant give every
// token the same result in either.
template <class Four, class One>
inline void TokenGroups(int64_t n, Four&& four, One&& one) {
  int64_t t0 = 0;
  if (n > 1) {
    for (; t0 + 4 <= n; t0 += 4) four(t0);
  }
  for (; t0 < n; ++t0) one(t0);
}

// How many such streams the bf16 batch-1 tile reads for rows of row_bytes: 4, or the table's
// long_row_streams (8 on AMD Zen) for rows of long_row_bytes or more. With rows of 8 KB or more
// the activations (f32, twice the row's bytes) no longer stay in L1 beside the stream, and eight
// rows share each activation load that four rows shared (one thread on Zen 4, 24 KB rows: 25-26
// against 28-29 GB/s; 3 KB rows: 33 against 30, so short rows keep four).
inline int RowStreams(const StreamParams& sp, int64_t row_bytes) {
  return row_bytes >= sp.long_row_bytes && sp.long_row_streams == 8 ? 8 : 4;
}

// Most bytes of prepared token side one call of a few-token / batched kernel fills per thread.
constexpr int64_t kPreparedBytes = int64_t{8} << 20;

// A batch whose prepared token side (bytes_per_token a token) passes kPreparedBytes runs in passes
// of tokens (at least 8 a pass): call(t0, np) for each, then true; false when n fits one pass. The
// kernels' tiles are batch-invariant, so every (token, row) result is the same either way.
template <class Call>
inline bool RunInPreparedPasses(int64_t n, int64_t bytes_per_token, Call&& call) {
  const int64_t pass = bytes_per_token > 0 && kPreparedBytes / bytes_per_token > 8 ? kPreparedBytes / bytes_per_token : 8;
  if (n <= pass) return false;
  for (int64_t t0 = 0; t0 < n; t0 += pass) call(t0, n - t0 < pass ? n - t0 : pass);
  return true;
}

}  // namespace
}  // namespace gemmad::kernels
