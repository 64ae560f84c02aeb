// HugePageBuffer: one anonymous, zero-filled, writable region for large data that every decode
// step streams (the load-time quantized weights). It is aligned to 2 MiB and madvise(MADV_HUGEPAGE)d
// before its first touch, so where transparent huge pages are "madvise" or "always" the kernel
// backs it with 2 MiB pages: a 1.3 GB int4 E2B then needs ~650 TLB entries per token instead of
// ~320k, and the page walks stop stalling the weight stream. Where huge pages are off it is a
// plain anonymous mapping. Movable, not copyable; the region lives until the object dies.
#pragma once

#include <cstddef>
#include <cstdint>

#include "base/result.h"

namespace gemmad::io {

class HugePageBuffer {
 public:
  static constexpr size_t kHugePageBytes = size_t{2} << 20;

  // Maps `bytes` (0 gives an empty buffer, data() == nullptr). ResourceExhausted naming the size
  // when the kernel refuses the mapping.
  static Result<HugePageBuffer> Allocate(size_t bytes);

  HugePageBuffer() = default;
  HugePageBuffer(HugePageBuffer&& other) noexcept;
  HugePageBuffer& operator=(HugePageBuffer&& other) noexcept;
  HugePageBuffer(const HugePageBuffer&) = delete;
  HugePageBuffer& operator=(const HugePageBuffer&) = delete;
  ~HugePageBuffer();

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  // Bytes of the region now backed by huge pages (the AnonHugePages of its /proc/self/smaps
  // entries); 0 where that file cannot be read. For the load log and tests.
  size_t HugePageBytes() const;

 private:
  HugePageBuffer(uint8_t* map, size_t map_bytes, uint8_t* data, size_t size)
      : map_(map), map_bytes_(map_bytes), data_(data), size_(size) {}
  void Reset();

  uint8_t* map_ = nullptr;  // the whole mapping (data_ rounded down to the alignment slack)
  size_t map_bytes_ = 0;
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace gemmad::io
