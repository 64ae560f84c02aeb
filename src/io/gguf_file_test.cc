// Tests of the GGUF reader on well-formed files: every value type, getters, tensor infos,
// alignment, the data section, and opening a file from disk.
#include "io/gguf_file.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "base/test_temp_path.h"
#include "io/gguf_test_writer.h"

namespace gemmad::io {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::GgufTestWriter;
using testing::PutRaw;
using testing::PutStr;
using testing::PutU32;
using testing::PutU64;

template <typename T>
std::string Raw(T v) {
  std::string s;
  PutRaw(s, v);
  return s;
}

// One record of every scalar type, arrays of every element type, and two tensors.
GgufTestWriter AllTypes() {
  GgufTestWriter w;
  w.AddRaw("u8", 0, Raw<uint8_t>(200));
  w.AddRaw("i8", 1, Raw<int8_t>(-100));
  w.AddRaw("u16", 2, Raw<uint16_t>(60000));
  w.AddRaw("i16", 3, Raw<int16_t>(-30000));
  w.AddU32("u32", 4000000000u);
  w.AddRaw("i32", 5, Raw<int32_t>(-7));
  w.AddRaw("f32", 6, Raw<float>(0.5f));
  w.AddRaw("bool", 7, Raw<uint8_t>(1));
  w.AddString("general.architecture", "gemma4");
  w.AddRaw("u64", 10, Raw<uint64_t>(1ull << 40));
  w.AddRaw("i64", 11, Raw<int64_t>(-(1ll << 40)));
  w.AddRaw("f64", 12, Raw<double>(-2.25));
  w.AddArray("a_i32", 5, 3, Raw<int32_t>(1) + Raw<int32_t>(-2) + Raw<int32_t>(3));
  w.AddArray("a_bool", 7, 2, Raw<uint8_t>(0) + Raw<uint8_t>(1));
  w.AddArray("a_f32", 6, 1, Raw<float>(1.5f));
  std::string strs;
  PutStr(strs, "<pad>");
  PutStr(strs, "");
  PutStr(strs, "▁hi");
  w.AddArray("a_str", 8, 3, strs);
  std::string nested;  // [[7, 8], []] of UINT16
  PutU32(nested, 2);
  PutU64(nested, 2);
  nested += Raw<uint16_t>(7) + Raw<uint16_t>(8);
  PutU32(nested, 2);
  PutU64(nested, 0);
  w.AddArray("a_nested", 9, 2, nested);
  w.AddArray("a_empty", 10, 0, "");
  w.AddTensor({"token_embd.weight", {32, 2}, 8, std::string(68, 'q'), {}});  // Q8_0: 2 rows of 34 B
  w.AddTensor({"norm.weight", {4}, 0, std::string(16, 'n'), {}});
  return w;
}

Result<GgufHeader> Parse(const std::string& file) { return ParseGguf(file, "m.gguf"); }

TEST(GgufFileTest, ParsesEveryValueType) {
  auto h = Parse(AllTypes().Build());
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  const GgufMetadata& md = h->metadata;
  EXPECT_EQ(h->version, 3u);
  EXPECT_EQ(md.size(), 18u);
  EXPECT_EQ(md.entries()[0].key, "u8");  // file order kept
  EXPECT_EQ(*md.GetU32("u8"), 200u);
  EXPECT_EQ(*md.GetI64("i8"), -100);
  EXPECT_EQ(*md.GetU32("u16"), 60000u);
  EXPECT_EQ(*md.GetI64("i16"), -30000);
  EXPECT_EQ(*md.GetU32("u32"), 4000000000u);
  EXPECT_EQ(*md.GetI64("i32"), -7);
  EXPECT_EQ(*md.GetF64("f32"), 0.5);
  EXPECT_TRUE(*md.GetBool("bool"));
  EXPECT_EQ(*md.GetString("general.architecture"), "gemma4");
  EXPECT_EQ(*md.GetU64("u64"), 1ull << 40);
  EXPECT_EQ(*md.GetI64("i64"), -(1ll << 40));
  EXPECT_EQ(*md.GetF64("f64"), -2.25);
  EXPECT_THAT(*md.GetIntArray("a_i32"), ElementsAre(1, -2, 3));
  EXPECT_THAT((*md.GetArray("a_bool"))->u, ElementsAre(0u, 1u));
  EXPECT_THAT((*md.GetArray("a_f32"))->f, ElementsAre(1.5));
  EXPECT_THAT(*md.GetStringArray("a_str"), ElementsAre("<pad>", "", "▁hi"));
  const GgufArray* nested = *md.GetArray("a_nested");
  ASSERT_EQ(nested->elem_type, GgufValueType::kArray);
  ASSERT_EQ(nested->size(), 2u);
  EXPECT_THAT(nested->a[0].u, ElementsAre(7u, 8u));
  EXPECT_EQ(nested->a[1].size(), 0u);
  EXPECT_EQ((*md.GetArray("a_empty"))->size(), 0u);
  EXPECT_EQ(FormatGgufValue(*md.Find("a_nested")), "[ARRAY x 2: [UINT16 x 2: 7, 8], [UINT16 x 0]]");
  EXPECT_EQ(FormatGgufValue(*md.Find("a_i32"), 2), "[INT32 x 3: 1, -2, ...]");
}

TEST(GgufFileTest, GettersNameKeyAndTypes) {
  auto h = Parse(AllTypes().Build());
  ASSERT_TRUE(h.ok());
  const GgufMetadata& md = h->metadata;
  EXPECT_EQ(md.GetU32("general.architecture").status().message(),
            "GGUF key 'general.architecture': expected an integer, got STRING");
  EXPECT_EQ(md.GetString("u32").status().message(), "GGUF key 'u32': expected STRING, got UINT32");
  EXPECT_EQ(md.GetU32("absent").status().code(), StatusCode::kNotFound);
  EXPECT_THAT(md.GetU32("u64").status().message(), HasSubstr("out of range for UINT32"));
  EXPECT_THAT(md.GetU64("i8").status().message(), HasSubstr("out of range for UINT64"));
  EXPECT_THAT(md.GetBool("u8").status().message(), HasSubstr("expected BOOL, got UINT8"));
  EXPECT_THAT(md.GetStringArray("a_i32").status().message(), HasSubstr("expected ARRAY of STRING, got INT32"));
  EXPECT_THAT(md.GetIntArray("a_f32").status().message(), HasSubstr("got FLOAT32"));
  EXPECT_THAT(md.GetArray("f64").status().message(), HasSubstr("expected ARRAY, got FLOAT64"));
}

TEST(GgufFileTest, TensorInfosAndDataSection) {
  std::string file = AllTypes().Build();
  auto h = Parse(file);
  ASSERT_TRUE(h.ok());
  ASSERT_EQ(h->tensors.size(), 2u);
  const GgufTensorInfo& emb = h->tensors[0];
  EXPECT_EQ(emb.name, "token_embd.weight");
  EXPECT_THAT(emb.ne, ElementsAre(32, 2));  // ggml order: ne[0] = 32 innermost
  EXPECT_EQ(emb.type->name, "Q8_0");
  EXPECT_EQ(emb.size_bytes, 68u);
  EXPECT_EQ(emb.num_elements(), 64);
  EXPECT_EQ(h->tensors[1].offset, 96u);  // 68 padded to 32
  EXPECT_EQ(h->alignment, 32u);
  EXPECT_EQ(h->data_offset % 32, 0u);
  EXPECT_EQ(file.substr(h->data_offset + 96, 16), std::string(16, 'n'));
}

TEST(GgufFileTest, GeneralAlignmentPadsTheDataSection) {
  GgufTestWriter w;
  w.alignment = 256;
  w.AddU32("general.alignment", 256);
  w.AddTensor({"a", {3}, 0, std::string(12, 'a'), {}});
  w.AddTensor({"b", {1}, 0, std::string(4, 'b'), {}});
  auto h = Parse(w.Build());
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->alignment, 256u);
  EXPECT_EQ(h->data_offset, 256u);
  EXPECT_EQ(h->tensors[1].offset, 256u);
}

TEST(GgufFileTest, VocabOnlyFileHasNoPadding) {
  GgufTestWriter w;
  w.AddString("general.architecture", "gemma4");
  std::string file = w.Build();
  auto h = Parse(file);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->data_offset, file.size());
  EXPECT_TRUE(h->tensors.empty());
}

TEST(GgufFileTest, AcceptsVersion2) {
  GgufTestWriter w = AllTypes();
  w.version = 2;
  auto h = Parse(w.Build());
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(h->version, 2u);
}

TEST(GgufFileTest, OpensAMappedFile) {
  const std::string path = TestTempPath("model.gguf");
  {
    std::string file = AllTypes().Build();
    std::ofstream(path, std::ios::binary).write(file.data(), static_cast<std::streamsize>(file.size()));
  }
  auto f = GgufFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->path(), path);
  const GgufTensorInfo* norm = f->FindTensor("norm.weight");
  ASSERT_NE(norm, nullptr);
  EXPECT_EQ(f->TensorBytes(*norm), std::string(16, 'n'));
  EXPECT_EQ(f->FindTensor("missing"), nullptr);
  EXPECT_EQ(*f->metadata().GetString("general.architecture"), "gemma4");
  auto missing = GgufFile::Open(TestTempPath("absent.gguf"));
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
}

TEST(GgufTypeTableTest, TableSizes) {
  struct Want { uint32_t id; std::string_view name; uint32_t block, bytes; };
  for (const Want& w : {Want{0, "F32", 1, 4}, Want{1, "F16", 1, 2}, Want{30, "BF16", 1, 2}, Want{2, "Q4_0", 32, 18},
                        Want{3, "Q4_1", 32, 20}, Want{6, "Q5_0", 32, 22}, Want{7, "Q5_1", 32, 24},
                        Want{8, "Q8_0", 32, 34}, Want{9, "Q8_1", 32, 36}, Want{10, "Q2_K", 256, 84},
                        Want{11, "Q3_K", 256, 110}, Want{12, "Q4_K", 256, 144}, Want{13, "Q5_K", 256, 176},
                        Want{14, "Q6_K", 256, 210}, Want{15, "Q8_K", 256, 292}, Want{20, "IQ4_NL", 32, 18},
                        Want{23, "IQ4_XS", 256, 136}, Want{28, "F64", 1, 8}, Want{39, "MXFP4", 32, 17}}) {
    const GgmlTypeInfo* t = FindGgmlType(w.id);
    ASSERT_NE(t, nullptr) << w.name;
    EXPECT_EQ(t->name, w.name);
    EXPECT_EQ(t->block_size, w.block) << w.name;
    EXPECT_EQ(t->type_size, w.bytes) << w.name;
  }
  for (uint32_t retired : {4u, 5u, 31u, 32u, 33u, 36u, 37u, 38u, 1000u}) EXPECT_EQ(FindGgmlType(retired), nullptr);
  EXPECT_EQ(GgmlRowBytes(*FindGgmlType(12), 512), 288u);
  EXPECT_EQ(GgmlRowBytes(*FindGgmlType(12), 100), std::nullopt);
  EXPECT_EQ(GgmlRowBytes(*FindGgmlType(27), 1ull << 62), std::nullopt);  // I64: bytes overflow
}

// The valid seeds of fuzz/corpus/gguf parse, the big-endian one is refused.
TEST(GgufFileTest, FuzzCorpusSeeds) {
  const std::string dir = std::string(GEMMAD_SOURCE_DIR) + "/fuzz/corpus/gguf/";
  for (const char* name : {"all_value_types.gguf", "align64_v2.gguf", "vocab_only.gguf", "quant_types.gguf"}) {
    auto f = GgufFile::Open(dir + name);
    ASSERT_TRUE(f.ok()) << f.status().ToString();
  }
  auto q = GgufFile::Open(dir + "quant_types.gguf");
  ASSERT_EQ(q->tensors().size(), 5u);
  EXPECT_EQ(q->tensors()[2].type->name, "IQ4_XS");
  EXPECT_EQ(q->TensorBytes(q->tensors()[1]), std::string(210, 'y'));
  auto be = GgufFile::Open(dir + "big_endian.gguf");
  EXPECT_THAT(be.status().message(), HasSubstr("big-endian"));
}

}  // namespace
}  // namespace gemmad::io
