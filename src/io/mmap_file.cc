// MappedFile implementation (POSIX).
#include "io/mmap_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace gemmad::io {
namespace {

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  std::string msg = what + " " + path + ": " + std::strerror(err);
  if (err == ENOENT) return NotFoundError(std::move(msg));
  if (err == EACCES || err == EPERM) return PermissionDeniedError(std::move(msg));
  return IoError(std::move(msg));
}

constexpr size_t kHugePage = size_t{2} << 20;

// mmap of the whole file; from 2 MiB up at a 2 MiB-aligned address (a PROT_NONE reservation one
// huge page larger, the file mapped over its aligned part, the slack returned). MAP_FAILED and
// errno on failure.
void* MapAligned(int fd, size_t size) {
  if (size < kHugePage) return ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  void* r = ::mmap(nullptr, size + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (r == MAP_FAILED) return ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  auto* base = static_cast<uint8_t*>(r);
  const auto addr = reinterpret_cast<uintptr_t>(base);
  auto* aligned = reinterpret_cast<uint8_t*>((addr + kHugePage - 1) / kHugePage * kHugePage);
  void* p = ::mmap(aligned, size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  if (p == MAP_FAILED) {
    const int err = errno;
    ::munmap(base, size + kHugePage);
    errno = err;
    return MAP_FAILED;
  }
  // The reservation's parts before and after the file mapping (sizes rounded to whole pages).
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  const size_t head = static_cast<size_t>(aligned - base);
  const size_t mapped_end = head + (size + page - 1) / page * page;
  if (head > 0) ::munmap(base, head);
  if (mapped_end < size + kHugePage) ::munmap(base + mapped_end, size + kHugePage - mapped_end);
  return p;
}

}  // namespace

Result<MappedFile> MappedFile::Open(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open", path, errno);
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus("cannot stat", path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    return InvalidArgumentError(path + ": not a regular file");
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    ::close(fd);
    return MappedFile(path, nullptr, 0);
  }
  void* p = MapAligned(fd, size);
  int err = errno;
  ::close(fd);  // the mapping keeps the file referenced
  if (p == MAP_FAILED) return ErrnoStatus("cannot mmap", path, err);
  return MappedFile(path, static_cast<const uint8_t*>(p), size);
}

MappedFile::MappedFile(MappedFile&& other) noexcept
    : path_(std::move(other.path_)), data_(std::exchange(other.data_, nullptr)),
      size_(std::exchange(other.size_, 0)) {}

MappedFile& MappedFile::operator=(MappedFile&& other) noexcept {
  if (this != &other) {
    Reset();
    path_ = std::move(other.path_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() { Reset(); }

void MappedFile::Reset() {
  if (data_ != nullptr) ::munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

void Advise(const void* data, size_t bytes, Advice advice) {
  if (data == nullptr || bytes == 0) return;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = reinterpret_cast<uintptr_t>(data) / page * page;
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes + page - 1) / page * page;
  int how = MADV_NORMAL;
  switch (advice) {
    case Advice::kHugePages:
#ifdef MADV_HUGEPAGE
      how = MADV_HUGEPAGE;
      break;
#else
      return;
#endif
    case Advice::kRandom: how = MADV_RANDOM; break;
    case Advice::kWillNeed: how = MADV_WILLNEED; break;
  }
  ::madvise(reinterpret_cast<void*>(begin), end - begin, how);
}

FileMappings FileMappings::Read() {
  FileMappings out;
  std::FILE* maps = std::fopen("/proc/self/maps", "r");
  if (maps == nullptr) return out;
  char line[512];
  while (std::fgets(line, sizeof(line), maps) != nullptr) {
    if (std::strchr(line, '\n') == nullptr) {  // a long path: skip the rest of its line
      for (int c = std::fgetc(maps); c != EOF && c != '\n'; c = std::fgetc(maps)) {
      }
    }
    unsigned long lo = 0, hi = 0, inode = 0;  // NOLINT(runtime/int): sscanf's %lx / %lu
    if (std::sscanf(line, "%lx-%lx %*s %*s %*s %lu", &lo, &hi, &inode) == 3 && inode != 0) {
      out.ranges.emplace_back(lo, hi);
    }
  }
  std::fclose(maps);
  return out;
}

bool FileMappings::Contains(uintptr_t begin, uintptr_t end) const {
  for (const auto& [lo, hi] : ranges) {
    if (lo <= begin && end <= hi) return true;
  }
  return false;
}

size_t ReleaseFilePages(const void* data, size_t bytes, const FileMappings& files) {
  if (data == nullptr || bytes == 0) return 0;
  const auto page = static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE));
  const auto begin = (reinterpret_cast<uintptr_t>(data) + page - 1) / page * page;
  const auto end = (reinterpret_cast<uintptr_t>(data) + bytes) / page * page;
  if (end <= begin || !files.Contains(begin, end)) return 0;
  return ::madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED) == 0 ? end - begin : 0;
}

}  // namespace gemmad::io
