// KvCache allocation (through the backend's allocator) and per-layer views.
#include "model/kv_cache.h"

#include <algorithm>
#include <string>

namespace gemmad::model {

Result<std::unique_ptr<KvCache>> KvCache::Create(const KvCacheSpec& spec, std::vector<int64_t> num_blocks,
                                                 kernels::Allocator& allocator) {
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
        kernels::DeviceBuffer buffer(allocator, static_cast<size_t>(std::max<int64_t>(bytes, 1)));
        if (buffer.data() == nullptr) {
          return ResourceExhaustedError("KvCache: cannot reserve " + std::to_string(bytes) + " bytes for layer " +
                                        std::to_string(layer));
        }
        (*arr)[layer] = std::move(buffer);
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
  const kernels::DeviceBuffer& buffer = (which == 0 ? k_ : v_)[src];
  v.data = buffer.data();
  v.device = buffer.device();
  GEMMAD_CHECK(v.data != nullptr, "KvCache: layer {} (source {}) has no storage", layer, src);
  v.dtype = grp.dtype;
  v.shape = tensor::Shape{num_blocks_[spec_.layer_group[layer]], grp.block_size, grp.num_kv_heads, grp.head_dim};
  return v;
}

}  // namespace gemmad::model
