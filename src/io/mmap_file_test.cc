// Tests of MappedFile (contents, errors, 2 MiB alignment of large files, moves) and of
// Advise (the advice lands on exactly the pages of the range).
#include "io/mmap_file.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "base/test_temp_path.h"

namespace gemmad::io {
namespace {

constexpr size_t kHuge = size_t{2} << 20;

// A file of `n` bytes, byte i = (i * 7 + i / 4096) & 0xff.
std::string WriteFile(const std::string& name, size_t n) {
  const std::string path = TestTempPath(name);
  std::ofstream f(path, std::ios::binary);
  for (size_t i = 0; i < n; ++i) f.put(static_cast<char>((i * 7 + i / 4096) & 0xff));
  return path;
}

bool ContentsMatch(const MappedFile& m) {
  for (size_t i = 0; i < m.size(); ++i) {
    if (m.data()[i] != static_cast<uint8_t>((i * 7 + i / 4096) & 0xff)) return false;
  }
  return true;
}

// The VmFlags line of the /proc/self/smaps entry holding `addr` ("" when none does).
std::string VmFlagsAt(const void* addr) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<uintptr_t>(addr);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < line.find(' ')) {
      inside = a >= lo && a < hi;
    } else if (inside && line.rfind("VmFlags:", 0) == 0) {
      return line;
    }
  }
  return "";
}

bool HasFlag(const std::string& vm_flags, const std::string& flag) {
  return (vm_flags + " ").find(" " + flag + " ") != std::string::npos;
}

TEST(MappedFile, SmallAndLargeFilesMapTheirBytes) {
  for (size_t n : {size_t{1}, size_t{4097}, kHuge - 1, kHuge, 3 * kHuge + 123}) {
    auto m = MappedFile::Open(WriteFile("map_" + std::to_string(n), n));
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_EQ(m->size(), n);
    EXPECT_TRUE(ContentsMatch(*m)) << n;
  }
}

TEST(MappedFile, LargeFilesAreMappedOnAHugePageBoundary) {
  for (size_t n : {kHuge, 5 * kHuge + 4095}) {
    auto m = MappedFile::Open(WriteFile("aligned_" + std::to_string(n), n));
    ASSERT_TRUE(m.ok());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(m->data()) % kHuge, 0u) << n;
    // The reservation's slack was returned: the pages right after the last one are not ours.
    const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    const uint8_t* after = m->data() + (n + page - 1) / page * page;
    unsigned char v = 0;
    EXPECT_NE(::mincore(const_cast<uint8_t*>(after), page, &v), 0) << "slack still mapped";
    EXPECT_TRUE(ContentsMatch(*m));
  }
}

TEST(MappedFile, ErrorsNameThePath) {
  const std::string missing = TestTempPath("no_such_file");
  auto m = MappedFile::Open(missing);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kNotFound);
  EXPECT_NE(m.status().message().find(missing), std::string::npos);

  const std::string dir = TestTempPath("a_directory");
  std::filesystem::create_directories(dir);
  auto d = MappedFile::Open(dir);
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(d.status().message().find(dir), std::string::npos);

  auto empty = MappedFile::Open(WriteFile("empty", 0));
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->data(), nullptr);
  EXPECT_EQ(empty->size(), 0u);
}

TEST(MappedFile, MovesKeepTheMapping) {
  auto m = MappedFile::Open(WriteFile("moved", 3 * kHuge));
  ASSERT_TRUE(m.ok());
  const uint8_t* p = m->data();
  MappedFile a = std::move(*m);
  EXPECT_EQ(m->data(), nullptr);
  EXPECT_EQ(a.data(), p);
  auto other = MappedFile::Open(WriteFile("moved_other", 10));
  ASSERT_TRUE(other.ok());
  *other = std::move(a);
  EXPECT_EQ(other->data(), p);
  EXPECT_TRUE(ContentsMatch(*other));
}

// The advice covers the pages the range touches and no others (the kernel splits the mapping
// there), and the bytes read the same afterwards.
TEST(Advise, HugePagesMarksExactlyThePagesOfTheRange) {
  if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
    GTEST_SKIP() << "this kernel has no transparent huge pages";
  }
  auto m = MappedFile::Open(WriteFile("advised", 8 * kHuge));
  ASSERT_TRUE(m.ok());
  const uint8_t* d = m->data();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  ASSERT_FALSE(HasFlag(VmFlagsAt(d + kHuge), "hg"));
  // A range starting and ending inside pages: [2 MiB + 100, 10 MiB - 100).
  Advise(d + kHuge + 100, 4 * kHuge - 200, Advice::kHugePages);
  EXPECT_TRUE(HasFlag(VmFlagsAt(d + kHuge), "hg"));                  // first page of the range
  EXPECT_TRUE(HasFlag(VmFlagsAt(d + 5 * kHuge - page), "hg"));       // last page of the range
  EXPECT_FALSE(HasFlag(VmFlagsAt(d + kHuge - page), "hg"));          // the page before
  EXPECT_FALSE(HasFlag(VmFlagsAt(d + 5 * kHuge), "hg"));             // the page after
  EXPECT_TRUE(ContentsMatch(*m));
  Advise(nullptr, 100, Advice::kHugePages);  // no-ops
  Advise(d, 0, Advice::kHugePages);
  EXPECT_FALSE(HasFlag(VmFlagsAt(d), "hg"));
}

// MADV_RANDOM shows as the "rr" flag on the range's pages only; WILLNEED leaves the bytes as they
// are (it only starts reads).
TEST(Advise, RandomMarksThePagesAndWillNeedKeepsTheBytes) {
  auto m = MappedFile::Open(WriteFile("random", 4 * kHuge));
  ASSERT_TRUE(m.ok());
  const uint8_t* d = m->data();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  Advise(d + 3 * page + 1, page, Advice::kRandom);  // touches pages 3 and 4
  EXPECT_FALSE(HasFlag(VmFlagsAt(d + 2 * page), "rr"));
  EXPECT_TRUE(HasFlag(VmFlagsAt(d + 3 * page), "rr"));
  EXPECT_TRUE(HasFlag(VmFlagsAt(d + 4 * page), "rr"));
  EXPECT_FALSE(HasFlag(VmFlagsAt(d + 5 * page), "rr"));
  Advise(d + 100, 3 * kHuge, Advice::kWillNeed);
  EXPECT_TRUE(ContentsMatch(*m));
}

// Resident kB of the /proc/self/smaps entry holding `addr`.
long RssKbAt(const void* addr) {
  std::ifstream smaps("/proc/self/smaps");
  const auto a = reinterpret_cast<uintptr_t>(addr);
  bool inside = false;
  for (std::string line; std::getline(smaps, line);) {
    unsigned long lo = 0, hi = 0;
    long kb = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2 && line.find('-') < line.find(' ')) {
      inside = a >= lo && a < hi;
    } else if (inside && std::sscanf(line.c_str(), "Rss: %ld kB", &kb) == 1) {
      return kb;
    }
  }
  return -1;
}

// ReleaseFilePages drops the whole pages inside the range from the resident set, and the bytes read
// back the same from the file; anonymous memory is left alone.
TEST(ReleaseFilePages, DropsTheRangesWholePagesOfAFileMapping) {
  auto m = MappedFile::Open(WriteFile("released", 4 * kHuge));
  ASSERT_TRUE(m.ok());
  const uint8_t* d = m->data();
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  ASSERT_TRUE(ContentsMatch(*m));  // every page resident
  const FileMappings files = FileMappings::Read();
  const long before = RssKbAt(d);
  ASSERT_GE(before, static_cast<long>(4 * kHuge / 1024));
  // [page + 1, page + 3 MiB + 1): its whole pages are [2 pages, page + 3 MiB).
  EXPECT_EQ(ReleaseFilePages(d + page + 1, 3 * (size_t{1} << 20), files), 3 * (size_t{1} << 20) - page);
  EXPECT_LE(RssKbAt(d), before - static_cast<long>((3 * (size_t{1} << 20) - page) / 1024));
  EXPECT_TRUE(ContentsMatch(*m));
  EXPECT_EQ(ReleaseFilePages(d + 1, page - 2, files), 0u);  // no whole page
  EXPECT_EQ(ReleaseFilePages(nullptr, page, files), 0u);
  std::vector<uint8_t> anon(8 * page, 7);
  EXPECT_EQ(ReleaseFilePages(anon.data(), anon.size(), FileMappings::Read()), 0u);
  for (uint8_t b : anon) ASSERT_EQ(b, 7);
}

}  // namespace
}  // namespace gemmad::io
