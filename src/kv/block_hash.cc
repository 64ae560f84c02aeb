// Two independent 64-bit lanes of a multiply-xorshift mixer over the block's words.
#include "kv/block_hash.h"

namespace gemmad::kv {
namespace {

inline uint64_t Mix(uint64_t x) {
  x ^= x >> 32;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 32;
  x *= 0xD6E8FEB86659FD93ull;
  x ^= x >> 32;
  return x;
}

struct Lanes {
  uint64_t a, b;
  void Add(uint64_t w) {
    a = Mix(a ^ (w + 0x9E3779B97F4A7C15ull)) + 0x632BE59BD9B4E019ull;
    b = Mix(b + (w ^ 0xC2B2AE3D27D4EB4Full)) ^ 0x165667B19E3779F9ull;
  }
};

}  // namespace

BlockHash HashBlock(const BlockHash* parent, std::span<const int32_t> tokens, std::string_view extra) {
  Lanes l{0x243F6A8885A308D3ull, 0x13198A2E03707344ull};
  if (parent != nullptr) {
    l.Add(parent->hi);
    l.Add(parent->lo);
  } else {
    l.Add(0xA4093822299F31D0ull);
  }
  l.Add(tokens.size());
  for (int32_t t : tokens) l.Add(static_cast<uint32_t>(t));
  l.Add(extra.size() | (1ull << 63));
  for (unsigned char c : extra) l.Add(c);
  return BlockHash{Mix(l.a ^ (l.b << 1)), Mix(l.b + l.a)};
}

}  // namespace gemmad::kv
