// Tests of the GGUF reader on hostile files (spec gguf.md §1.7): each rule gets a crafted file that
// breaks only it, and the error must name the file and the problem. Every truncation of a valid
// file is rejected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "io/gguf_file.h"
#include "io/gguf_test_writer.h"

namespace gemmad::io {
namespace {

using ::testing::HasSubstr;
using testing::GgufTestWriter;
using testing::PutStr;
using testing::PutU32;
using testing::PutU64;

std::string ErrorOf(const std::string& file) {
  auto r = ParseGguf(file, "bad.gguf");
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_THAT(r.status().message(), ::testing::StartsWith("bad.gguf: "));
  return r.status().message();
}

GgufTestWriter Valid() {
  GgufTestWriter w;
  w.AddString("general.architecture", "gemma4");
  w.AddU32("gemma4.block_count", 2);
  w.AddTensor({"a", {8, 2}, 0, std::string(64, 'a'), {}});
  w.AddTensor({"b", {32}, 2, std::string(18, 'b'), {}});
  return w;
}

GgufTestWriter WithTensor(GgufTestWriter::Tensor t) {
  GgufTestWriter w = Valid();
  w.AddTensor(std::move(t));
  return w;
}

TEST(GgufHardeningTest, ValidBaseParses) {
  auto r = ParseGguf(Valid().Build(), "ok.gguf");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
}

TEST(GgufHardeningTest, EveryTruncationIsRejected) {
  std::string file = Valid().Build();
  for (size_t n = 0; n < file.size(); ++n) {
    // The file ends with 14 bytes of padding after tensor 'b'; only cuts inside them still parse.
    auto r = ParseGguf(std::string_view(file).substr(0, n), "cut.gguf");
    EXPECT_EQ(r.ok(), n >= file.size() - 14) << "prefix " << n;
  }
}

TEST(GgufHardeningTest, HeaderErrors) {
  std::string file = Valid().Build();
  std::string bad = file;
  bad[0] = 'X';
  EXPECT_THAT(ErrorOf(bad), HasSubstr("bad magic"));
  GgufTestWriter w = Valid();
  w.version = 1;
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("version 1 is no longer supported"));
  w.version = 4;
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("unsupported GGUF version 4"));
  w.version = 0x03000000;  // a big-endian v3 file read little-endian
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("big-endian GGUF files are not supported"));
  EXPECT_THAT(ErrorOf("GGU"), HasSubstr("truncated reading magic"));
}

TEST(GgufHardeningTest, CountsBeyondTheFile) {
  GgufTestWriter w = Valid();
  w.n_tensors_override = 1ull << 60;
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("does not fit"));
  w = GgufTestWriter();  // no tensors: the loop over 2^64 records must stop at the end of the file
  w.AddU32("only", 1);
  w.n_kv_override = ~0ull;
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("file truncated reading metadata key"));
}

TEST(GgufHardeningTest, StringAndArrayLengths) {
  GgufTestWriter w;
  std::string p;
  PutU64(p, 1ull << 40);  // string length far beyond the file
  w.AddRaw("s", 8, p + "abc");
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("s length 1099511627776 exceeds 2^30"));
  w = GgufTestWriter();
  p.clear();
  PutU64(p, 100);
  w.AddRaw("s", 8, p + "abc");
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("runs past the end"));
  w = GgufTestWriter();
  w.AddArray("arr", 4, 1000, std::string(8, '\0'));
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("key 'arr': array of 1000 UINT32 does not fit"));
  w = GgufTestWriter();
  w.AddArray("strs", 8, 1ull << 29, std::string(64, '\0'));  // each string needs >= 8 bytes
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("array of 536870912 STRING does not fit"));
}

TEST(GgufHardeningTest, NestedArraysAreBounded) {
  std::string inner;
  for (int d = 0; d < 10; ++d) {
    PutU32(inner, 9);
    PutU64(inner, 1);
  }
  GgufTestWriter w;
  w.AddArray("deep", 9, 1, inner);
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("key 'deep': arrays nested too deeply"));
}

TEST(GgufHardeningTest, MetadataRecordErrors) {
  GgufTestWriter w = Valid();
  w.AddU32("gemma4.block_count", 3);
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("duplicate metadata key 'gemma4.block_count'"));
  w = Valid();
  w.AddU32("", 3);
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("empty metadata key"));
  w = Valid();
  w.AddRaw("k", 13, "");
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("key 'k': unknown value type 13"));
  w = Valid();
  w.AddArray("k", 77, 0, "");
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("key 'k': unknown value type 77"));
  w = Valid();
  w.AddRaw("flag", 7, std::string(1, '\x02'));
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("key 'flag': BOOL value 2 is not 0 or 1"));
}

TEST(GgufHardeningTest, AlignmentKey) {
  GgufTestWriter w = Valid();
  w.AddU32("general.alignment", 48);
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("general.alignment 48 is not a power of two"));
  w = Valid();
  w.AddU32("general.alignment", 0);
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("general.alignment 0 is not a power of two"));
  w = Valid();
  w.AddString("general.alignment", "32");
  EXPECT_THAT(ErrorOf(w.Build()), HasSubstr("general.alignment must be UINT32, got STRING"));
}

TEST(GgufHardeningTest, TensorInfoErrors) {
  EXPECT_THAT(ErrorOf(WithTensor({"a", {4}, 0, "", {}}).Build()), HasSubstr("duplicate tensor name 'a'"));
  EXPECT_THAT(ErrorOf(WithTensor({std::string(64, 'n'), {4}, 0, "", {}}).Build()),
              HasSubstr("longer than 63 bytes"));
  EXPECT_THAT(ErrorOf(WithTensor({"", {4}, 0, "", {}}).Build()), HasSubstr("tensor name '' is empty"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {}, 0, "", {}}).Build()), HasSubstr("tensor 'c': 0 dims"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {1, 1, 1, 1, 1}, 0, "", {}}).Build()), HasSubstr("tensor 'c': 5 dims"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {1ull << 63}, 0, "", {}}).Build()), HasSubstr("dimension out of range"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {1ull << 32, 1ull << 32}, 0, "", {}}).Build()),
              HasSubstr("tensor 'c': element count overflows"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {1ull << 31, 1ull << 31}, 28, "", {}}).Build()),
              HasSubstr("tensor 'c': byte size overflows"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {4}, 4, "", {}}).Build()),
              HasSubstr("tensor 'c': unknown or unsupported ggml type 4"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {4}, 999, "", {}}).Build()), HasSubstr("unknown or unsupported ggml type 999"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {100, 2}, 12, "", {}}).Build()),
              HasSubstr("tensor 'c': ne[0] = 100 is not a multiple of the Q4_K block size 256"));
}

TEST(GgufHardeningTest, TensorSpanErrors) {
  EXPECT_THAT(ErrorOf(WithTensor({"c", {4}, 0, "", 8}).Build()),
              HasSubstr("tensor 'c': offset 8 is not a multiple of the alignment 32"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {4}, 0, std::string(16, 'c'), 32}).Build()),
              HasSubstr("tensors 'a' and 'c' overlap"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {1024}, 0, "", {}}).Build()),
              HasSubstr("tensor 'c': bytes [96, +4096) lie outside the data section"));
  EXPECT_THAT(ErrorOf(WithTensor({"c", {4}, 0, "", 1ull << 62}).Build()), HasSubstr("lie outside the data section"));
  // Empty tensors may share an offset with anything.
  GgufTestWriter empty = Valid();
  empty.AddTensor({"e0", {0}, 0, "", 0});
  empty.AddTensor({"e1", {0, 4}, 0, "", 0});
  auto ok = ParseGguf(empty.Build(), "empty.gguf");
  EXPECT_TRUE(ok.ok()) << ok.status().ToString();
  // The same layout with a gap and out-of-order offsets is accepted.
  GgufTestWriter w = Valid();
  w.AddTensor({"c", {4}, 0, std::string(16, 'c'), 256});
  w.AddTensor({"d", {4}, 0, std::string(16, 'd'), 160});
  auto r = ParseGguf(w.Build(), "gap.gguf");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
}

}  // namespace
}  // namespace gemmad::io
