// The Gemma 4 tokenizer through the public API: the special-token table of chat-format.md §1.2,
// config-named ids, and TokenBytes (what grammar and tool-call code rely on): concatenating the
// bytes of every id of an encoded text gives its decode.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tokenizer/tokenizer.h"

namespace gemmad::tokenizer {
namespace {

class Gemma4Api : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto tok = Tokenizer::Load(std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4/tokenizer.json");
    ASSERT_TRUE(tok.ok()) << tok.status().ToString();
    tok_ = std::move(tok).value().release();
  }
  static void TearDownTestSuite() { delete tok_; }
  static const Tokenizer* tok_;
};
const Tokenizer* Gemma4Api::tok_ = nullptr;

TEST_F(Gemma4Api, SpecialTokenTable) {
  const std::pair<int32_t, const char*> table[] = {
      {0, "<pad>"}, {1, "<eos>"}, {2, "<bos>"}, {3, "<unk>"}, {46, "<|tool>"}, {47, "<tool|>"},
      {48, "<|tool_call>"}, {49, "<tool_call|>"}, {50, "<|tool_response>"}, {51, "<tool_response|>"},
      {52, "<|\"|>"}, {98, "<|think|>"}, {100, "<|channel>"}, {101, "<channel|>"}, {105, "<|turn>"},
      {106, "<turn|>"}, {255999, "<|image>"}, {256000, "<|audio>"}, {258880, "<|image|>"},
      {258881, "<|audio|>"}, {258882, "<image|>"}, {258883, "<audio|>"}, {258884, "<|video|>"}};
  for (auto [id, s] : table) {
    EXPECT_EQ(tok_->TokenToId(s), id) << s;
    EXPECT_EQ(tok_->IdToToken(id), s);
    EXPECT_TRUE(tok_->IsSpecial(id)) << s;
    EXPECT_EQ(tok_->TokenBytes(id), s);
    EXPECT_EQ(tok_->Encode(std::string("a") + s + "b", false)[1], id) << s;
  }
  EXPECT_EQ(tok_->TokenToId("\n"), 107);
  EXPECT_FALSE(tok_->IsSpecial(107));
  EXPECT_FALSE(tok_->IsSpecial(4));  // <mask> is an added token that is not special
  EXPECT_TRUE(tok_->IsAdded(4));
  EXPECT_EQ(tok_->vocab_size(), 262145);
  EXPECT_EQ(tok_->bos_id(), 2);
  EXPECT_EQ(tok_->eos_id(), 1);
  EXPECT_EQ(tok_->pad_id(), 0);
  EXPECT_EQ(tok_->unk_id(), 3);
}

TEST_F(Gemma4Api, TokenBytes) {
  EXPECT_EQ(tok_->TokenBytes(*tok_->TokenToId("▁world")), " world");
  EXPECT_EQ(tok_->TokenBytes(*tok_->TokenToId("<0x0A>")), "\n");
  EXPECT_EQ(tok_->TokenBytes(*tok_->TokenToId("<0xF0>")), "\xF0");
  EXPECT_EQ(tok_->TokenBytes(-1), "");
  EXPECT_EQ(tok_->TokenBytes(1 << 30), "");
  std::ifstream in(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/tokenizer/gemma4.jsonl");
  std::string line;
  size_t n = 0;
  while (std::getline(in, line)) {
    auto c = nlohmann::json::parse(line);
    if (!c.contains("t")) continue;
    const std::string text = c["t"].get<std::string>();
    std::string bytes;
    for (int32_t id : c["es"].get<std::vector<int32_t>>()) bytes += tok_->TokenBytes(id);
    ASSERT_EQ(bytes, c["d"].get<std::string>()) << nlohmann::json(text).dump();
    ++n;
  }
  EXPECT_GT(n, 2000u);
}

}  // namespace
}  // namespace gemmad::tokenizer
