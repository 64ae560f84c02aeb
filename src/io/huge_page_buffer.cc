// HugePageBuffer implementation (Linux mmap + madvise; /proc/self/smaps for the report).
#include "io/huge_page_buffer.h"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <utility>

namespace gemmad::io {

Result<HugePageBuffer> HugePageBuffer::Allocate(size_t bytes) {
  if (bytes == 0) return HugePageBuffer();
  // Map the size rounded up to whole huge pages plus one huge page of slack, then unmap the
  // slack on both sides so what stays starts on a 2 MiB boundary.
  const size_t rounded = (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (rounded < bytes || rounded + kHugePageBytes < rounded) {
    return ResourceExhaustedError("cannot allocate " + std::to_string(bytes) + " bytes: size overflows");
  }
  const size_t span = rounded + kHugePageBytes;
  void* p = ::mmap(nullptr, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    return ResourceExhaustedError("cannot allocate " + std::to_string(bytes) + " bytes of weight memory: " +
                                  std::strerror(err));
  }
  auto* base = static_cast<uint8_t*>(p);
  const auto addr = reinterpret_cast<uintptr_t>(base);
  auto* aligned = reinterpret_cast<uint8_t*>((addr + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes);
  const size_t head = static_cast<size_t>(aligned - base), tail = span - head - rounded;
  if (head > 0) ::munmap(base, head);
  if (tail > 0) ::munmap(aligned + rounded, tail);
  // Best effort: where THP is "never" (or the kernel lacks it) this fails and 4 KiB pages serve.
  ::madvise(aligned, rounded, MADV_HUGEPAGE);
  return HugePageBuffer(aligned, rounded, aligned, bytes);
}

HugePageBuffer::HugePageBuffer(HugePageBuffer&& other) noexcept
    : map_(std::exchange(other.map_, nullptr)), map_bytes_(std::exchange(other.map_bytes_, 0)),
      data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

HugePageBuffer& HugePageBuffer::operator=(HugePageBuffer&& other) noexcept {
  if (this != &other) {
    Reset();
    map_ = std::exchange(other.map_, nullptr);
    map_bytes_ = std::exchange(other.map_bytes_, 0);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

HugePageBuffer::~HugePageBuffer() { Reset(); }

void HugePageBuffer::Reset() {
  if (map_ != nullptr) ::munmap(map_, map_bytes_);
  map_ = nullptr;
  map_bytes_ = 0;
  data_ = nullptr;
  size_ = 0;
}

size_t HugePageBuffer::HugePageBytes() const {
  if (map_ == nullptr) return 0;
  std::ifstream smaps("/proc/self/smaps");
  const auto begin = reinterpret_cast<uintptr_t>(map_), end = begin + map_bytes_;
  size_t total = 0;
  bool inside = false;  // the current entry overlaps the region
  for (std::string line; std::getline(smaps, line);) {
    uintmax_t lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%" SCNxMAX "-%" SCNxMAX " ", &lo, &hi) == 2 && line.find('-') < line.find(' ')) {
      inside = lo < end && hi > begin;
      continue;
    }
    size_t kb = 0;
    if (inside && std::sscanf(line.c_str(), "AnonHugePages: %zu kB", &kb) == 1) total += kb * 1024;
  }
  // A neighbouring mapping with the same flags may have merged into the same entry.
  return std::min(total, map_bytes_);
}

}  // namespace gemmad::io
