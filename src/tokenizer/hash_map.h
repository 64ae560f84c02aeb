// Flat open-addressing hash tables for the tokenizer's hot lookups: string -> id (vocabulary,
// added tokens) and (id, id) -> (rank, id) (BPE merges). Invariant: capacity is a power of two
// at least twice the number of entries; inserting an existing key overwrites its value
// (the "last one wins" behaviour of the serde HashMaps HF builds from the same JSON).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace gemmad::tokenizer {

inline uint64_t HashBytes(std::string_view s) {
  // FNV-style multiply over 8-byte words, then a full avalanche: fast for short tokens.
  uint64_t h = 0xcbf29ce484222325ull ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  uint64_t tail = 0;
  std::memcpy(&tail, s.data() + i, s.size() - i);
  h ^= tail;
  // murmur3 fmix64: every input bit reaches the low bits used for the slot index.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  return h ^ (h >> 33);
}

inline uint64_t MixKey(uint64_t k) {
  k *= 0x9E3779B97F4A7C15ull;
  return k ^ (k >> 31);
}

// uint64 key -> uint64 value. The key ~0 is reserved.
class U64Map {
 public:
  void Reserve(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    keys_.assign(cap, kEmpty);
    values_.assign(cap, 0);
    mask_ = cap - 1;
    size_ = 0;
  }
  void Insert(uint64_t key, uint64_t value) {
    if (2 * (size_ + 1) > keys_.size()) Grow();
    size_t i = MixKey(key) & mask_;
    while (keys_[i] != kEmpty && keys_[i] != key) i = (i + 1) & mask_;
    if (keys_[i] == kEmpty) ++size_;
    keys_[i] = key;
    values_[i] = value;
  }
  // Returns a pointer to the value or nullptr.
  const uint64_t* Find(uint64_t key) const {
    if (keys_.empty()) return nullptr;
    size_t i = MixKey(key) & mask_;
    while (true) {
      uint64_t k = keys_[i];
      if (k == key) return &values_[i];
      if (k == kEmpty) return nullptr;
      i = (i + 1) & mask_;
    }
  }
  size_t size() const { return size_; }

 private:
  static constexpr uint64_t kEmpty = ~0ull;
  void Grow() {
    std::vector<uint64_t> keys = std::move(keys_), values = std::move(values_);
    Reserve(keys.empty() ? 8 : keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i] != kEmpty) Insert(keys[i], values[i]);
    }
  }
  std::vector<uint64_t> keys_, values_;
  size_t mask_ = 0, size_ = 0;
};

// string -> int32 id; owns copies of the strings. Slots hold the key's offset, length and hash
// inline, so a lookup touches one slot and, on a hash match, the key bytes.
class StringIdMap {
 public:
  void Reserve(size_t n, size_t bytes) {
    arena_.reserve(bytes);
    Rehash(n);
  }
  // Inserts or overwrites. Returns true when the key was new.
  bool Insert(std::string_view key, int32_t id) {
    if (2 * (size_ + 1) > slots_.size()) Rehash(size_ + 1);
    const uint64_t h = HashBytes(key);
    size_t i = h & mask_;
    while (slots_[i].length != kEmpty) {
      Slot& e = slots_[i];
      if (e.hash == static_cast<uint32_t>(h >> 32) && KeyOf(e) == key) {
        e.id = id;
        return false;
      }
      i = (i + 1) & mask_;
    }
    slots_[i] = {static_cast<uint32_t>(arena_.size()), static_cast<uint32_t>(key.size()),
                 static_cast<uint32_t>(h >> 32), id};
    arena_.append(key);
    ++size_;
    return true;
  }
  // Returns the id or -1.
  int32_t Find(std::string_view key) const {
    if (slots_.empty()) return -1;
    const uint64_t h = HashBytes(key);
    const uint32_t tag = static_cast<uint32_t>(h >> 32);
    size_t i = h & mask_;
    while (true) {
      const Slot& e = slots_[i];
      if (e.length == kEmpty) return -1;
      if (e.hash == tag && e.length == key.size() &&
          std::memcmp(arena_.data() + e.offset, key.data(), key.size()) == 0) {
        return e.id;
      }
      i = (i + 1) & mask_;
    }
  }
  size_t size() const { return size_; }
  // Visits every (key, id); the views stay valid until the next Insert.
  template <typename F>
  void ForEach(F&& f) const {
    for (const Slot& e : slots_) {
      if (e.length != kEmpty) f(KeyOf(e), e.id);
    }
  }

 private:
  static constexpr uint32_t kEmpty = ~0u;
  struct Slot {
    uint32_t offset = 0, length = kEmpty, hash = 0;
    int32_t id = -1;
  };
  std::string_view KeyOf(const Slot& e) const { return std::string_view(arena_).substr(e.offset, e.length); }
  void Rehash(size_t n) {
    size_t cap = 16;
    while (cap < 2 * n) cap <<= 1;
    if (cap <= slots_.size()) return;
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(cap, Slot());
    mask_ = cap - 1;
    for (const Slot& e : old) {
      if (e.length == kEmpty) continue;
      size_t i = HashBytes(KeyOf(e)) & mask_;
      while (slots_[i].length != kEmpty) i = (i + 1) & mask_;
      slots_[i] = e;
    }
  }
  std::vector<Slot> slots_;
  std::string arena_;
  size_t mask_ = 0, size_ = 0;
};

}  // namespace gemmad::tokenizer
