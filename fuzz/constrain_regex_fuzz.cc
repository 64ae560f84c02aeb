// Fuzz target: arbitrary bytes as a whole-output regex, then matching the input itself against it.
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
  if (size > 512) return 0;
  gemmad::constrain::ConstraintSpec spec;
  spec.kind = gemmad::constrain::ConstraintKind::kRegex;
  spec.regex.assign(reinterpret_cast<const char*>(data), size);
  auto g = gemmad::constrain::Compile(spec, vocab, gemmad::fuzz::ConstrainFuzzBudget());
  if (!g.ok()) return 0;
  gemmad::constrain::Matcher m(*g);
  (void)m.AcceptBytes(spec.regex);
  (void)m.CanTerminate();
  (void)m.MinBytesToComplete();
  return 0;
}
