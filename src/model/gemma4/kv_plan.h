// The Gemma 4 KV plan: which layers own a cache, which group they belong to (sliding / full),
// and which donor each KV-shared layer reads (text-model.md §6, §11).
#pragma once

#include <cstdint>

#include "model/gemma4/config.h"
#include "model/kv_cache_spec.h"

namespace gemmad::model::gemma4 {

// Group 0 = sliding layers (if any), then the full layers. `dtype` is the cache element type
// (bf16 halves the bytes; the fp32 path uses F32 to stay exact).
KvCacheSpec MakeKvCacheSpec(const Config& config, int64_t block_size, tensor::DType dtype);

}  // namespace gemmad::model::gemma4
