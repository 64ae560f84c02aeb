// Load-time weight quantization (`--quantization int8|int4`): the matrices a decode step streams
// (q/k/v/o, gate/up/down, the PLE gate/projections, MoE expert stacks and the tied LM head) are
// replaced by owned quantized copies — int8 per output channel (Q8_R) or GGML Q4_0 int4 groups
// of 32 (tensor/quant_blocks.h). Matrices whose rows are not a multiple of 32 long, the router
// and every gathered table (the embedding rows, the PLE table) stay as stored: gathers touch a
// few rows per token, so quantizing them would cost load time and accuracy for no bandwidth.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "kernels/context.h"
#include "model/gemma4/weights.h"

namespace gemmad::model::gemma4 {

enum class WeightQuantization { kNone, kInt8, kInt4 };

// "int8" | "int4" | "none"; anything else is InvalidArgument naming the accepted values.
Result<WeightQuantization> ParseWeightQuantization(std::string_view name);
std::string_view WeightQuantizationName(WeightQuantization q);

struct QuantizationReport {
  int64_t num_quantized = 0, num_kept = 0;      // matrices converted / left as stored
  int64_t num_grouped = 0;                      // of the converted, int4 ones in rows of 16 (Q4_0x16)
  uint64_t bytes_before = 0, bytes_after = 0;   // of the converted matrices
  uint64_t huge_page_bytes = 0;                 // of their arena, backed by 2 MiB pages
  uint64_t released_bytes = 0;                  // of their sources' mapped pages, released after conversion
  double seconds = 0.0;
  std::string ToString() const;                 // one line for the log
};

// Quantizes `w` in place: views are re-pointed into one owned arena in w->owned_bytes, on
// transparent huge pages where the kernel offers them (io/huge_page_buffer.h), laid out in the
// order a decode step reads them. ResourceExhausted when the arena cannot be allocated.
Result<QuantizationReport> QuantizeModelWeights(WeightQuantization q, const kernels::ExecContext& exec,
                                                Weights* w);

// The int4 matrices a weight source made (kQ4_0: GGUF Q4_0, compressed-tensors int4), regrouped in
// place into rows of 16 (kQ4_0x16, the same blocks) where the backend reads them faster: rank-2
// streamed matrices only (a tied LM head with its embedding, which the gather reads in either
// layout), never the PLE table's bytes or bytes another view also reads. Returns how many were
// regrouped. The bytes are the source's own copies (kQ4_0 is never a file's layout: the GGUF and
// compressed-tensors sources write it at open), changed in place: a source with kQ4_0 matrices then
// serves this model only (every caller loads one text model per opened source; -tp ranks open
// their own).
int64_t GroupInt4Matrices(const kernels::ExecContext& exec, Weights* w);

}  // namespace gemmad::model::gemma4
