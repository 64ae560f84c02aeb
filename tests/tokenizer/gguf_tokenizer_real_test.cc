// The GGUF tokenizer on a real Gemma 3 GGUF (tokenizer.ggml.model "llama": pieces, scores and
// types, no merges) against the shared HF Gemma 3 tokenizer.json. Runs when GEMMAD_GEMMA3_GGUF names
// the file (e.g. gemma-3-270m-q4_k_m.gguf, 253 MB, never committed); skipped loudly otherwise.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "base/stopwatch.h"
#include "golden_check.h"
#include "io/gguf_file.h"
#include "tokenizer/gguf_tokenizer.h"
#include "tokenizer/gguf_vocab.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::tokenizer {
namespace {

const std::string kGolden = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/tokenizer/";
const std::string kShared = std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/";

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

TEST(GgufTokenizerReal, Gemma3FileMatchesHf) {
  const char* path = std::getenv("GEMMAD_GEMMA3_GGUF");
  if (path == nullptr || *path == '\0') {
    GTEST_SKIP() << "\n*** SKIPPED: set GEMMAD_GEMMA3_GGUF to a Gemma 3 GGUF (e.g. gemma-3-270m-q4_k_m.gguf) to run "
                    "the real GGUF tokenizer check ***";
  }
  Stopwatch open_sw;
  auto file = io::GgufFile::Open(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  const double open_s = open_sw.Seconds();
  const io::GgufMetadata& md = file->metadata();
  ASSERT_EQ(md.GetString("tokenizer.ggml.model").value_or(""), "llama");

  // The premise of the emulation in gguf_tokenizer_golden_test.cc: NORMAL scores fall strictly with the id.
  const auto& scores = md.Find("tokenizer.ggml.scores")->array.f;
  auto types = md.GetIntArray("tokenizer.ggml.token_type");
  ASSERT_TRUE(types.ok());
  double last = 1.0;
  size_t not_falling = 0;
  for (size_t i = 0; i < scores.size(); ++i) {
    if ((*types)[i] != kGgufNormal) continue;
    not_falling += scores[i] >= last;
    last = scores[i];
  }
  EXPECT_EQ(not_falling, 0u);

  Stopwatch sw;
  auto tok = TokenizerFromGguf(md, path);
  const double load_s = sw.Seconds();
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  std::printf("GgufFile::Open %.3f s, TokenizerFromGguf %.3f s\n", open_s, load_s);

  // The merges rebuilt from the file's scores are the HF tokenizer.json merges, in order.
  std::ifstream in(kShared + "gemma3/tokenizer.json");
  const auto hf_json = nlohmann::json::parse(in);
  auto vocab = ReadGgufVocab(md);
  ASSERT_TRUE(vocab.ok()) << vocab.status().ToString();
  const auto& want = hf_json["model"]["merges"];
  ASSERT_EQ(vocab->merges.size(), want.size());
  size_t diffs = 0;
  for (size_t k = 0; k < want.size(); ++k) {
    const auto [l, r] = vocab->merges[k];
    diffs += vocab->tokens[l] != want[k][0].get<std::string>() || vocab->tokens[r] != want[k][1].get<std::string>();
  }
  EXPECT_EQ(diffs, 0u) << "merges out of place";

  auto hf = Tokenizer::Load(kShared + "gemma3");
  ASSERT_TRUE(hf.ok()) << hf.status().ToString();
  const Tokenizer& t = **tok;
  EXPECT_EQ(t.vocab_size(), 262144);
  size_t vocab_diffs = 0;
  for (int32_t id = 0; id < 262144; ++id) {
    vocab_diffs += t.IdToToken(id) != (*hf)->IdToToken(id) || t.IsAdded(id) != (*hf)->IsAdded(id) ||
                   t.IsSpecial(id) != (*hf)->IsSpecial(id) || t.TokenBytes(id) != (*hf)->TokenBytes(id);
  }
  EXPECT_EQ(vocab_diffs, 0u);
  EXPECT_EQ(t.bos_id(), 2);
  EXPECT_EQ(t.eos_id(), md.GetU32("tokenizer.ggml.eos_token_id").value_or(0));
  const auto counts = golden::CheckGoldenFile(t, kGolden + "gemma3.jsonl", UsesImageSoftToken);
  EXPECT_GE(counts.cases - counts.skipped, 2000u);
  std::printf("gemma3.jsonl: %zu cases, %zu with <image_soft_token> left out\n", counts.cases, counts.skipped);
}

}  // namespace
}  // namespace gemmad::tokenizer
