// Tests of HugePageBuffer: alignment, zero fill, writability, moves, and huge-page backing where
// the kernel offers transparent huge pages.
#include "io/huge_page_buffer.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>

namespace gemmad::io {
namespace {

// The selected mode of /sys/kernel/mm/transparent_hugepage/enabled ("always", "madvise",
// "never"), or "" where the file is missing.
std::string ThpMode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string s;
  std::getline(f, s);
  const size_t open = s.find('['), close = s.find(']');
  return open == std::string::npos || close == std::string::npos ? "" : s.substr(open + 1, close - open - 1);
}

TEST(HugePageBuffer, IsAlignedZeroFilledAndWritable) {
  auto buf = HugePageBuffer::Allocate(5'000'001);
  ASSERT_TRUE(buf.ok()) << buf.status().ToString();
  EXPECT_EQ(buf->size(), 5'000'001u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(buf->data()) % HugePageBuffer::kHugePageBytes, 0u);
  for (size_t i = 0; i < buf->size(); i += 4093) ASSERT_EQ(buf->data()[i], 0) << i;
  buf->data()[0] = 1;
  buf->data()[buf->size() - 1] = 2;
  EXPECT_EQ(buf->data()[0] + buf->data()[buf->size() - 1], 3);
}

TEST(HugePageBuffer, EmptyAndMoved) {
  auto empty = HugePageBuffer::Allocate(0);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->data(), nullptr);
  EXPECT_EQ(empty->size(), 0u);
  EXPECT_EQ(empty->HugePageBytes(), 0u);

  auto a = HugePageBuffer::Allocate(1000);
  ASSERT_TRUE(a.ok());
  uint8_t* p = a->data();
  p[999] = 7;
  HugePageBuffer b = std::move(*a);
  EXPECT_EQ(a->data(), nullptr);
  EXPECT_EQ(b.data(), p);
  EXPECT_EQ(b.data()[999], 7);
  HugePageBuffer c;
  c = std::move(b);
  EXPECT_EQ(c.data(), p);
  EXPECT_EQ(c.size(), 1000u);
}

TEST(HugePageBuffer, RefusedSizeIsAnError) {
  auto buf = HugePageBuffer::Allocate(~size_t{0} - 4096);
  ASSERT_FALSE(buf.ok());
  EXPECT_EQ(buf.status().code(), StatusCode::kResourceExhausted);
  auto exabyte = HugePageBuffer::Allocate(size_t{1} << 60);  // more than any machine maps
  ASSERT_FALSE(exabyte.ok());
  EXPECT_EQ(exabyte.status().code(), StatusCode::kResourceExhausted);
  EXPECT_NE(exabyte.status().message().find("1152921504606846976 bytes"), std::string::npos)
      << exabyte.status().message();
}

// Where THP is "madvise" or "always" a touched 8 MiB buffer is (at least partly) on huge pages;
// where it is "never" it must still work, on 4 KiB pages.
TEST(HugePageBuffer, TouchedPagesAreHugeWhereTheKernelOffersThem) {
  auto buf = HugePageBuffer::Allocate(8 << 20);
  ASSERT_TRUE(buf.ok());
  for (size_t i = 0; i < buf->size(); i += 4096) buf->data()[i] = 1;
  const std::string mode = ThpMode();
  if (mode != "madvise" && mode != "always") GTEST_SKIP() << "transparent huge pages are '" << mode << "'";
  EXPECT_GT(buf->HugePageBytes(), 0u);
  EXPECT_LE(buf->HugePageBytes(), buf->size());
}

}  // namespace
}  // namespace gemmad::io
