// Fuzz target: arbitrary bytes as an EBNF grammar; compile, then a few steps of the first allowed
// token. Must never crash or hang.
// gemmad-fuzz-libs: gemmad_constrain
#include <cstddef>
#include <cstdint>
#include <string>

#include "constrain/compiled_grammar.h"
#include "constrain/matcher.h"
#include "constrain/testing/small_vocab.h"
#include "constrain_fuzz_budget.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static auto vocab = gemmad::constrain::testing::SmallVocab();
  if (size > 2048) return 0;
  gemmad::constrain::ConstraintSpec spec;
  spec.kind = gemmad::constrain::ConstraintKind::kGrammar;
  spec.grammar.assign(reinterpret_cast<const char*>(data), size);
  auto g = gemmad::constrain::Compile(spec, vocab, gemmad::fuzz::ConstrainFuzzBudget());
  if (!g.ok()) return 0;
  gemmad::constrain::Matcher m(*g);
  std::vector<uint32_t> words(static_cast<size_t>(m.bitmask_words()));
  for (int step = 0; step < 8; ++step) {
    m.FillNextTokenBitmask(words);
    int32_t pick = -1;
    for (int32_t id = 0; id < vocab->size() && pick < 0; ++id) {
      if ((words[static_cast<size_t>(id) / 32] >> (id % 32)) & 1u) pick = id;
    }
    if (pick < 0 || !m.AcceptToken(pick)) break;
  }
  return 0;
}
