// GrammarAst: the one grammar form every front end (JSON schema, regex, EBNF, choice, tool calls)
// produces: named rules whose bodies are expression trees over bytes, Unicode code-point classes,
// special-token terminals and references to rules. Lowered to byte automata by nfa.h / dfa.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "constrain/compile_budget.h"

namespace gemmad::constrain::internal {

using ExprId = int32_t;

enum class ExprKind : uint8_t {
  kEmpty,      // matches ""
  kBytes,      // the literal byte string `bytes`
  kByteClass,  // one byte in `ranges` (values 0..255)
  kCharClass,  // one code point in `ranges`, UTF-8 encoded (surrogates never match)
  kSeq,        // children in order
  kAlt,        // any one child
  kRepeat,     // children[0] repeated min..max times (max < 0: unbounded)
  kRuleRef,    // the rule `ref`
  kToken,      // the single special token id `ref`
  kIntersect,  // strings matched by every child (children must not reference rules or tokens)
  kNothing,    // matches no string at all (e.g. an empty class)
  kExcept,     // children[0] minus children[1] (both must not reference rules or tokens)
};

struct CodeRange {
  uint32_t lo = 0;
  uint32_t hi = 0;
  friend bool operator==(const CodeRange&, const CodeRange&) = default;
};

// Sorts and merges overlapping/adjacent ranges.
std::vector<CodeRange> NormalizeRanges(std::vector<CodeRange> ranges);
// Complement within [0, max_value] of normalised ranges.
std::vector<CodeRange> ComplementRanges(const std::vector<CodeRange>& ranges, uint32_t max_value);

struct Expr {
  ExprKind kind = ExprKind::kEmpty;
  std::string bytes;
  std::vector<CodeRange> ranges;
  std::vector<ExprId> children;
  int32_t min = 0;
  int32_t max = -1;
  int32_t ref = -1;
};

struct Rule {
  std::string name;
  ExprId body = -1;
};

class GrammarAst {
 public:
  ExprId Empty();
  ExprId Nothing();
  ExprId Bytes(std::string_view bytes);
  ExprId ByteClass(std::vector<CodeRange> ranges);
  ExprId CharClass(std::vector<CodeRange> ranges);
  ExprId Seq(std::vector<ExprId> children);
  ExprId Alt(std::vector<ExprId> children);
  ExprId Repeat(ExprId child, int32_t min, int32_t max);
  ExprId Optional(ExprId child) { return Repeat(child, 0, 1); }
  ExprId Star(ExprId child) { return Repeat(child, 0, -1); }
  ExprId Plus(ExprId child) { return Repeat(child, 1, -1); }
  ExprId Ref(int32_t rule);
  ExprId Token(int32_t token_id);
  ExprId Intersect(std::vector<ExprId> children);
  ExprId Except(ExprId universe, ExprId excluded);

  // Declares a rule (body set later). Names need not be unique; FindRule returns the first.
  int32_t AddRule(std::string name);
  void SetBody(int32_t rule, ExprId body) { rules_[static_cast<size_t>(rule)].body = body; }
  int32_t FindRule(std::string_view name) const;
  // A rule name not used yet, derived from `base`.
  std::string FreshName(std::string_view base) const;

  const Expr& expr(ExprId id) const { return exprs_[static_cast<size_t>(id)]; }
  const std::vector<Rule>& rules() const { return rules_; }
  int32_t num_rules() const { return static_cast<int32_t>(rules_.size()); }
  int32_t root() const { return root_; }
  void set_root(int32_t rule) { root_ = rule; }

  // EBNF rendering (debugging; special tokens print as <[id]>).
  std::string ToEbnf() const;

  // The budget the front ends building this grammar spend (time, memory, nesting); the default
  // budget, started at construction, unless set_budget replaces it.
  void set_budget(const CompileBudget& budget) { meter_ = BudgetMeter(budget); }
  const BudgetMeter& meter() const { return meter_; }
  // Time and cancellation, with the expressions built so far as the memory in use.
  Status CheckBudget() const { return meter_.Check(exprs_.size() * sizeof(Expr)); }

 private:
  ExprId Add(Expr e);
  void Print(ExprId id, std::string& out, int parent_prec) const;
  std::vector<Expr> exprs_;
  std::vector<Rule> rules_;
  int32_t root_ = 0;
  BudgetMeter meter_{CompileBudget{}};
};

}  // namespace gemmad::constrain::internal
