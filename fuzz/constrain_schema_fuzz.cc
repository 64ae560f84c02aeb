// Fuzz target: arbitrary bytes as a JSON schema (both whitespace modes), then a few matcher steps.
// Must never crash, hang or abort; errors are fine.
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
  if (size > 4096) return 0;
  gemmad::constrain::ConstraintSpec spec;
  spec.kind = gemmad::constrain::ConstraintKind::kJsonSchema;
  spec.json_schema.assign(reinterpret_cast<const char*>(data), size);
  spec.disable_any_whitespace = size % 2 == 1;
  auto g = gemmad::constrain::Compile(spec, vocab, gemmad::fuzz::ConstrainFuzzBudget());
  if (!g.ok()) return 0;
  gemmad::constrain::Matcher m(*g);
  std::vector<uint32_t> words(static_cast<size_t>(m.bitmask_words()));
  for (int step = 0; step < 16 && !m.IsTerminated(); ++step) {
    m.FillNextTokenBitmask(words);
    for (int32_t id = 0; id < vocab->size(); ++id) {
      if ((words[static_cast<size_t>(id) / 32] >> (id % 32)) & 1u) {
        if (!m.AcceptToken(id)) __builtin_trap();  // a masked-in token must be accepted
        break;
      }
    }
  }
  return 0;
}
