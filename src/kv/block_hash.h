// Prefix-cache block hashes: a 128-bit chained hash of a full block's tokens, its parent block's
// hash and extra keys (cache salt on the first block; multimodal content hashes later).
// Invariant: equal hashes <=> equal (parent, tokens, extra) up to 2^-128 collision odds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

namespace gemmad::kv {

struct BlockHash {
  uint64_t hi = 0;
  uint64_t lo = 0;
  friend bool operator==(const BlockHash&, const BlockHash&) = default;
};

struct BlockHashHasher {
  size_t operator()(const BlockHash& h) const noexcept { return static_cast<size_t>(h.lo ^ (h.hi * 0x9E3779B97F4A7C15ull)); }
};

// Hash of the block that follows `parent` (nullptr for the first block). `extra` is mixed in
// as bytes (callers pass the cache salt for block 0, empty otherwise).
BlockHash HashBlock(const BlockHash* parent, std::span<const int32_t> tokens, std::string_view extra);

}  // namespace gemmad::kv
