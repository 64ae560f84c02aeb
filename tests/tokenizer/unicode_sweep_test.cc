// Every code point through the pre-tokenizers and normalizers, against HF's hashes
// (tests/golden/tokenizer/unicode_sweep.jsonl, scripts/golden/tokenizer/unicode_sweep.py): a code
// point classified or mapped differently from HF `tokenizers` 0.23.3 changes its chunk's hash.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "io/sha256.h"
#include "tokenizer/normalizer.h"
#include "tokenizer/pre_tokenizer.h"
#include "tokenizer/unicode.h"

namespace gemmad::tokenizer {
namespace {

// The chunk strings of the sweep: plain, and "x" + c + " " for every code point c.
std::vector<std::pair<std::string, std::string>> Chunks(size_t chunk) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<char32_t> cps;
  for (char32_t c = 0; c < 0x110000; ++c) {
    if (c < 0xD800 || c > 0xDFFF) cps.push_back(c);
  }
  for (size_t i = 0; i < cps.size(); i += chunk) {
    std::string plain, spaced;
    for (size_t k = i; k < std::min(cps.size(), i + chunk); ++k) {
      unicode::AppendUtf8(cps[k], &plain);
      spaced.push_back('x');
      unicode::AppendUtf8(cps[k], &spaced);
      spaced.push_back(' ');
    }
    out.emplace_back(std::move(plain), std::move(spaced));
  }
  return out;
}

std::string Digest(const std::string& s) { return io::Sha256Hex(s).substr(0, 16); }

TEST(UnicodeSweep, MatchesHf) {
  std::ifstream in(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/tokenizer/unicode_sweep.jsonl");
  ASSERT_TRUE(in.good());
  std::vector<std::pair<std::string, std::string>> chunks;
  std::string line;
  size_t checks = 0;
  while (std::getline(in, line)) {
    auto c = nlohmann::json::parse(line);
    if (chunks.empty()) chunks = Chunks(c["chunk"].get<size_t>());
    const auto want = c["hashes"].get<std::vector<std::string>>();
    ASSERT_EQ(want.size(), chunks.size());
    const int variant = c["variant"].get<int>();
    std::unique_ptr<PreTokenizer> pre;
    std::unique_ptr<Normalizer> norm;
    if (c.contains("pre_tokenizer")) {
      auto p = ParsePreTokenizer(c["pre_tokenizer"]);
      ASSERT_TRUE(p.ok()) << p.status().ToString();
      pre = std::move(p).value();
    } else {
      auto n = ParseNormalizer(c["normalizer"]);
      ASSERT_TRUE(n.ok()) << n.status().ToString();
      norm = std::move(n).value();
    }
    const std::string what = c.contains("pre_tokenizer") ? c["pre_tokenizer"].dump() : c["normalizer"].dump();
    for (size_t k = 0; k < chunks.size(); ++k) {
      const std::string& text = variant == 0 ? chunks[k].first : chunks[k].second;
      std::string out;
      if (pre) {
        std::vector<Piece> pieces{{text, true}};
        pre->PreTokenize(&pieces);
        for (size_t i = 0; i < pieces.size(); ++i) {
          if (i > 0) out.push_back('\0');
          out += pieces[i].text;
        }
      } else {
        out = text;
        norm->Normalize(&out);
      }
      EXPECT_EQ(Digest(out), want[k]) << what << " variant " << variant << " chunk " << k << " (code points from "
                                      << k * c["chunk"].get<size_t>() << ", surrogates skipped)";
    }
    ++checks;
  }
  EXPECT_EQ(checks, 28u);
}

}  // namespace
}  // namespace gemmad::tokenizer
