// The batch-1 kernels' software prefetch under the active StreamParams (kernels/stream_params.h).
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

}  // namespace
}  // namespace gemmad::kernels
