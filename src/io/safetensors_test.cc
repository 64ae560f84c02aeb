// Tests of SafetensorsWriter + SafetensorsFile: round trip, layout of the reference library,
// zero-copy views, and errors that name the file.
#include "io/safetensors.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>

#include "base/files.h"
#include "io/safetensors_writer.h"

namespace gemmad::io {
namespace {

using ::testing::HasSubstr;

std::string Floats(std::vector<float> v) { return std::string(reinterpret_cast<const char*>(v.data()), v.size() * 4); }

SafetensorsWriter MakeWriter() {
  SafetensorsWriter w;
  w.SetMetadata("format", "pt");
  w.AddBytes("b.weight", "F32", {2, 3}, Floats({1, 2, 3, 4, 5, 6}));
  w.AddBytes("a.scalar", "BF16", {1}, std::string("\x80\x3f", 2));
  w.AddBytes("c.weight", "F32", {2}, Floats({7, 8}));
  return w;
}

TEST(SafetensorsWriterTest, HeaderMatchesReferenceLayout) {
  auto header = MakeWriter().HeaderJson();
  ASSERT_TRUE(header.ok());
  // Wider dtypes first, then by name; __metadata__ leads; compact JSON.
  EXPECT_EQ(*header,
            R"({"__metadata__":{"format":"pt"},"b.weight":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
            R"("c.weight":{"dtype":"F32","shape":[2],"data_offsets":[24,32]},)"
            R"("a.scalar":{"dtype":"BF16","shape":[1],"data_offsets":[32,34]}})");
  auto bytes = MakeWriter().WriteToString();
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ((bytes->size() - 34) % 8, 0u);  // padded header keeps the data aligned
}

TEST(SafetensorsWriterTest, RoundTripsThroughAFile) {
  std::string path = JoinPath(testing::TempDir(), "roundtrip.safetensors");
  uint64_t reported = 0;
  ASSERT_TRUE(MakeWriter().WriteFile(path, [&](uint64_t n) { reported += n; }).ok());
  EXPECT_EQ(reported, 34u);
  EXPECT_FALSE(FileExists(path + ".tmp"));
  auto f = SafetensorsFile::Open(path);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(f->tensors().size(), 3u);
  EXPECT_EQ(f->metadata().at("format"), "pt");
  auto v = f->View("b.weight");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->dtype, tensor::DType::kF32);
  EXPECT_EQ(v->shape, (tensor::Shape{2, 3}));
  EXPECT_EQ(v->As<float>()[5], 6.0f);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v->data) % 4, 0u);
  // Zero-copy: the view points into the mapping.
  EXPECT_GE(static_cast<const uint8_t*>(v->data), f->mapped().data());
  EXPECT_LT(static_cast<const uint8_t*>(v->data), f->mapped().data() + f->size_bytes());
  auto s = f->View("a.scalar");
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->As<uint16_t>()[0], 0x3f80);
  auto missing = f->View("nope");
  EXPECT_FALSE(missing.ok());
  EXPECT_THAT(missing.status().message(), HasSubstr(path));
  EXPECT_THAT(missing.status().message(), HasSubstr("'nope'"));
}

TEST(SafetensorsWriterTest, RejectsWrongFillSizeAndBadTensors) {
  SafetensorsWriter w;
  w.Add({"x", "F32", {2}, [](ByteSink& s) { return s.Write("abc"); }});
  auto r = w.WriteToString();
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("wrote 3 bytes, expected 8"));
  SafetensorsWriter dup;
  dup.AddBytes("x", "U8", {1}, "a");
  dup.AddBytes("x", "U8", {1}, "b");
  EXPECT_FALSE(dup.WriteToString().ok());
  SafetensorsWriter bad;
  bad.AddBytes("x", "Q4", {1}, "a");
  EXPECT_FALSE(bad.WriteToString().ok());
  std::string dir_path = JoinPath(testing::TempDir(), "no/such/dir/x.safetensors");
  Status s = MakeWriter().WriteFile(dir_path);
  EXPECT_THAT(s.message(), HasSubstr(dir_path));
}

TEST(SafetensorsFileTest, ErrorsNameTheFile) {
  std::string missing = JoinPath(testing::TempDir(), "missing.safetensors");
  auto r = SafetensorsFile::Open(missing);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(r.status().message(), HasSubstr(missing));

  std::string empty = JoinPath(testing::TempDir(), "empty.safetensors");
  ASSERT_TRUE(WriteStringToFile(empty, "").ok());
  r = SafetensorsFile::Open(empty);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(empty + ": file is 0 bytes"));

  auto bytes = MakeWriter().WriteToString();
  ASSERT_TRUE(bytes.ok());
  std::string truncated = JoinPath(testing::TempDir(), "truncated.safetensors");
  ASSERT_TRUE(WriteStringToFile(truncated, bytes->substr(0, bytes->size() - 5)).ok());
  r = SafetensorsFile::Open(truncated);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr(truncated + ": tensors need 34 bytes"));
}

TEST(SafetensorsFileTest, ViewRejectsForeignDtypesAndHighRanks) {
  SafetensorsWriter w;
  w.AddBytes("f8", "F8_E5M2", {2}, "ab");
  w.AddBytes("r5", "U8", {1, 1, 1, 1, 1}, "c");
  std::string path = JoinPath(testing::TempDir(), "foreign.safetensors");
  ASSERT_TRUE(w.WriteFile(path).ok());
  auto f = SafetensorsFile::Open(path);
  ASSERT_TRUE(f.ok());
  EXPECT_THAT(f->View("f8").status().message(), HasSubstr("dtype F8_E5M2"));
  EXPECT_THAT(f->View("r5").status().message(), HasSubstr("rank 5"));
}

}  // namespace
}  // namespace gemmad::io
