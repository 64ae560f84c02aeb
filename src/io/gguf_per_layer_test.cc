// Tests of the scalar-or-array per-layer GGUF keys (spec gguf.md §1.3).
#include "io/gguf_per_layer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "io/gguf_file.h"
#include "io/gguf_test_writer.h"

namespace gemmad::io {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::GgufTestWriter;
using testing::PutRaw;

GgufMetadata Metadata() {
  GgufTestWriter w;
  w.AddU32("ffn_scalar", 640);
  w.AddArray("ffn_i32", 5, 3, [] {
    std::string p;
    for (int32_t x : {1, 2, 3}) PutRaw(p, x);
    return p;
  }());
  w.AddArray("neg_i32", 5, 1, [] { std::string p; PutRaw<int32_t>(p, -1); return p; }());
  w.AddArray("swa", 7, 3, std::string("\x01\x01\x00", 3));
  w.AddU32("period", 3);
  w.AddU32("period0", 0);
  w.AddString("str", "x");
  auto h = ParseGguf(w.Build(), "m.gguf");
  EXPECT_TRUE(h.ok()) << h.status().ToString();
  return h.ok() ? h->metadata : GgufMetadata();
}

TEST(GgufPerLayerTest, ScalarBroadcastArrayAndDefault) {
  GgufMetadata md = Metadata();
  EXPECT_THAT(*GetPerLayerU32(md, "ffn_scalar", 2), ElementsAre(640u, 640u));
  EXPECT_THAT(*GetPerLayerU32(md, "ffn_i32", 3), ElementsAre(1u, 2u, 3u));
  EXPECT_THAT(*GetPerLayerU32(md, "absent", 2, 8u), ElementsAre(8u, 8u));
  EXPECT_EQ(GetPerLayerU32(md, "absent", 2).status().code(), StatusCode::kNotFound);
}

TEST(GgufPerLayerTest, U32Errors) {
  GgufMetadata md = Metadata();
  EXPECT_THAT(GetPerLayerU32(md, "ffn_i32", 4).status().message(),
              HasSubstr("'ffn_i32': array has 3 entries, expected one per layer (4)"));
  EXPECT_THAT(GetPerLayerU32(md, "neg_i32", 1).status().message(), HasSubstr("entry -1 out of range"));
  EXPECT_THAT(GetPerLayerU32(md, "swa", 3).status().message(), HasSubstr("expected ARRAY of integers, got BOOL"));
  EXPECT_THAT(GetPerLayerU32(md, "str", 3).status().message(), HasSubstr("expected an integer, got STRING"));
  EXPECT_THAT(GetPerLayerU32(md, "ffn_scalar", 100000).status().message(), HasSubstr("layer count 100000"));
  EXPECT_THAT(GetPerLayerU32(md, "ffn_scalar", 0).status().message(), HasSubstr("layer count 0"));
}

TEST(GgufPerLayerTest, BoolArrayAndPeriod) {
  GgufMetadata md = Metadata();
  EXPECT_THAT(*GetPerLayerBool(md, "swa", 3), ElementsAre(true, true, false));
  EXPECT_THAT(*GetPerLayerBool(md, "period", 7), ElementsAre(true, true, false, true, true, false, true));
  EXPECT_THAT(GetPerLayerBool(md, "swa", 4).status().message(), HasSubstr("array has 3 entries"));
  EXPECT_THAT(GetPerLayerBool(md, "ffn_i32", 3).status().message(),
              HasSubstr("expected ARRAY of BOOL, got ARRAY of INT32"));
  EXPECT_THAT(GetPerLayerBool(md, "period0", 3).status().message(), HasSubstr("period 0"));
  EXPECT_EQ(GetPerLayerBool(md, "absent", 3).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace gemmad::io
