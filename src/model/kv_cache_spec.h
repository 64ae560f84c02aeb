// KvCacheSpec: the geometry of a model's paged KV cache, organised in groups. A group is a set of
// KV-owning layers with one geometry and one block table per sequence: for Gemma 4, one group
// for the sliding-window layers and one for the full-attention layers; KV-shared layers own
// nothing and read their donor's cache. Plain data; the engine sizes its block pools with it.
//
// Key index j of a sequence (its j-th token) lives in logical block j / block_size. A
// sliding-window group only ever reads the last `window` keys, so logical blocks below
// FirstLiveBlock() may be freed and their table entries set to -1.
#pragma once

#include <cstdint>
#include <vector>

#include "tensor/dtype.h"

namespace gemmad::model {

enum class KvGroupKind : uint8_t { kSliding, kFull };

struct KvGroupSpec {
  KvGroupKind kind = KvGroupKind::kFull;
  int64_t window = 0;        // W (keys j > i - W are visible to query i); 0 for full groups
  int64_t num_kv_heads = 0;
  int64_t head_dim = 0;
  int64_t block_size = 16;   // tokens per block
  tensor::DType dtype = tensor::DType::kBF16;
  std::vector<int64_t> layers;  // KV-owning layers of the group, ascending

  // K and V of one layer for one token.
  int64_t bytes_per_token_per_layer() const;
  // One block across every layer of the group (K and V): what the engine allocates per block id.
  int64_t bytes_per_block() const;
  // Logical blocks [0, EndBlock(T)) cover the first T key indices.
  int64_t EndBlock(int64_t num_tokens) const { return (num_tokens + block_size - 1) / block_size; }
  // The most blocks one sequence holds at any step while it grows to `num_tokens` tokens in
  // chunks of at most `max_chunk_tokens` (freeing sliding blocks as soon as FirstLiveBlock
  // allows): ceil(T / B) for a full group; for a sliding group the blocks touched by the W - 1
  // keys before a chunk plus the chunk, min(ceil(T / B), ceil((W + C - 2) / B) + 1).
  int64_t NumBlocksNeeded(int64_t num_tokens, int64_t max_chunk_tokens = 1) const;
  // The lowest logical block any later step can read once `num_computed_tokens` are cached
  // (blocks below it may be freed): 0 for full groups, (c - W + 1) / block_size for sliding.
  int64_t FirstLiveBlock(int64_t num_computed_tokens) const;
};

struct KvCacheSpec {
  std::vector<KvGroupSpec> groups;
  // Per model layer: the group whose block table it uses, and the layer whose K/V arrays it
  // reads (itself when it owns a cache, its donor when it is KV-shared).
  std::vector<int> layer_group;
  std::vector<int64_t> layer_kv_source;

  bool owns_kv(int64_t layer) const { return layer_kv_source[layer] == layer; }
  int num_groups() const { return static_cast<int>(groups.size()); }
  // KV bytes one sequence of `num_tokens` tokens needs with blocks of one token (the §11 formula:
  // sliding layers hold min(T, W) tokens, full layers T, shared layers none).
  int64_t BytesForTokens(int64_t num_tokens) const;
};

}  // namespace gemmad::model
