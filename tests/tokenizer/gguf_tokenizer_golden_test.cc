// The GGUF tokenizer (tokenizer/gguf_tokenizer.h) against HF: GGUF metadata built from the shared
// Gemma 3/4 tokenizer.json as llama.cpp's converters write it (gguf_converter_emulation.h) must
// give the HF goldens (tests/golden/tokenizer/gemma{3,4}.jsonl) and the renders' prompt ids, and
// the same vocabulary, added tokens, special flags and decoded bytes as Tokenizer::Load.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/stopwatch.h"
#include "golden_check.h"
#include "gguf_converter_emulation.h"
#include "tokenizer/gguf_tokenizer.h"
#include "tokenizer/gguf_vocab.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::tokenizer {
namespace {

using golden::CheckGoldenFile;

const std::string kGolden = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/tokenizer/";
const std::string kShared = std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/";

nlohmann::json ReadJson(const std::string& path) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << path;
  return nlohmann::json::parse(in);
}

// Cases that involve HF's <image_soft_token> (262144), which Gemma 3 GGUFs drop (spec §2.3).
bool UsesImageSoftToken(const nlohmann::json& c) {
  auto has = [](const nlohmann::json& ids) {
    for (const auto& id : ids) {
      if (id.get<int32_t>() == 262144) return true;
    }
    return false;
  };
  if (c.contains("t") && c["t"].get<std::string>().find("<image_soft_token>") != std::string::npos) return true;
  return (c.contains("es") && has(c["es"])) || (c.contains("ids") && has(c["ids"]));
}

// Every id below `limit`: same token string, added/special flags and decoded bytes.
void ExpectSameVocabulary(const Tokenizer& got, const Tokenizer& want, int32_t limit) {
  size_t diffs = 0;
  for (int32_t id = 0; id < limit; ++id) {
    if (got.IdToToken(id) != want.IdToToken(id) || got.IsAdded(id) != want.IsAdded(id) ||
        got.IsSpecial(id) != want.IsSpecial(id) || got.TokenBytes(id) != want.TokenBytes(id)) {
      if (++diffs <= 10) {
        ADD_FAILURE() << "id " << id << ": token '" << got.IdToToken(id) << "' vs '" << want.IdToToken(id)
                      << "', added " << got.IsAdded(id) << " vs " << want.IsAdded(id) << ", special "
                      << got.IsSpecial(id) << " vs " << want.IsSpecial(id);
      }
    }
  }
  EXPECT_EQ(diffs, 0u);
}

class GgufTokenizerGolden : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    for (const char* m : {"gemma3", "gemma4"}) {
      auto tok = Tokenizer::Load(kShared + m);
      ASSERT_TRUE(tok.ok()) << tok.status().ToString();
      (std::string(m) == "gemma3" ? hf3_ : hf4_) = std::move(*tok);
    }
  }
  static void TearDownTestSuite() {
    hf3_.reset();
    hf4_.reset();
  }
  static std::unique_ptr<Tokenizer> hf3_, hf4_;
};
std::unique_ptr<Tokenizer> GgufTokenizerGolden::hf3_, GgufTokenizerGolden::hf4_;

TEST_F(GgufTokenizerGolden, Gemma4ConverterMetadataMatchesHf) {
  const auto md = golden::EmulateGemma4Converter(ReadJson(kShared + "gemma4/tokenizer.json"),
                                                 ReadJson(kShared + "gemma4/tokenizer_config.json"));
  Stopwatch sw;
  auto tok = TokenizerFromGguf(md, "emulated gemma4 GGUF");
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  std::printf("TokenizerFromGguf (gemma4, %zu merges): %.3f s\n", md.Find("tokenizer.ggml.merges")->array.size(),
              sw.Seconds());
  const Tokenizer& t = **tok;
  // The shared (derived) Gemma 4 tokenizer.json keeps Gemma 3's <image_soft_token> at 262144, so
  // the converter writes 262145 tokens (released Gemma 4 files have 262144).
  EXPECT_EQ(t.vocab_size(), hf4_->vocab_size());
  ExpectSameVocabulary(t, *hf4_, hf4_->vocab_size());
  EXPECT_EQ(t.bos_id(), 2);
  EXPECT_EQ(t.eos_id(), 1);
  EXPECT_EQ(t.pad_id(), 0);
  EXPECT_EQ(t.unk_id(), 3);
  const auto counts = CheckGoldenFile(t, kGolden + "gemma4.jsonl");
  EXPECT_GE(counts.cases, 2000u);
  EXPECT_EQ(counts.skipped, 0u);

  auto rows = ReadJson(std::string(GEMMAD_SHARED_DIR) + "/data/templates/gemma4/renders.json");
  ASSERT_EQ(rows.size(), 150u);
  for (size_t k = 0; k < rows.size(); ++k) {
    const std::string prompt = rows[k]["prompt"].get<std::string>();
    auto ids = t.Encode(prompt, false);
    EXPECT_EQ(ids, rows[k]["prompt_token_ids"].get<std::vector<int32_t>>()) << "row " << k;
    EXPECT_EQ(t.Decode(ids, false), prompt) << "row " << k;
    EXPECT_EQ(t.Decode(ids, true), hf4_->Decode(ids, true)) << "row " << k;
  }
}

TEST_F(GgufTokenizerGolden, Gemma3ConverterMetadataMatchesHf) {
  const auto hf_json = ReadJson(kShared + "gemma3/tokenizer.json");
  const auto md = golden::EmulateGemma3Converter(hf_json, ReadJson(kShared + "gemma3/tokenizer_config.json"));

  // The merges rebuilt from the scores are the tokenizer.json merges, in order.
  auto vocab = ReadGgufVocab(md);
  ASSERT_TRUE(vocab.ok()) << vocab.status().ToString();
  const auto& want = hf_json["model"]["merges"];
  ASSERT_EQ(vocab->merges.size(), want.size());
  size_t diffs = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    const auto [l, r] = vocab->merges[k];
    if ((vocab->tokens[l] != want[k][0].get<std::string>() || vocab->tokens[r] != want[k][1].get<std::string>()) &&
        ++diffs <= 5) {
      ADD_FAILURE() << "merge " << k << ": " << vocab->tokens[l] << " + " << vocab->tokens[r] << ", want " << want[k];
    }
  }
  EXPECT_EQ(diffs, 0u);

  Stopwatch sw;
  auto tok = TokenizerFromGguf(md, "emulated gemma3 GGUF");
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  std::printf("TokenizerFromGguf (gemma3, merges from scores): %.3f s\n", sw.Seconds());
  const Tokenizer& t = **tok;
  EXPECT_EQ(t.vocab_size(), 262144);
  ExpectSameVocabulary(t, *hf3_, 262144);
  EXPECT_EQ(t.bos_id(), 2);
  EXPECT_EQ(t.eos_id(), 106);  // tokenizer_config.json's <end_of_turn>
  const auto counts = CheckGoldenFile(t, kGolden + "gemma3.jsonl", UsesImageSoftToken);
  EXPECT_GE(counts.cases - counts.skipped, 2000u);
  std::printf("gemma3.jsonl: %zu cases, %zu with <image_soft_token> left out\n", counts.cases, counts.skipped);
}

}  // namespace
}  // namespace gemmad::tokenizer
