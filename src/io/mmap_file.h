// MappedFile: a whole file mapped read-only into memory (POSIX mmap, MAP_PRIVATE, PROT_READ).
// Invariant: data() stays valid and unchanged for the object's lifetime; the bytes must never be
// written (the pages are read-only and writing them faults). Movable, not copyable.
// A file of at least 2 MiB is mapped at a 2 MiB-aligned address, so that where the page cache
// holds it in 2 MiB folios the kernel can map them with one TLB entry each (AdviseHugePages).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>
#include <string_view>

#include "base/result.h"

namespace gemmad::io {

class MappedFile {
 public:
  // Maps `path`. Errors name the path: NotFound for a missing file, IoError otherwise.
  // An empty file maps to data()==nullptr, size()==0.
  static Result<MappedFile> Open(const std::string& path);

  MappedFile(MappedFile&& other) noexcept;
  MappedFile& operator=(MappedFile&& other) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  const std::string& path() const { return path_; }
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  std::string_view bytes() const { return {reinterpret_cast<const char*>(data_), size_}; }

 private:
  MappedFile(std::string path, const uint8_t* data, size_t size)
      : path_(std::move(path)), data_(data), size_(size) {}
  void Reset();

  std::string path_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// How a range of a mapping will be read (madvise on its pages, the range rounded out to whole
// pages; best effort: a kernel without the advice ignores it).
enum class Advice {
  // MADV_HUGEPAGE: for a file mapping, page-cache misses are read in 2 MiB folios, mapped with one
  // TLB entry each, for data streamed over and over (the weights of a decode step). Pages already
  // cached keep their folios.
  kHugePages,
  // MADV_RANDOM: a miss reads only its own page, not the read-around window (read_ahead_kb, MiBs)
  // around it, for tables read a few rows at a time (the PLE table).
  kRandom,
  // MADV_WILLNEED: start reading the range's missing pages now, as one request, instead of one
  // fault at a time when it is touched.
  kWillNeed,
};
void Advise(const void* data, size_t bytes, Advice advice);

// The process's file mappings (the /proc/self/maps entries with an inode), read once: [begin, end).
struct FileMappings {
  std::vector<std::pair<uintptr_t, uintptr_t>> ranges;
  static FileMappings Read();
  bool Contains(uintptr_t begin, uintptr_t end) const;  // inside one file mapping
};

// Drops this process's mapping of the whole pages inside [data, data + bytes) where they lie in one
// of `files` (read after the range was mapped), with MADV_DONTNEED: they leave the process's
// resident set and stay in the page cache, and a later read faults them back in from the file. Only
// for bytes never written through a private mapping (a write's copy would be lost). Returns the
// bytes released (0 where the range is not file-backed or holds no whole page).
size_t ReleaseFilePages(const void* data, size_t bytes, const FileMappings& files);

}  // namespace gemmad::io
