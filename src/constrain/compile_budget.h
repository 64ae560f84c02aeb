// CompileBudget: what one grammar compilation may spend before it is abandoned, so that a hostile
// schema, regex or EBNF (deeply nested, or wide enough to make thousands of rules) costs a bounded
// amount of time and memory and fails with a 400 instead of taking the server down (issue 29).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "base/status.h"

namespace gemmad::constrain {

struct CompileBudget {
  // CPU seconds of the compiling thread (not wall time: compilations running side by side on a
  // busy machine must not fail each other): --structured-outputs-compile-timeout.
  double timeout_s = 10.0;
  size_t max_bytes = size_t{512} << 20;      // --structured-outputs-max-compile-bytes
  int max_nesting = 64;                      // schema levels, regex groups, EBNF parentheses
  std::function<bool()> cancelled;           // e.g. the client went away; may be empty
};

// A running budget: the clock (the calling thread's CPU time) starts at construction; construct
// and Check() it on the compiling thread. Check() is cheap enough for inner loops that run per
// rule, per automaton position or per schema node (it reads the clock every 32nd call).
class BudgetMeter {
 public:
  explicit BudgetMeter(const CompileBudget& budget);

  // InvalidArgument naming the exceeded bound (and its flag) once time or `bytes_in_use` is over
  // budget; Cancelled once budget.cancelled() says so.
  Status Check(size_t bytes_in_use = 0) const;
  // InvalidArgument when `depth` is over budget.max_nesting ("<what> is nested too deeply").
  Status CheckNesting(int depth, const char* what) const;
  const CompileBudget& budget() const { return budget_; }

 private:
  CompileBudget budget_;
  int64_t deadline_ns_ = 0;     // thread CPU time
  mutable uint32_t calls_ = 0;  // clock reads are rationed
  mutable bool expired_ = false;
};

}  // namespace gemmad::constrain
