// Tests of the GGUF JSON summary printed by `gemmad inspect FILE.gguf`.
#include "io/gguf_summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "io/gguf_test_writer.h"

namespace gemmad::io {
namespace {

using nlohmann::json;
using testing::GgufTestWriter;
using testing::PutRaw;
using testing::PutStr;

TEST(GgufSummaryTest, MetadataAndTensorTable) {
  GgufTestWriter w;
  w.AddString("general.architecture", "gemma4");
  w.AddU32("gemma4.block_count", 35);
  std::string bools;
  for (int k = 0; k < 5; ++k) PutRaw<uint8_t>(bools, k % 2);
  w.AddArray("gemma4.attention.sliding_window_pattern", 7, 5, bools);
  std::string toks;
  PutStr(toks, "ok");
  PutStr(toks, std::string("\xff\xfe", 2));  // invalid UTF-8 must not throw
  w.AddArray("tokenizer.ggml.tokens", 8, 2, toks);
  w.AddTensor({"blk.0.attn_q.weight", {256, 2}, 12, std::string(288, 'q'), {}});
  w.AddTensor({"output_norm.weight", {8}, 0, std::string(32, 'n'), {}});
  auto h = ParseGguf(w.Build(), "m.gguf");
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  json j = json::parse(GgufSummaryJson(*h, "m.gguf", 3));
  EXPECT_EQ(j["file"], "m.gguf");
  EXPECT_EQ(j["version"], 3);
  EXPECT_EQ(j["alignment"], 32);
  EXPECT_EQ(j["metadata"]["general.architecture"], json({{"type", "STRING"}, {"value", "gemma4"}}));
  EXPECT_EQ(j["metadata"]["gemma4.block_count"], json({{"type", "UINT32"}, {"value", 35}}));
  const json& pat = j["metadata"]["gemma4.attention.sliding_window_pattern"];
  EXPECT_EQ(pat["elem_type"], "BOOL");
  EXPECT_EQ(pat["count"], 5);
  EXPECT_EQ(pat["head"], json({false, true, false}));
  EXPECT_EQ(j["metadata"]["tokenizer.ggml.tokens"]["head"][0], "ok");
  ASSERT_EQ(j["tensors"].size(), 2u);
  EXPECT_EQ(j["tensors"][0], json({{"name", "blk.0.attn_q.weight"}, {"type", "Q4_K"}, {"ne", {256, 2}},
                                   {"offset", 0}, {"bytes", 288}}));
  EXPECT_EQ(j["tensors"][1]["offset"], 288);
  EXPECT_EQ(j["dtypes"], json({{"F32", 1}, {"Q4_K", 1}}));
}

}  // namespace
}  // namespace gemmad::io
