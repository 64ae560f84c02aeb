// Tensor-parallel sharding of a Gemma 4 text decoder (docs/tensor-parallel.md; spec
// cuda-and-parallel.md §3.1-3.2): rank r of t holds a 1/t slice of every layer.
//   q_proj, gate/up, each expert's gate and up halves: output rows (a view of the stored rows);
//   k/v_proj: KV heads nkv/t when t divides nkv, else the one head its q heads use (replicated);
//   o_proj, down, each expert's down: input columns (an owned copy) — their partial sums are
//   all-reduced by the forward pass; the tied LM head: vocabulary rows, gathered to rank 0.
//   Embedding and PLE tables, norms, the router and the PLE projections stay whole (replicated):
//   gathers read a few rows per token, the rest are small.
// The shard's forward runs on a local Config: heads, KV heads and intermediate sizes divided.
#pragma once

#include <cstdint>

#include "base/result.h"
#include "model/gemma4/config.h"
#include "model/gemma4/weights.h"

namespace gemmad::model::gemma4 {

struct TpRank {
  int rank = 0;
  int size = 1;
};

// The config rank `tp.rank` runs: nH/t heads, local KV heads (see above), I/t, Ie/t.
// InvalidArgument when the model cannot be split t ways, naming the size that does not divide
// ("tensor parallel size 3 does not divide the 8 attention heads of this model").
Result<Config> ShardConfig(const Config& full, TpRank tp);

// The first global KV head rank r holds on a layer with `nkv` KV heads.
int64_t FirstKvHead(int64_t nkv, TpRank tp);

// The rows [begin, begin + count) of the tied LM head rank r holds: ceil(V / t) rows each, the
// last rank fewer (possibly none).
struct VocabSlice {
  int64_t begin = 0, count = 0, stride = 0;  // stride = ceil(V / t), every rank's padded count
};
VocabSlice LmHeadSlice(int64_t vocab_size, TpRank tp);

// Replaces every split tensor of `w` (bound for `full`) by rank tp's slice. Column slices are
// copied into w->owned_bytes; row slices are views. Fails (InvalidArgument naming the tensor)
// for a storage type whose columns cannot be cut where the split falls.
Status ShardWeights(const Config& full, TpRank tp, Weights* w);

}  // namespace gemmad::model::gemma4
