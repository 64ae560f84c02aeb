// GGUF tokenizer on small hand-built metadata: the gemma4 (merges) and llama (scores) paths, the
// added-token and special rules, the chat template, and errors for bad metadata. The full Gemma
// vocabularies are checked against HF in tests/tokenizer/gguf_tokenizer_golden_test.cc.
#include "tokenizer/gguf_tokenizer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "io/gguf_file.h"
#include "io/gguf_test_writer.h"
#include "tokenizer/gguf_vocab.h"

namespace gemmad::tokenizer {
namespace {

using io::GgufValue;
using io::GgufValueType;

GgufValue Str(std::string s) {
  GgufValue v;
  v.type = GgufValueType::kString;
  v.s = std::move(s);
  return v;
}
GgufValue Num(uint64_t u, GgufValueType type = GgufValueType::kUint32) {
  GgufValue v;
  v.type = type;
  v.u = u;
  return v;
}
GgufValue Strings(std::vector<std::string> s) {
  GgufValue v;
  v.type = GgufValueType::kArray;
  v.array.elem_type = GgufValueType::kString;
  v.array.s = std::move(s);
  return v;
}
GgufValue Ints(std::vector<int64_t> i) {
  GgufValue v;
  v.type = GgufValueType::kArray;
  v.array.elem_type = GgufValueType::kInt32;
  v.array.i = std::move(i);
  return v;
}
GgufValue Floats(std::vector<double> f) {
  GgufValue v;
  v.type = GgufValueType::kArray;
  v.array.elem_type = GgufValueType::kFloat32;
  v.array.f = std::move(f);
  return v;
}

// Key/value list that later entries override, turned into metadata.
struct Md {
  std::vector<io::GgufKeyValue> kv;
  Md& Set(const std::string& key, GgufValue v) {
    for (auto& e : kv) {
      if (e.key == key) {
        e.value = std::move(v);
        return *this;
      }
    }
    kv.push_back({key, std::move(v)});
    return *this;
  }
  Md& Drop(const std::string& key) {
    std::erase_if(kv, [&](const io::GgufKeyValue& e) { return e.key == key; });
    return *this;
  }
  io::GgufMetadata Build() const {
    io::GgufMetadata md;
    for (const auto& e : kv) md.Add(e);
    return md;
  }
};

// A gemma4-style file: 0..3 specials, <|turn> and <table> NORMAL (no merge makes them), two bytes.
Md Gemma4Md() {
  Md m;
  m.Set("tokenizer.ggml.model", Str("gemma4"))
      .Set("tokenizer.ggml.tokens", Strings({"<pad>", "<eos>", "<bos>", "<unk>", "<|turn>", "<table>", "▁", "a", "b",
                                             "ab", "▁ab", "\n", "\n\n", "<0xC3>", "<0xA9>", "<mask>"}))
      .Set("tokenizer.ggml.token_type", Ints({3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 6, 6, 3}))
      .Set("tokenizer.ggml.scores", Floats(std::vector<double>(16, -1000.0)))
      .Set("tokenizer.ggml.merges", Strings({"a b", "▁ ab", "\n \n"}))
      .Set("tokenizer.ggml.bos_token_id", Num(2))
      .Set("tokenizer.ggml.eos_token_id", Num(1))
      .Set("tokenizer.ggml.unknown_token_id", Num(3))
      .Set("tokenizer.ggml.padding_token_id", Num(0))
      .Set("tokenizer.ggml.add_bos_token", Num(0, GgufValueType::kBool));  // forced true for gemma4
  return m;
}

// A Gemma 3 style SentencePiece file: no merges; "  " is USER_DEFINED written with spaces.
Md Gemma3Md() {
  Md m;
  m.Set("tokenizer.ggml.model", Str("llama"))
      .Set("tokenizer.ggml.tokens", Strings({"<pad>", "<eos>", "<bos>", "<unk>", "a", "b", "ab", "▁", "  ", "▁a",
                                             "<start_of_image>", "<unused0>"}))
      .Set("tokenizer.ggml.token_type", Ints({3, 3, 3, 3, 1, 1, 1, 1, 4, 1, 4, 3}))
      .Set("tokenizer.ggml.scores", Floats({-1000, -1000, -1000, -1000, -3, -4, -1, -5, -1000, -2, -1000, -1000}))
      .Set("tokenizer.ggml.bos_token_id", Num(2))
      .Set("tokenizer.ggml.eos_token_id", Num(1))
      .Set("tokenizer.ggml.unknown_token_id", Num(3))
      .Set("tokenizer.ggml.add_bos_token", Num(1, GgufValueType::kBool))
      .Set("tokenizer.ggml.add_space_prefix", Num(0, GgufValueType::kBool));
  return m;
}

// The metadata as a GGUF file (no tensors).
std::string ToGgufBytes(const Md& m) {
  io::testing::GgufTestWriter w;
  for (const auto& [key, v] : m.kv) {
    std::string p;
    switch (v.type) {
      case GgufValueType::kString: w.AddString(key, v.s); break;
      case GgufValueType::kUint32: w.AddU32(key, static_cast<uint32_t>(v.u)); break;
      case GgufValueType::kBool: w.AddRaw(key, 7, std::string(1, static_cast<char>(v.u))); break;
      case GgufValueType::kArray:
        for (const auto& e : v.array.s) io::testing::PutStr(p, e);
        for (int64_t e : v.array.i) io::testing::PutRaw(p, static_cast<int32_t>(e));
        for (double e : v.array.f) io::testing::PutRaw(p, static_cast<float>(e));
        w.AddArray(key, static_cast<uint32_t>(v.array.elem_type), v.array.size(), p);
        break;
      default: ADD_FAILURE() << "no writer for " << key;
    }
  }
  return w.Build();
}

// The seeds of fuzz/corpus/gguf_tokenizer.
std::vector<std::pair<std::string, std::string>> FuzzSeeds();

std::unique_ptr<Tokenizer> Load(const Md& m) {
  auto tok = TokenizerFromGguf(m.Build(), "test.gguf");
  EXPECT_TRUE(tok.ok()) << tok.status().ToString();
  return tok.ok() ? std::move(*tok) : nullptr;
}

TEST(GgufTokenizer, Gemma4MergesAddedTokensAndSpecials) {
  auto tok = Load(Gemma4Md());
  ASSERT_NE(tok, nullptr);
  const std::string text = "ab ab\n\n<|turn><table>é";
  EXPECT_EQ(tok->Encode(text, true), (std::vector<int32_t>{2, 9, 10, 12, 4, 5, 13, 14}));
  EXPECT_EQ(tok->Encode(text, false), (std::vector<int32_t>{9, 10, 12, 4, 5, 13, 14}));
  EXPECT_EQ(tok->Decode(std::vector<int32_t>{2, 9, 10, 12, 4, 5, 13, 14}, false), "<bos>" + text);
  EXPECT_EQ(tok->Decode(std::vector<int32_t>{2, 9, 10, 12, 4, 5, 13, 14}, true), "ab ab\n\n<table>é");
  EXPECT_TRUE(tok->IsSpecial(4));   // <|turn>: an HF special token by name, though NORMAL here
  EXPECT_FALSE(tok->IsSpecial(5));  // <table>: added, not special
  EXPECT_TRUE(tok->IsAdded(5));
  EXPECT_TRUE(tok->IsAdded(11));    // "\n" runs are added tokens
  EXPECT_FALSE(tok->IsAdded(9));    // "ab" comes from a merge
  EXPECT_TRUE(tok->IsAdded(15));
  EXPECT_FALSE(tok->IsSpecial(15));  // <mask>: CONTROL here, but not special in HF Gemma
  EXPECT_EQ(tok->bos_id(), 2);
  EXPECT_EQ(tok->eos_id(), 1);
  EXPECT_EQ(tok->unk_id(), 3);
  EXPECT_EQ(tok->pad_id(), 0);
  EXPECT_EQ(tok->vocab_size(), 16);
}

TEST(GgufTokenizer, Gemma3MergesFromScoresAndUserDefinedSpaces) {
  const Md m = Gemma3Md();
  auto vocab = ReadGgufVocab(m.Build());
  ASSERT_TRUE(vocab.ok()) << vocab.status().ToString();
  EXPECT_EQ(vocab->tokens[8], "▁▁");
  // "▁▁" (USER_DEFINED: score 0 as in the SentencePiece model), then "ab" (-1), then "▁a" (-2).
  EXPECT_EQ(vocab->merges, (std::vector<std::pair<int32_t, int32_t>>{{7, 7}, {4, 5}, {7, 4}}));
  auto tok = Load(m);
  ASSERT_NE(tok, nullptr);
  EXPECT_EQ(tok->Encode("  ab", true), (std::vector<int32_t>{2, 8, 6}));
  EXPECT_EQ(tok->Encode(" a", false), (std::vector<int32_t>{9}));
  EXPECT_EQ(tok->Encode("▁▁a", false), (std::vector<int32_t>{8, 4}));  // the added token matches "▁▁" as written
  EXPECT_EQ(tok->Decode(std::vector<int32_t>{8, 6}, false), "  ab");
  EXPECT_TRUE(tok->IsSpecial(10));   // <start_of_image>: USER_DEFINED in the file, special in HF
  EXPECT_FALSE(tok->IsSpecial(11));  // <unused0>: CONTROL in the file, not special in HF
  EXPECT_TRUE(tok->IsAdded(11));
}

TEST(GgufTokenizer, AddEosAddsTheEosToken) {
  auto tok = Load(Gemma3Md().Set("tokenizer.ggml.add_eos_token", Num(1, GgufValueType::kBool)));
  ASSERT_NE(tok, nullptr);
  EXPECT_EQ(tok->Encode("ab", true), (std::vector<int32_t>{2, 6, 1}));
}

TEST(GgufTokenizer, ChatTemplate) {
  EXPECT_EQ(GgufChatTemplate(Gemma4Md().Build()), std::nullopt);
  EXPECT_EQ(GgufChatTemplate(Gemma4Md().Set("tokenizer.chat_template", Str("{{ bos_token }}")).Build()),
            "{{ bos_token }}");
  EXPECT_EQ(GgufChatTemplate(Gemma4Md().Set("tokenizer.chat_template", Num(3)).Build()), std::nullopt);
}

void ExpectError(const Md& m, StatusCode code, const std::string& needle) {
  auto tok = TokenizerFromGguf(m.Build(), "bad.gguf");
  ASSERT_FALSE(tok.ok()) << needle;
  EXPECT_EQ(tok.status().code(), code) << tok.status().ToString();
  EXPECT_NE(tok.status().message().find(needle), std::string::npos) << tok.status().ToString();
  EXPECT_EQ(tok.status().message().rfind("bad.gguf: ", 0), 0u) << tok.status().ToString();
}

TEST(GgufTokenizer, BadMetadataIsAnError) {
  const auto kInvalid = StatusCode::kInvalidArgument;
  ExpectError(Md(), StatusCode::kNotFound, "tokenizer.ggml.model");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.model", Str("gpt2")), StatusCode::kUnimplemented, "'gpt2'");
  ExpectError(Gemma4Md().Drop("tokenizer.ggml.tokens"), StatusCode::kNotFound, "tokenizer.ggml.tokens");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.tokens", Ints({1, 2})), kInvalid, "tokenizer.ggml.tokens");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.tokens", Strings({})), kInvalid, "empty");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.token_type", Ints({1, 1})), kInvalid, "token_type' has 2 entries");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.token_type", Ints(std::vector<int64_t>(16, 9))), kInvalid,
              "not a token type");
  ExpectError(Gemma4Md().Drop("tokenizer.ggml.merges"), StatusCode::kNotFound, "tokenizer.ggml.merges");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.merges", Strings({"ab"})), kInvalid, "entry 0 is not");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.merges", Strings({"a b", "a zz"})), kInvalid, "entry 1 names");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.merges", Strings({"b a"})), kInvalid, "joins");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.eos_token_id", Num(16)), kInvalid, "eos_token_id' = 16");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.bos_token_id", Str("2")), kInvalid, "bos_token_id");
  ExpectError(Gemma4Md()
                  .Set("tokenizer.ggml.tokens", Strings({"a", "a"}))
                  .Set("tokenizer.ggml.token_type", Ints({1, 1}))
                  .Set("tokenizer.ggml.merges", Strings({})).Drop("tokenizer.ggml.eos_token_id")
                  .Drop("tokenizer.ggml.bos_token_id").Drop("tokenizer.ggml.unknown_token_id")
                  .Drop("tokenizer.ggml.padding_token_id"),
              kInvalid, "token 1 repeats");
  ExpectError(Gemma4Md().Set("tokenizer.ggml.tokens", Strings({"<pad>", "<eos>", "<bos>", "<unk>", "\xFF", "5", "6",
                                                               "7", "8", "9", "10", "11", "12", "13", "14", "15"})),
              kInvalid, "token 4 is not valid UTF-8");
  ExpectError(Gemma3Md().Drop("tokenizer.ggml.scores"), StatusCode::kNotFound, "tokenizer.ggml.scores");
  ExpectError(Gemma3Md().Set("tokenizer.ggml.scores", Floats({1, 2})), kInvalid, "scores' has 2 entries");
  ExpectError(Gemma3Md().Drop("tokenizer.ggml.token_type"), StatusCode::kNotFound, "token_type");
  ExpectError(Gemma3Md().Drop("tokenizer.ggml.add_space_prefix"), StatusCode::kUnimplemented, "add_space_prefix");
}

TEST(GgufTokenizer, Gemma4WithoutTypesReadsAllAsNormal) {
  auto tok = Load(Gemma4Md().Drop("tokenizer.ggml.token_type"));
  ASSERT_NE(tok, nullptr);
  EXPECT_EQ(tok->Encode("ab<eos>", false), (std::vector<int32_t>{9, 1}));
  EXPECT_TRUE(tok->IsSpecial(1));  // by name
}

std::vector<std::pair<std::string, std::string>> FuzzSeeds() {
  return {{"gemma4.gguf", ToGgufBytes(Gemma4Md().Set("tokenizer.chat_template", Str("{{ bos_token }}")))},
          {"gemma3.gguf", ToGgufBytes(Gemma3Md())}};
}

// The committed seeds are what FuzzSeeds() writes, and they load through the GGUF reader.
TEST(GgufTokenizer, FuzzCorpusSeeds) {
  for (const auto& [name, bytes] : FuzzSeeds()) {
    const std::string path = std::string(GEMMAD_SOURCE_DIR) + "/fuzz/corpus/gguf_tokenizer/" + name;
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    EXPECT_EQ(ss.str(), bytes) << path << " is stale: rerun DISABLED_WriteFuzzCorpus";
    auto file = io::GgufFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    auto tok = TokenizerFromGguf(file->metadata(), path);
    ASSERT_TRUE(tok.ok()) << tok.status().ToString();
    EXPECT_EQ((*tok)->Encode("ab", true), (std::vector<int32_t>{2, name == "gemma4.gguf" ? 9 : 6}));
  }
}

// Manual: GEMMAD_WRITE_CORPUS=fuzz/corpus/gguf_tokenizer tokenizer_unit_tests
//   --gtest_filter='*WriteFuzzCorpus' --gtest_also_run_disabled_tests
TEST(GgufTokenizer, DISABLED_WriteFuzzCorpus) {
  const char* dir = std::getenv("GEMMAD_WRITE_CORPUS");
  ASSERT_NE(dir, nullptr) << "set GEMMAD_WRITE_CORPUS";
  for (const auto& [name, bytes] : FuzzSeeds()) {
    std::ofstream out(std::string(dir) + "/" + name, std::ios::binary);
    out << bytes;
    ASSERT_TRUE(out.good()) << name;
  }
}

}  // namespace
}  // namespace gemmad::tokenizer
