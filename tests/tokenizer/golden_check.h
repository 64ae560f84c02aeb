// Checks a tokenizer against a golden JSONL file of scripts/golden/tokenizer/make_goldens.py:
// {"t", "e", "es", "d", "ds"} encode cases and {"ids", "d", "ds"} decode cases, all exact.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace gemmad::tokenizer::golden {

struct GoldenCounts {
  size_t cases = 0;    // lines read
  size_t skipped = 0;  // cases `skip` left out
};

// `skip` (optional) leaves out the cases it returns true for (given the parsed JSON line).
inline GoldenCounts CheckGoldenFile(const Tokenizer& tok, const std::string& path,
                                    const std::function<bool(const nlohmann::json&)>& skip = {}) {
  auto show = [](const std::vector<int32_t>& v) { return nlohmann::json(v).dump(); };
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "cannot open " << path;
  std::string line;
  GoldenCounts counts;
  size_t failures = 0;
  while (std::getline(in, line)) {
    const size_t n = ++counts.cases;
    auto c = nlohmann::json::parse(line);
    if (skip && skip(c)) {
      ++counts.skipped;
      continue;
    }
    std::vector<int32_t> dec_ids;
    if (c.contains("t")) {
      const std::string text = c["t"].get<std::string>();
      auto e = tok.Encode(text, false), es = tok.Encode(text, true);
      auto want_e = c["e"].get<std::vector<int32_t>>(), want_es = c["es"].get<std::vector<int32_t>>();
      if ((e != want_e || es != want_es) && ++failures <= 10) {
        ADD_FAILURE() << path << ":" << n << " encode " << nlohmann::json(text).dump() << "\n got " << show(e)
                      << "\nwant " << show(want_e) << "\n got(special) " << show(es) << "\nwant(special) "
                      << show(want_es);
      }
      dec_ids = want_es;
    } else {
      dec_ids = c["ids"].get<std::vector<int32_t>>();
    }
    for (auto [key, skip_special] : {std::pair{"d", false}, std::pair{"ds", true}}) {
      if (!c.contains(key)) continue;  // HF panicked on this input
      std::string got = tok.Decode(dec_ids, skip_special), want = c[key].get<std::string>();
      if (got != want && ++failures <= 10) {
        ADD_FAILURE() << path << ":" << n << " decode(skip=" << skip_special << ") " << show(dec_ids) << "\n got "
                      << nlohmann::json(got).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
                      << "\nwant " << nlohmann::json(want).dump();
      }
    }
  }
  EXPECT_EQ(failures, 0u) << "of " << counts.cases << " cases in " << path;
  return counts;
}

}  // namespace gemmad::tokenizer::golden
