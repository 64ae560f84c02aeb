// Tests of the safetensors header parser: validation rules, error messages, chunking invariance.
#include "io/safetensors_header.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "base/rng.h"

namespace gemmad::io {
namespace {

using ::testing::HasSubstr;

// A file: 8-byte length, the JSON, then `data_bytes` zero bytes.
std::string File(std::string_view json, size_t data_bytes) {
  std::string out(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((n >> (8 * i)) & 0xFF);
  out += json;
  out.append(data_bytes, '\0');
  return out;
}

Result<SafetensorsHeader> Parse(const std::string& file) { return ParseSafetensorsHeader(file, file.size(), "f.st"); }

std::string ErrorOf(const std::string& file) {
  auto r = Parse(file);
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

constexpr char kGood[] =
    R"({"__metadata__":{"format":"pt"},"b":{"dtype":"F32","shape":[2,2],"data_offsets":[4,20]},)"
    R"("a":{"dtype":"BF16","shape":[2],"data_offsets":[0,4]}})";

TEST(SafetensorsHeaderTest, ParsesGoodHeaderInFileOrder) {
  auto r = Parse(File(kGood, 20));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->tensors.size(), 2u);
  EXPECT_EQ(r->tensors[0].name, "a");
  EXPECT_EQ(r->tensors[0].dtype, tensor::DType::kBF16);
  EXPECT_EQ(r->tensors[1].name, "b");
  EXPECT_EQ(r->tensors[1].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(r->tensors[1].num_elements(), 4);
  EXPECT_EQ(r->metadata.at("format"), "pt");
  EXPECT_EQ(r->data_offset, 8 + sizeof(kGood) - 1);
  EXPECT_EQ(r->data_bytes, 20u);
}

TEST(SafetensorsHeaderTest, AcceptsPaddingEmptyTensorsScalarsAndForeignDtypes) {
  std::string json = R"({"s":{"dtype":"F8_E5M2","shape":[],"data_offsets":[0,1]},)"
                     R"("z":{"dtype":"F32","shape":[0,3],"data_offsets":[1,1]},)"
                     R"("q":{"dtype":"F4","shape":[4],"data_offsets":[1,3]}})";
  json += "     ";
  auto r = Parse(File(json, 3));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FALSE(r->tensors[0].dtype.has_value());
  EXPECT_EQ(r->tensors[0].element_bits, 8);
  EXPECT_TRUE(r->tensors[0].shape.empty());
  EXPECT_EQ(r->tensors[2].size_bytes(), 2u);
}

TEST(SafetensorsHeaderTest, RejectsBadLengths) {
  EXPECT_THAT(ErrorOf("abc"), HasSubstr("too short"));
  std::string f = File(kGood, 20);
  f[0] = static_cast<char>(0xFF);
  EXPECT_THAT(ErrorOf(f), HasSubstr("exceeds the file size"));
  f = File(kGood, 20);
  f[5] = 1;  // 2^40 bytes
  EXPECT_THAT(ErrorOf(f), HasSubstr("exceeds the limit"));
  EXPECT_THAT(ErrorOf(File("", 0)), HasSubstr("not JSON"));
}

TEST(SafetensorsHeaderTest, RejectsNonJsonAndNonObjects) {
  EXPECT_THAT(ErrorOf(File("[1,2]", 0)), HasSubstr("not JSON"));
  EXPECT_THAT(ErrorOf(File("{\"a\":", 0)), HasSubstr("not valid JSON"));
  EXPECT_THAT(ErrorOf(File("{} trailing", 0)), HasSubstr("not valid JSON"));
  EXPECT_THAT(ErrorOf(File("{\"a\":\"\xff\"}", 0)), HasSubstr("UTF-8"));
  std::string deep = "{\"a\":" + std::string(100, '[') + std::string(100, ']') + "}";
  EXPECT_THAT(ErrorOf(File(deep, 0)), HasSubstr("nested too deeply"));
}

TEST(SafetensorsHeaderTest, RejectsBadEntries) {
  EXPECT_THAT(ErrorOf(File(R"({"a":1})", 0)), HasSubstr("tensor 'a': entry is not a JSON object"));
  EXPECT_THAT(ErrorOf(File(R"({"a":{"shape":[1],"data_offsets":[0,4]}})", 4)), HasSubstr("'dtype'"));
  EXPECT_THAT(ErrorOf(File(R"({"a":{"dtype":"X9","shape":[1],"data_offsets":[0,4]}})", 4)),
              HasSubstr("unknown dtype 'X9'"));
  EXPECT_THAT(ErrorOf(File(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})", 4)),
              HasSubstr("non-negative"));
  EXPECT_THAT(ErrorOf(File(R"({"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", 4)),
              HasSubstr("non-negative"));
  EXPECT_THAT(ErrorOf(File(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0]}})", 4)),
              HasSubstr("data_offsets"));
  EXPECT_THAT(ErrorOf(File(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[4,0]}})", 4)),
              HasSubstr("reversed"));
  EXPECT_THAT(ErrorOf(File(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", 4)),
              HasSubstr("needs 8 bytes"));
  EXPECT_THAT(ErrorOf(File(R"({"a":{"dtype":"F4","shape":[3],"data_offsets":[0,2]}})", 2)),
              HasSubstr("whole number of bytes"));
  EXPECT_THAT(ErrorOf(File(R"({"a":{"dtype":"U8","shape":[4294967296,4294967296,16],"data_offsets":[0,0]}})", 0)),
              HasSubstr("too many elements"));
  EXPECT_THAT(ErrorOf(File(R"({"__metadata__":{"k":1}})", 0)), HasSubstr("not a string"));
  EXPECT_THAT(ErrorOf(File(R"({"__metadata__":[]})", 0)), HasSubstr("__metadata__ is not a JSON object"));
}

TEST(SafetensorsHeaderTest, RejectsDuplicateNames) {
  std::string json = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                     R"("a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})";
  EXPECT_THAT(ErrorOf(File(json, 2)), HasSubstr("'a' more than once"));
}

TEST(SafetensorsHeaderTest, RejectsGapsOverlapsAndSizeMismatch) {
  std::string gap = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},)"
                    R"("b":{"dtype":"U8","shape":[1],"data_offsets":[2,3]}})";
  EXPECT_THAT(ErrorOf(File(gap, 3)), HasSubstr("contiguous"));
  std::string overlap = R"({"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},)"
                        R"("b":{"dtype":"U8","shape":[2],"data_offsets":[1,3]}})";
  EXPECT_THAT(ErrorOf(File(overlap, 3)), HasSubstr("non-overlapping"));
  std::string late = R"({"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}})";
  EXPECT_THAT(ErrorOf(File(late, 2)), HasSubstr("expected 0"));
  EXPECT_THAT(ErrorOf(File(kGood, 19)), HasSubstr("truncated file"));
  EXPECT_THAT(ErrorOf(File(kGood, 21)), HasSubstr("1 unexpected bytes"));
}

TEST(SafetensorsHeaderTest, DecoderIsChunkingInvariant) {
  std::vector<std::string> inputs = {File(kGood, 20), File(kGood, 19), File("[1]", 0), File(kGood, 20).substr(0, 30)};
  Rng rng(7);
  for (const auto& in : inputs) {
    uint64_t file_size = in.size() == 30 ? File(kGood, 20).size() : in.size();
    auto one_shot = ParseSafetensorsHeader(in, file_size, "f.st");
    for (int trial = 0; trial < 50; ++trial) {
      SafetensorsHeaderDecoder dec(file_size, "f.st");
      size_t pos = 0;
      while (pos < in.size()) {
        size_t n = std::min<size_t>(in.size() - pos, 1 + rng.Below(11));
        bool more = dec.Feed(std::string_view(in).substr(pos, n));
        pos += n;
        if (!more) break;
      }
      auto chunked = dec.Finish();
      ASSERT_EQ(chunked.ok(), one_shot.ok());
      if (one_shot.ok()) {
        ASSERT_EQ(chunked->tensors.size(), one_shot->tensors.size());
        for (size_t i = 0; i < chunked->tensors.size(); ++i) {
          EXPECT_EQ(chunked->tensors[i].name, one_shot->tensors[i].name);
          EXPECT_EQ(chunked->tensors[i].data_begin, one_shot->tensors[i].data_begin);
        }
      } else {
        EXPECT_EQ(chunked.status(), one_shot.status());
      }
    }
  }
}

}  // namespace
}  // namespace gemmad::io
