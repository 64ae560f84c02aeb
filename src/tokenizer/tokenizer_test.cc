// Tokenizer unit tests on small inline tokenizer.json files: BPE merge order, both merge
// serialisations, byte fallback, unk, added-token flags, post-processing, and load errors that
// name what is unsupported.
#include "tokenizer/tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gemmad::tokenizer {
namespace {

// A byte-level-free BPE over the letters a, b, c with merges "a b" (rank 0), "ab c" (rank 1).
std::string MiniJson(const std::string& merges = R"([["a","b"],["ab","c"]])", const std::string& extra_model = "",
                     const std::string& top = R"("normalizer":null,"pre_tokenizer":null,"decoder":null)") {
  return R"({"version":"1.0","added_tokens":[],)" + top +
         R"(,"model":{"type":"BPE","unk_token":"<unk>","fuse_unk":false,"byte_fallback":false,)" + extra_model +
         R"("vocab":{"<unk>":0,"a":1,"b":2,"c":3,"ab":4,"abc":5," ":6},"merges":)" + merges + "}}";
}

std::vector<int32_t> Enc(const std::string& json, const std::string& text, bool special = false) {
  auto tok = Tokenizer::FromJson(json);
  EXPECT_TRUE(tok.ok()) << tok.status().ToString();
  return tok.ok() ? (*tok)->Encode(text, special) : std::vector<int32_t>{};
}

Status LoadError(const std::string& json) {
  auto tok = Tokenizer::FromJson(json);
  return tok.ok() ? OkStatus() : tok.status();
}

TEST(Tokenizer, MergesByRankInBothSerialisations) {
  EXPECT_EQ(Enc(MiniJson(), "abcab"), (std::vector<int32_t>{5, 4}));
  EXPECT_EQ(Enc(MiniJson(R"(["a b","ab c"])"), "abcab"), (std::vector<int32_t>{5, 4}));
  EXPECT_EQ(Enc(MiniJson(R"(["#version: 0.2","a b","ab c"])"), "abc"), (std::vector<int32_t>{5}));
  // Without the second merge "abc" stays two tokens.
  EXPECT_EQ(Enc(MiniJson(R"([["a","b"]])"), "abc"), (std::vector<int32_t>{4, 3}));
}

TEST(Tokenizer, UnknownCharactersBecomeUnkFusedOrNot) {
  EXPECT_EQ(Enc(MiniJson(), "axyb"), (std::vector<int32_t>{1, 0, 0, 2}));
  EXPECT_EQ(Enc(MiniJson(R"([["a","b"]])", R"("fuse_unk":true,)"), "axyb"), (std::vector<int32_t>{1, 0, 2}));
}

TEST(Tokenizer, ByteFallbackUsesByteTokens) {
  std::string json = R"({"added_tokens":[],"model":{"type":"BPE","byte_fallback":true,"vocab":{"a":0,"<0xC3>":1,"<0xA9>":2},"merges":[]},
    "decoder":{"type":"Sequence","decoders":[{"type":"ByteFallback"},{"type":"Fuse"}]}})";
  auto tok = Tokenizer::FromJson(json);
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  EXPECT_EQ((*tok)->Encode("aé", false), (std::vector<int32_t>{0, 1, 2}));
  EXPECT_EQ((*tok)->Decode(std::vector<int32_t>{0, 1, 2}, false), "aé");
  EXPECT_EQ((*tok)->Decode(std::vector<int32_t>{1, 0}, false), "\xEF\xBF\xBD" "a");
  EXPECT_EQ((*tok)->TokenBytes(1), "\xC3");
  EXPECT_EQ((*tok)->TokenBytes(99), "");
}

TEST(Tokenizer, AddedTokensAndPostProcessor) {
  std::string json = R"({"added_tokens":[
      {"id":7,"content":"<s>","single_word":false,"lstrip":false,"rstrip":false,"normalized":false,"special":true},
      {"id":8,"content":"[M]","single_word":false,"lstrip":true,"rstrip":true,"normalized":false,"special":false},
      {"id":9,"content":"cab","single_word":true,"lstrip":false,"rstrip":false,"normalized":true,"special":false}],
    "post_processor":{"type":"TemplateProcessing","single":[{"SpecialToken":{"id":"<s>","type_id":0}},{"Sequence":{"id":"A","type_id":0}}],
      "pair":[],"special_tokens":{"<s>":{"id":"<s>","ids":[7],"tokens":["<s>"]}}},
    "model":{"type":"BPE","unk_token":"<unk>","vocab":{"<unk>":0,"a":1,"b":2,"c":3,"ab":4,"abc":5," ":6},"merges":[["a","b"]]}})";
  auto tok = Tokenizer::FromJson(json);
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  const Tokenizer& t = **tok;
  EXPECT_EQ(t.vocab_size(), 10);
  EXPECT_EQ(t.Encode("a<s>b", true), (std::vector<int32_t>{7, 1, 7, 2}));
  EXPECT_EQ(t.Encode("a<s>b", false), (std::vector<int32_t>{1, 7, 2}));
  EXPECT_EQ(t.Encode("a  [M]  b", false), (std::vector<int32_t>{1, 8, 2}));  // lstrip + rstrip eat spaces
  EXPECT_EQ(t.Encode("cab c", false), (std::vector<int32_t>{9, 6, 3}));      // single word
  EXPECT_EQ(t.Encode("acab", false), (std::vector<int32_t>{1, 3, 4}));       // not a single word
  EXPECT_TRUE(t.IsSpecial(7));
  EXPECT_FALSE(t.IsSpecial(8));
  EXPECT_TRUE(t.IsAdded(8));
  EXPECT_EQ(t.Decode(std::vector<int32_t>{7, 1, 8}, true), "a [M]");  // no decoder: joined by spaces
  EXPECT_EQ(t.TokenToId("[M]"), 8);
  EXPECT_EQ(t.IdToToken(9), "cab");
  EXPECT_EQ(t.bos_id(), 7);  // from the template, without tokenizer_config.json
}

TEST(Tokenizer, ConfigNamesSpecialTokens) {
  auto tok = Tokenizer::FromJson(MiniJson(), R"({"bos_token":"a","eos_token":{"content":"b"},"pad_token":"zz"})");
  ASSERT_TRUE(tok.ok());
  EXPECT_EQ((*tok)->bos_id(), 1);
  EXPECT_EQ((*tok)->eos_id(), 2);
  EXPECT_EQ((*tok)->pad_id(), std::nullopt);
}

TEST(Tokenizer, InvalidUtf8IsReadAsReplacementCharacter) {
  EXPECT_EQ(Enc(MiniJson(), "a\xFF"), (std::vector<int32_t>{1, 0}));
}

TEST(Tokenizer, LoadErrorsNameTheProblem) {
  auto expect = [](const std::string& json, const std::string& needle) {
    Status s = LoadError(json);
    EXPECT_FALSE(s.ok()) << needle;
    EXPECT_NE(s.message().find(needle), std::string::npos) << s.ToString();
  };
  expect(R"({"model":{"type":"WordPiece","vocab":{}}})", "WordPiece");
  expect(MiniJson("[]", "", R"("normalizer":{"type":"Precompiled"})"), "Precompiled");
  expect(MiniJson("[]", "", R"("pre_tokenizer":{"type":"BertPreTokenizer"})"), "BertPreTokenizer");
  expect(MiniJson("[]", "", R"("decoder":{"type":"CTC"})"), "CTC");
  expect(MiniJson("[]", "", R"("post_processor":{"type":"Funky"})"), "Funky");
  expect(MiniJson("[]", "", R"("pre_tokenizer":{"type":"Split","pattern":{"Regex":"\\bx"},"behavior":"Isolated","invert":false})"),
         "\\b");
  expect(MiniJson("[]", "", R"("pre_tokenizer":{"type":"Split","pattern":{"Regex":"\\p{Han}"},"behavior":"Isolated","invert":false})"),
         "Han");
  expect(MiniJson(R"([["a","zz"]])"), "zz");
  expect(MiniJson("[]", R"("dropout":0.1,)"), "dropout");
  expect(MiniJson("[]").substr(0, 40), "byte");
  expect("\xFF", "UTF-8");
  expect(R"({"version":"2.0","model":{}})", "version");
  expect(R"({"added_tokens":[]})", "model");
  expect(R"({"model":{"type":"BPE","unk_token":"<zz>","vocab":{"a":0},"merges":[]}})", "<zz>");
  expect(R"({"model":{"type":"BPE","vocab":{"a":0},"merges":[["a","b"],"a b"]}})", "mixes");
}

TEST(Tokenizer, LoadFromMissingPath) {
  auto tok = Tokenizer::Load("/nonexistent/dir");
  ASSERT_FALSE(tok.ok());
  EXPECT_NE(tok.status().message().find("/nonexistent/dir"), std::string::npos);
}

}  // namespace
}  // namespace gemmad::tokenizer
