// KvCache allocation (calloc: lazily zeroed pages) and per-layer views.
#include "model/kv_cache.h"

#include <algorithm>
#include <cstdlib>
#include <string>

namespace gemmad::model {

void KvCache::FreeDeleter::operator()(void* p) const { std::free(p); }

Result<std::unique_ptr<KvCache>> KvCache::Create(const KvCacheSpec& spec, std::vector<int64_t> num_blocks) {
  if (num_blocks.size() != spec.groups.size()) {
    return InvalidArgumentError("KvCache: " + std::to_string(num_blocks.size()) + " block counts for " +
                                std::to_string(spec.groups.size()) + " KV groups");
  }
  std::unique_ptr<KvCache> cache(new KvCache());
  cache->spec_ = spec;
  cache->num_blocks_ = std::move(num_blocks);
  const size_t num_layers = spec.layer_kv_source.size();
  cache->k_.resize(num_layers);
  cache->v_.resize(num_layers);
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    const auto& grp = spec.groups[g];
    if (cache->num_blocks_[g] < 0) return InvalidArgumentError("KvCache: negative block count");
    const int64_t bytes = cache->num_blocks_[g] * grp.block_size * grp.bytes_per_token_per_layer() / 2;
    for (int64_t layer : grp.layers) {
      for (auto* arr : {&cache->k_, &cache->v_}) {
        void* p = std::calloc(static_cast<size_t>(std::max<int64_t>(bytes, 1)), 1);
        if (p == nullptr) {
          return ResourceExhaustedError("KvCache: cannot reserve " + std::to_string(bytes) + " bytes for layer " +
                                        std::to_string(layer));
        }
        (*arr)[layer].reset(static_cast<uint8_t*>(p));
        cache->allocated_bytes_ += bytes;
      }
    }
  }
  return cache;
}

tensor::TensorView KvCache::View(int64_t layer, int which) const {
  const int64_t src = spec_.layer_kv_source[layer];
  const auto& grp = spec_.groups[spec_.layer_group[layer]];
  tensor::TensorView v;
  v.data = (which == 0 ? k_ : v_)[src].get();
  GEMMAD_CHECK(v.data != nullptr, "KvCache: layer {} (source {}) has no storage", layer, src);
  v.dtype = grp.dtype;
  v.shape = tensor::Shape{num_blocks_[spec_.layer_group[layer]], grp.block_size, grp.num_kv_heads, grp.head_dim};
  return v;
}

}  // namespace gemmad::model
