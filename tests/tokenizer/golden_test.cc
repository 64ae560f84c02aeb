// Golden tests: ids and decodes of HF `tokenizers` 0.23.3 (scripts/golden/tokenizer/
// make_goldens.py) for the shared Gemma 3/4 tokenizers and the small trained tokenizers, plus the
// prompt ids of ../shared/data/templates/gemma4/renders.json. Everything must match exactly.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "golden_check.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::tokenizer {
namespace {

using golden::CheckGoldenFile;

const std::string kGolden = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/tokenizer/";
const std::string kShared = std::string(GEMMAD_SHARED_DIR) + "/data/";

TEST(TokenizerGolden, Gemma3) {
  auto tok = Tokenizer::Load(kShared + "tokenizers/gemma3");
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  EXPECT_GE(CheckGoldenFile(**tok, kGolden + "gemma3.jsonl").cases, 2000u);
}

TEST(TokenizerGolden, Gemma4) {
  auto tok = Tokenizer::Load(kShared + "tokenizers/gemma4");
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  EXPECT_GE(CheckGoldenFile(**tok, kGolden + "gemma4.jsonl").cases, 2000u);
}

class TrainedGolden : public testing::TestWithParam<std::string> {};

TEST_P(TrainedGolden, MatchesHf) {
  auto tok = Tokenizer::Load(kGolden + "trained/" + GetParam() + ".json");
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  EXPECT_GE(CheckGoldenFile(**tok, kGolden + "trained/" + GetParam() + ".jsonl").cases, 300u);
}

INSTANTIATE_TEST_SUITE_P(Tokenizers, TrainedGolden,
                         testing::Values("bytelevel_gpt2", "bytelevel_legacy_merges", "split_llama3", "split_qwen2",
                                         "split_o200k", "metaspace_bytefallback", "llama2_prepend_strip",
                                         "metaspace_first", "whitespace_digits_bert", "wsplit_nfkd_roberta",
                                         "split_behaviors", "bytelevel_prefix_roberta"));

// The chat-template reference renders: encoding each prompt without added special tokens gives
// its prompt_token_ids (the README warns they came from a JS port; HF agrees, see MANIFEST.json).
TEST(TokenizerGolden, Gemma4RenderedPrompts) {
  auto tok = Tokenizer::Load(kShared + "tokenizers/gemma4");
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  std::ifstream in(kShared + "templates/gemma4/renders.json");
  ASSERT_TRUE(in.good());
  auto rows = nlohmann::json::parse(in);
  ASSERT_EQ(rows.size(), 150u);
  for (size_t k = 0; k < rows.size(); ++k) {
    auto ids = tok->get()->Encode(rows[k]["prompt"].get<std::string>(), false);
    EXPECT_EQ(ids, rows[k]["prompt_token_ids"].get<std::vector<int32_t>>()) << "row " << k;
    EXPECT_EQ(tok->get()->Decode(ids, false), rows[k]["prompt"].get<std::string>()) << "row " << k;
  }
}

}  // namespace
}  // namespace gemmad::tokenizer
