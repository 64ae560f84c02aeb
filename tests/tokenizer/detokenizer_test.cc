// IncrementalDetokenizer against full decodes: for every id sequence of the goldens (encoded
// texts and random id lists with byte-fallback fragments and special tokens), streaming one id
// at a time and in random chunks gives pieces that are valid UTF-8 and whose concatenation plus
// Flush() equals Decode(), with and without skip_special_tokens.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "base/strings.h"
#include "tokenizer/incremental_detokenizer.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::tokenizer {
namespace {

const std::string kGolden = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/tokenizer/";

std::vector<std::vector<int32_t>> GoldenIdLists(const std::string& path) {
  std::vector<std::vector<int32_t>> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    auto c = nlohmann::json::parse(line);
    if (c.contains("t")) {
      out.push_back(c["e"].get<std::vector<int32_t>>());
      out.push_back(c["es"].get<std::vector<int32_t>>());
    } else {
      out.push_back(c["ids"].get<std::vector<int32_t>>());
    }
  }
  return out;
}

void CheckStreaming(const Tokenizer& tok, const std::string& golden) {
  auto lists = GoldenIdLists(golden);
  ASSERT_GT(lists.size(), 300u);
  std::mt19937 rng(7);
  size_t failures = 0;
  for (bool skip : {false, true}) {
    IncrementalDetokenizer detok(tok, skip);
    for (const auto& ids : lists) {
      const std::string want = tok.Decode(ids, skip);
      // One id at a time.
      std::string got;
      for (int32_t id : ids) {
        std::string piece = detok.Step(id);
        if (!IsValidUtf8(piece) && ++failures < 5) ADD_FAILURE() << "broken UTF-8 piece in " << golden;
        got += piece;
      }
      got += detok.Flush();
      // Random chunks.
      std::string chunked;
      for (size_t i = 0; i < ids.size();) {
        size_t n = 1 + rng() % 4;
        n = std::min(n, ids.size() - i);
        chunked += detok.StepMany(ids.data() + i, n);
        i += n;
      }
      chunked += detok.Flush();
      if ((got != want || chunked != want) && ++failures < 5) {
        ADD_FAILURE() << golden << " skip=" << skip << " ids " << nlohmann::json(ids).dump() << "\nwant "
                      << nlohmann::json(want).dump() << "\n got "
                      << nlohmann::json(got).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
      }
    }
  }
  EXPECT_EQ(failures, 0u);
}

TEST(IncrementalDetokenizer, Gemma4Goldens) {
  auto tok = Tokenizer::Load(std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4");
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  CheckStreaming(**tok, kGolden + "gemma4.jsonl");
}

class TrainedStreaming : public testing::TestWithParam<std::string> {};

TEST_P(TrainedStreaming, ConcatenationEqualsDecode) {
  auto tok = Tokenizer::Load(kGolden + "trained/" + GetParam() + ".json");
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  CheckStreaming(**tok, kGolden + "trained/" + GetParam() + ".jsonl");
}

INSTANTIATE_TEST_SUITE_P(Tokenizers, TrainedStreaming,
                         testing::Values("bytelevel_gpt2", "bytelevel_legacy_merges", "split_llama3", "split_qwen2",
                                         "split_o200k", "metaspace_bytefallback", "llama2_prepend_strip",
                                         "metaspace_first", "whitespace_digits_bert", "wsplit_nfkd_roberta",
                                         "split_behaviors", "bytelevel_prefix_roberta"));

// A character split over byte-fallback tokens is held back until a non-byte token ends the
// run (HF decodes a run as a whole: one invalid byte would turn all of it into U+FFFD).
TEST(IncrementalDetokenizer, HoldsByteRunsUntilClosed) {
  auto tok = Tokenizer::Load(std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4");
  ASSERT_TRUE(tok.ok());
  const Tokenizer& t = **tok;
  auto id = [&](const char* s) { return *t.TokenToId(s); };
  IncrementalDetokenizer d(t, false);
  EXPECT_EQ(d.Step(id("Hello")), "Hello");
  EXPECT_EQ(d.Step(id("<0xF0>")), "");
  EXPECT_EQ(d.Step(id("<0x9F>")), "");
  EXPECT_EQ(d.Step(id("<0xA4>")), "");
  EXPECT_EQ(d.Step(id("<0x96>")), "");
  EXPECT_EQ(d.Step(id("▁world")), "\xF0\x9F\xA4\x96 world");
  EXPECT_EQ(d.Step(id("<0xE2>")), "");
  EXPECT_EQ(d.num_ids(), 7u);
  EXPECT_EQ(d.Flush(), "\xEF\xBF\xBD");  // an unfinished character decodes to U+FFFD
  EXPECT_EQ(d.num_ids(), 0u);
  // A valid run followed by an invalid byte: HF replaces every byte of the run.
  EXPECT_EQ(d.Step(id("<0x41>")), "");
  EXPECT_EQ(d.Step(id("<0xFF>")), "");
  EXPECT_EQ(d.Step(id("<eos>")), "\xEF\xBF\xBD\xEF\xBF\xBD<eos>");
  EXPECT_EQ(d.Flush(), "");
}

// Skipped special tokens produce nothing and do not break the text around them.
TEST(IncrementalDetokenizer, SkipsSpecialTokens) {
  auto tok = Tokenizer::Load(std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4");
  ASSERT_TRUE(tok.ok());
  const Tokenizer& t = **tok;
  std::vector<int32_t> ids = t.Encode("<|turn>model\nHi there<turn|>", true);
  IncrementalDetokenizer d(t, true);
  std::string out;
  for (int32_t i : ids) out += d.Step(i);
  out += d.Flush();
  EXPECT_EQ(out, "model\nHi there");
}

// A long open byte run, and a long stream of skipped tokens (a client's logit_bias can force one),
// cost each step O(1), not a re-decoding of the whole run: 300,000 ids here would take hours if each
// step re-decoded its window, well under a second as it is; the text still equals Decode().
TEST(IncrementalDetokenizer, LongByteRunsAndSkippedTokensStayLinear) {
  auto tok = Tokenizer::Load(std::string(GEMMAD_SHARED_DIR) + "/data/tokenizers/gemma4");
  ASSERT_TRUE(tok.ok());
  const Tokenizer& t = **tok;
  const int32_t e4 = *t.TokenToId("<0xE4>"), b8 = *t.TokenToId("<0xB8>"), ad = *t.TokenToId("<0xAD>");
  const int32_t pad = *t.TokenToId("<pad>"), word = *t.TokenToId("▁world");
  std::vector<int32_t> ids;
  for (int i = 0; i < 100000; ++i) ids.insert(ids.end(), {e4, b8, ad});
  ids.push_back(word);
  for (int i = 0; i < 300000; ++i) ids.push_back(pad);
  ids.push_back(word);
  IncrementalDetokenizer d(t, true);
  std::string out;
  size_t first_piece_at = 0;
  for (size_t i = 0; i < ids.size(); ++i) {
    std::string piece = d.Step(ids[i]);
    if (!piece.empty() && first_piece_at == 0) first_piece_at = i;
    out += piece;
  }
  out += d.Flush();
  EXPECT_EQ(first_piece_at, 300000u);  // the run is held until the word closes it
  EXPECT_EQ(out, t.Decode(ids, true));
  EXPECT_EQ(out.size(), 300000u + 2 * std::string(" world").size());
}

}  // namespace
}  // namespace gemmad::tokenizer
