// Program: a compiled grammar as one pushdown automaton. Every rule is a minimised DFA over
// bytes, special-token ids and rule references; a "position" is (rule, DFA state) numbered
// globally. A parse is a set of stacks; a stack's top is a position and the frames below hold the
// positions to return to. Invariant: every position can still complete its rule (unproductive
// states are pruned), so a live stack can always be completed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "constrain/compile_budget.h"
#include "constrain/internal/grammar_ast.h"

namespace gemmad::constrain::internal {

struct SymEdge {
  int32_t sym = -1;  // rule id or token id
  int32_t to = -1;   // global position
};

// Tokens accepted from a position whatever the enclosing rules; shared by positions that behave
// alike within their rule. Small sets are id lists, large ones bitmasks ([bitmask_words]).
struct LocalMask {
  std::vector<int32_t> ids;    // accepted ids, ascending (when bits is empty)
  std::vector<uint32_t> bits;  // accepted ids as a bitmask (when non-empty)
};

// What FillNextTokenBitmask needs per position with byte edges.
struct PositionMask {
  int32_t local = -1;                   // index into Program::local_masks
  std::vector<int32_t> extra_accepted;  // accepted once the enclosing rules are known statically
  std::vector<int32_t> undecided;       // checked against the real stack, in trie (byte) order
  std::vector<uint8_t> undecided_lcp;   // common prefix length with the previous undecided token
};

struct Program {
  int32_t root_rule = 0;
  std::vector<std::string> rule_names;
  std::vector<int32_t> rule_start;                 // position of each rule's start state
  std::vector<uint8_t> rule_nullable;
  std::vector<std::vector<int32_t>> return_sites;  // per rule: positions continued after it

  std::vector<int32_t> pos_rule;
  std::vector<uint8_t> pos_final;      // the rule may end here
  std::vector<uint8_t> pos_has_bytes;  // has at least one byte edge
  std::vector<int32_t> pos_trans;      // offset into trans for the position's byte classes
  std::vector<std::array<uint8_t, 256>> rule_byte_class;
  std::vector<int32_t> rule_num_classes;
  std::vector<uint8_t> rule_pure;      // no calls and no special-token edges
  std::vector<int32_t> trans;          // target position or -1
  std::vector<int32_t> ref_begin;      // CSR over refs, size num_positions + 1
  std::vector<SymEdge> refs;
  std::vector<int32_t> tok_begin;      // CSR over special-token edges
  std::vector<SymEdge> toks;
  std::vector<int32_t> min_complete;   // fewest bytes (tokens count 1) to reach the rule's end
  std::vector<int32_t> local_key;      // positions with equal key share a LocalMask (-1: none)
  int32_t num_local_keys = 0;

  std::vector<LocalMask> local_masks;
  std::vector<PositionMask> pos_masks;  // indexed by position (empty entries for no bytes)

  int32_t num_positions() const { return static_cast<int32_t>(pos_rule.size()); }
  // Bytes the tables above hold, masks excluded (what the compile budget counts before the masks).
  size_t TableBytes() const;
  int32_t Step(int32_t pos, uint8_t b) const {
    const auto r = static_cast<size_t>(pos_rule[static_cast<size_t>(pos)]);
    return trans[static_cast<size_t>(pos_trans[static_cast<size_t>(pos)] + rule_byte_class[r][b])];
  }
};

struct ProgramLimits {
  const BudgetMeter* meter = nullptr;  // time, memory and cancellation; null: unbounded
  size_t max_states_per_rule = 200000;
  size_t max_total_states = 1000000;
  int32_t lookahead_bytes = 48;  // longest token: positions equal up to this many bytes share masks
};

// Lowers every rule of `ast` and links them. Errors: the root can match nothing, left recursion
// (names the cycle), size limits.
Result<Program> BuildProgram(const GrammarAst& ast, const ProgramLimits& limits);

}  // namespace gemmad::constrain::internal
