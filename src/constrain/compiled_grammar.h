// CompiledGrammar: a ConstraintSpec lowered to one byte-level pushdown automaton (a set of rules,
// each a small automaton over bytes, special-token terminals and references to other rules) plus,
// for every automaton state, the precomputed split of the vocabulary into tokens accepted,
// rejected and undecided regardless of the enclosing rules. Immutable after Compile() and shared
// by every Matcher of every request using the same spec (thread-safe to share).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "base/result.h"
#include "constrain/compile_budget.h"
#include "constrain/constraint_spec.h"
#include "constrain/vocabulary.h"

namespace gemmad::constrain {

namespace internal {
struct Program;  // the automaton and its per-state token caches (constrain/internal/program.h)
}  // namespace internal

struct CompileStats {
  int32_t num_rules = 0;
  int32_t num_states = 0;           // automaton states over all rules
  int32_t num_cached_states = 0;    // states with a token cache
  int64_t num_undecided_tokens = 0; // summed over cached states (checked at run time)
  size_t cache_size_bytes = 0;
  double compile_ms = 0;
};

class CompiledGrammar {
 public:
  const Vocabulary& vocabulary() const { return *vocab_; }
  const std::shared_ptr<const Vocabulary>& vocabulary_ptr() const { return vocab_; }
  const internal::Program& program() const { return *program_; }
  const CompileStats& stats() const { return stats_; }
  const std::string& cache_key() const { return cache_key_; }
  // The grammar as EBNF text (for debugging and error reports).
  const std::string& ebnf() const { return ebnf_; }

  // Internal constructor (use Compile()).
  CompiledGrammar(std::shared_ptr<const Vocabulary> vocab,
                  std::shared_ptr<const internal::Program> program, CompileStats stats,
                  std::string cache_key, std::string ebnf);

 private:
  std::shared_ptr<const Vocabulary> vocab_;
  std::shared_ptr<const internal::Program> program_;
  CompileStats stats_;
  std::string cache_key_;
  std::string ebnf_;
};

// Compiles `spec` for `vocab`. Errors are InvalidArgument with a message naming the place in the
// schema / regex / grammar and the problem, e.g.
//   "json_schema: at /properties/age: minimum must be a number, got \"3\""
//   "regex: at offset 4: unbalanced ')'"
//   "grammar: line 2 col 7: undefined rule 'valu'"
// or Unimplemented for a valid but unsupported feature ("json_schema: at /not: keyword 'not' is
// not supported"). A compilation over `budget` (time, memory, nesting) is InvalidArgument naming
// the bound and its flag; one whose budget.cancelled() turned true is Cancelled.
Result<std::shared_ptr<const CompiledGrammar>> Compile(const ConstraintSpec& spec,
                                                       std::shared_ptr<const Vocabulary> vocab,
                                                       const CompileBudget& budget = {});

}  // namespace gemmad::constrain
