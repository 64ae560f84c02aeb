// Per-rule automata: an NFA built from a rule body (Thompson construction, repetitions expanded),
// its determinisation, product (intersection) and minimisation. Symbols are byte ranges, rule
// references and special-token ids; a reference edge means "run that rule, then continue here".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "base/result.h"
#include "constrain/internal/grammar_ast.h"

namespace gemmad::constrain::internal {

enum class EdgeKind : uint8_t { kEps, kByte, kRef, kToken };

struct NfaEdge {
  EdgeKind kind = EdgeKind::kEps;
  uint8_t lo = 0;
  uint8_t hi = 0;
  int32_t sym = -1;  // rule id (kRef) or token id (kToken)
  int32_t to = -1;
};

struct Nfa {
  std::vector<std::vector<NfaEdge>> out;
  std::vector<uint8_t> final;
  int32_t start = 0;
  int32_t AddState() {
    out.emplace_back();
    final.push_back(0);
    return static_cast<int32_t>(out.size() - 1);
  }
  int32_t num_states() const { return static_cast<int32_t>(out.size()); }
};

struct DfaByteEdge {
  uint8_t lo = 0;
  uint8_t hi = 0;
  int32_t to = -1;
};
struct DfaSymEdge {
  int32_t sym = -1;
  int32_t to = -1;
};
struct DfaState {
  bool final = false;
  std::vector<DfaByteEdge> bytes;   // sorted, disjoint
  std::vector<DfaSymEdge> refs;     // sorted by sym, one per sym
  std::vector<DfaSymEdge> tokens;   // sorted by sym, one per sym
};
struct Dfa {
  std::vector<DfaState> states;  // state 0 is the start
  int32_t num_states() const { return static_cast<int32_t>(states.size()); }
  bool HasSymbols() const;       // any ref or token edge
};

// Thompson NFA for `body`; errors when it would exceed `max_states` or an intersection operand
// references a rule or token.
Result<Nfa> BuildNfa(const GrammarAst& ast, ExprId body, size_t max_states);

// Subset construction; errors when the DFA would exceed `max_states` or `meter`'s budget (when
// given: every function here that can run long checks it as it goes).
Result<Dfa> Determinize(const Nfa& nfa, size_t max_states, const BudgetMeter* meter = nullptr);

// Product automaton over bytes (both operands must have no ref/token edges).
Result<Dfa> IntersectDfa(const Dfa& a, const Dfa& b, size_t max_states, const BudgetMeter* meter = nullptr);

// The complement over bytes (every byte string not matched); `dfa` must have no symbols.
Dfa ComplementDfa(const Dfa& dfa);

// Moore-style minimisation; states renumbered breadth-first from the start (a canonical form:
// equal languages over equal symbols give identical results). Unreachable states are dropped.
// When `lookahead_classes` is non-null it receives, per returned state, the class of the state
// after `lookahead` refinement rounds: states with equal class accept and end on exactly the same
// strings of at most `lookahead` symbols.
Result<Dfa> Minimize(const Dfa& dfa, int32_t lookahead, std::vector<int32_t>* lookahead_classes,
                     const BudgetMeter* meter = nullptr);

// A hash of the canonical structure (finality, edges, symbols).
uint64_t StructureHash(const Dfa& dfa);

}  // namespace gemmad::constrain::internal
