// Streamed matrices on 64-byte boundaries. A safetensors file aligns its tensors to 8 bytes only
// (a GGUF file to 32), so a dense matrix read straight from the mapped checkpoint usually starts
// mid cache line and every 64-byte load of the decode kernels spans two lines: on an AMD Zen 4 the
// bf16 LM head of E2B then streams at ~24 GB/s instead of ~29 (docs/cpu-performance.md §28). At
// load, each such matrix is copied into one owned arena, 2 MiB aligned and on transparent huge pages
// where the kernel offers them (io/huge_page_buffer.h), in the order a decode step reads them, and
// the mapped source pages leave the resident set (io::ReleaseFilePages) unless a view that was not
// moved still reads them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/result.h"
#include "kernels/context.h"
#include "model/gemma4/weights.h"

namespace gemmad::model::gemma4 {

struct AlignmentReport {
  int64_t num_copied = 0;           // streamed dense matrices moved to aligned memory
  uint64_t bytes = 0;               // their bytes
  uint64_t huge_page_bytes = 0;     // of their arena, backed by 2 MiB pages
  uint64_t released_bytes = 0;      // of their sources' mapped pages, released after the copy
  int64_t num_left = 0;             // unaligned ones left where they are (not enough memory)
  uint64_t bytes_left = 0;
  uint64_t available_bytes = 0;     // the memory reading that decided it (0 = none was taken)
  double seconds = 0.0;
  std::string ToString() const;     // one line for the log
};

// Moves every streamed matrix of a dense dtype (bf16, f16, f32) whose bytes do not start on a
// 64-byte boundary, rebasing every view of `w` that lies inside one (a tied embedding with its LM
// head) and the static activation scales keyed by its address. The copies are only made when their
// total, plus a 512 MiB margin, fits in `available_bytes` (MemAvailable; nullopt: no limit); else
// nothing moves and the report counts what stays. ResourceExhausted when the arena is refused.
Result<AlignmentReport> AlignStreamedMatrices(const kernels::ExecContext& exec, Weights* w,
                                              std::optional<uint64_t> available_bytes);

}  // namespace gemmad::model::gemma4
