// KvCache: the storage behind a KvCacheSpec. Every KV-owning layer has a K and a V array
// [num_blocks(group), block_size, num_kv_heads, head_dim] in the group's dtype; block ids are
// handed out by the engine (kv/ knows only ids). Memory comes from the backend's allocator
// (kernels/allocator.h; the host allocator reserves it lazily zeroed, so untouched blocks cost no
// resident memory) and the views carry its device.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "base/result.h"
#include "kernels/allocator.h"
#include "model/kv_cache_spec.h"
#include "tensor/tensor_view.h"

namespace gemmad::model {

class KvCache {
 public:
  // num_blocks: one count per group of `spec`. Fails (ResourceExhausted) when the memory cannot
  // be reserved, (InvalidArgument) on a count that does not match the spec.
  static Result<std::unique_ptr<KvCache>> Create(const KvCacheSpec& spec, std::vector<int64_t> num_blocks,
                                                 kernels::Allocator& allocator = kernels::HostAllocator());

  const KvCacheSpec& spec() const { return spec_; }
  int64_t num_blocks(int group) const { return num_blocks_[group]; }
  // K / V arrays of `layer`'s source (the layer itself or its donor):
  // [num_blocks, block_size, num_kv_heads, head_dim].
  tensor::TensorView k(int64_t layer) const { return View(layer, 0); }
  tensor::TensorView v(int64_t layer) const { return View(layer, 1); }
  // Bytes reserved for K and V over all layers.
  int64_t allocated_bytes() const { return allocated_bytes_; }

 private:
  KvCache() = default;
  tensor::TensorView View(int64_t layer, int which) const;

  KvCacheSpec spec_;
  std::vector<int64_t> num_blocks_;
  std::vector<kernels::DeviceBuffer> k_, v_;  // per model layer (empty if shared)
  int64_t allocated_bytes_ = 0;
};

}  // namespace gemmad::model
