// How the batch-1 (decode) Linear kernels stream weight rows from memory: the software prefetch
// distance per row stream and the cache level the prefetches fill. One process-wide value, chosen
// for the machine before the kernels run (kernels/stream_params_choice.h) and read by the kernels
// of every table. Plain data and one accessor only: ISA-specific files include this header, so it
// carries no inline code (an inline function compiled with AVX-512 flags could be the copy the
// linker keeps for every caller).
#pragma once

#include <cstdint>

namespace gemmad::kernels {

enum class PrefetchLevel : int32_t {
  kOff = 0,  // no software prefetch (the hardware prefetchers alone)
  kL1 = 1,   // prefetcht0
  kL2 = 2,   // prefetcht1
};

struct StreamParams {
  // Bytes ahead of the read point, per row stream, for rows shorter than long_row_bytes (the
  // 1-token tiles then run several rows side by side and the prefetch reaches into the next rows)
  // and for rows of long_row_bytes or more.
  int64_t ahead_short = 16384;
  // The same for the int8-weight tiles (Q8_R, GGUF Q8_0 and Q5_0), whose short rows measured best
  // at 8 KB on the Intel Xeon.
  int64_t ahead_short_int8 = 8192;
  int64_t ahead_long = 4096;
  int64_t long_row_bytes = 8192;
  // Row streams of the bf16 batch-1 tile for rows of long_row_bytes or more: 4 or 8
  // (kernels/cpu/stream_prefetch.h, RowStreams).
  int64_t long_row_streams = 4;
  // The level of the tiles that read adjacent rows side by side: the Q4_0 tiles, the GGUF block
  // kernels, the FP8 tiles, and the few-token / batched bf16 and int8 tiles (whose first token
  // group streams the weights from memory).
  PrefetchLevel level = PrefetchLevel::kL1;
  // The levels of the batch-1 bf16 (and f32) tiles and of the batch-1 int8 (Q8_R) tiles: those
  // convert a weight with few instructions, so with their rows read as four sequential streams the
  // hardware prefetchers alone can keep up where the 4-bit tiles still need the software prefetch.
  PrefetchLevel level_bf16 = PrefetchLevel::kL1;
  PrefetchLevel level_int8 = PrefetchLevel::kL1;
  // The level of the batch-1 compressed-tensors tiles (code tables kLut4R / kLut2R, int8 rows kI8BR,
  // FP8 rows kF8R), which read four sequential row streams too but do more work per byte.
  PrefetchLevel level_ct = PrefetchLevel::kL1;
  // The level of the batch-1 int4 tile over rows in groups of 16 (kQ4_0x16: one sequential stream
  // per group); its few-token tiles take `level`.
  PrefetchLevel level_q4x16 = PrefetchLevel::kL1;
  // Groups a lone token's kQ4_0x16 tile reads side by side: 1, 2 or 4 row streams in flight (each a
  // sequential walk through its share of the groups). Every row's steps are the same whatever the
  // choice: the outputs are the same bits.
  int64_t q4x16_lone_groups = 4;
};

// The active parameters (the defaults above until SetStreamParams). Kernels read them once per call.
const StreamParams& ActiveStreamParams();
// Replaces the active parameters. Call while no kernel runs (at start, or between benchmark cases).
void SetStreamParams(const StreamParams& params);

}  // namespace gemmad::kernels
