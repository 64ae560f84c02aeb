// Test helpers: a small vocabulary (every single byte, common JSON / Gemma fragments, special
// tokens) and a brute-force mask (AcceptToken + Rollback for every id) to check the fast one.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/check.h"
#include "constrain/compiled_grammar.h"
#include "constrain/matcher.h"
#include "constrain/vocabulary.h"

namespace gemmad::constrain::testing {

inline constexpr int32_t kEos = 1;
inline constexpr int32_t kToolCallOpen = 2;
inline constexpr int32_t kToolCallClose = 3;
inline constexpr int32_t kQuoteToken = 4;
inline constexpr int32_t kToolResponse = 5;

inline std::shared_ptr<const Vocabulary> SmallVocab() {
  std::vector<std::string> bytes = {"<pad>", "<eos>", "<|tool_call>", "<tool_call|>", "<|\"|>", "<|tool_response>"};
  std::vector<bool> special(bytes.size(), true);
  for (int b = 0; b < 256; ++b) {
    bytes.emplace_back(1, static_cast<char>(b));
    special.push_back(false);
  }
  for (const char* t : {"{\"", "\":", "\",", "\"}", "true", "false", "null", "  ", "\n", "\n  ", "ab", "abc", "12", "3.",
                        "\"a\"", ", ", ": ", "},", "]}", "call:", "get_weather{", "city:", "\"name\"", "name", "\": \"",
                        "\"\n", "\\n", "\\u00", "é", "\xC3", "\xA9", "日本", "1e5", "-0", "2024-", "01-", "T12:", "@x.",
                        "\",\"", "[\"", "\"]", "[1,", "{}", "[]", "x\"y", "\"}\n", "<|", "|>"}) {
    bytes.emplace_back(t);
    special.push_back(false);
  }
  bytes.emplace_back("");  // an empty ordinary token is never allowed
  special.push_back(false);
  auto v = Vocabulary::Create(std::move(bytes), std::move(special), {kEos, kToolResponse});
  GEMMAD_CHECK(v.ok(), "{}", v.status().ToString());
  return *v;
}

inline std::vector<uint32_t> FastMask(Matcher& m) {
  std::vector<uint32_t> w(static_cast<size_t>(m.bitmask_words()));
  m.FillNextTokenBitmask(w);
  return w;
}

inline std::vector<uint32_t> BruteMask(Matcher& m) {
  const int32_t n = m.grammar().vocabulary().size();
  std::vector<uint32_t> w(static_cast<size_t>(m.bitmask_words()), 0);
  for (int32_t id = 0; id < n; ++id) {
    if (m.AcceptToken(id)) {
      w[static_cast<size_t>(id) / 32] |= 1u << (id % 32);
      GEMMAD_CHECK(m.Rollback(1), "rollback");
    }
  }
  return w;
}

inline std::vector<int32_t> Allowed(const std::vector<uint32_t>& w) {
  std::vector<int32_t> out;
  for (size_t i = 0; i < w.size() * 32; ++i) {
    if (w[i / 32] >> (i % 32) & 1u) out.push_back(static_cast<int32_t>(i));
  }
  return out;
}

}  // namespace gemmad::constrain::testing
