// Per-layer hyper-parameters from GGUF metadata (spec gguf.md §1.3): keys such as
// `{arch}.feed_forward_length` or `{arch}.attention.head_count_kv` hold either one scalar for every
// layer or an array with exactly one entry per layer; the sliding-window pattern is a BOOL array
// or an integer period. Errors name the key.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "io/gguf_metadata.h"

namespace gemmad::io {

// The most layers a per-layer key may describe (llama.cpp once overflowed fixed 512-entry arrays
// on a hostile block_count; spec §1.7). Real Gemma models have at most a few dozen.
inline constexpr int64_t kGgufMaxLayers = 4096;

// One value per layer: an integer scalar (any integer type that fits uint32) is broadcast, an
// array of integers must have exactly `n_layers` entries that fit uint32. A missing key gives
// `default_value` broadcast, or NotFound without one. n_layers must be 1..kGgufMaxLayers.
Result<std::vector<uint32_t>> GetPerLayerU32(const GgufMetadata& md, std::string_view key, int64_t n_layers,
                                             std::optional<uint32_t> default_value = std::nullopt);

// One flag per layer: a BOOL array of exactly `n_layers` entries, or an integer period P >= 1 where
// layer i is set iff i mod P < P - 1 (Gemma 3's sliding pattern: P = 6, every 6th layer global).
Result<std::vector<bool>> GetPerLayerBool(const GgufMetadata& md, std::string_view key, int64_t n_layers);

}  // namespace gemmad::io
