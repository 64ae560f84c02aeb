// The coarsest partition of a rule DFA's states that refines a given one and is stable under its
// transitions: two states stay together only when, for every symbol (byte, rule reference, token),
// both lack an edge or both have one into the same block. Valmari and Lehtinen's refinement for
// DFAs with partial transition functions ("Efficient minimization of DFAs with partial transition
// functions", STACS 2008): O(m log n) in the m transitions, where the Moore rounds of Minimize
// take one round per state on a chain (a literal repeated {4,41} is thousands of states long, and
// the rounds were quadratic in it). Written here because the DFAs are gemmad's own structure (byte
// ranges split into the intervals all edges agree on, plus rule and token symbols): see
// docs/adr/005-dfa-minimisation.md.
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "constrain/compile_budget.h"
#include "constrain/internal/automaton.h"

namespace gemmad::constrain::internal {

// `classes[s]` in [0, num_classes) is state s's initial block; the result numbers the refined
// blocks 0..k-1 (in no particular order). Fails only on `meter`'s budget.
Result<std::vector<int32_t>> RefinePartition(const Dfa& dfa, const std::vector<int32_t>& classes,
                                             int32_t num_classes, const BudgetMeter* meter = nullptr);

}  // namespace gemmad::constrain::internal
