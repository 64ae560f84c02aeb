// The compile budget of the constrain_* fuzz targets: the server's own bounds (nesting 64, a CPU-time
// limit) with 4 MiB of compile memory instead of 512 MiB. A hostile grammar then reaches the same
// "over budget" error path as in the server, but after tens of milliseconds instead of seconds, so a
// campaign's executions go to the compiler's many paths rather than to a few huge automata (the
// server's bounds themselves are tested in src/constrain/compile_budget_test.cc and by the
// serving tests). A byte bound rather than a time bound keeps each input's outcome deterministic.
#pragma once

#include <cstddef>

#include "constrain/compile_budget.h"

namespace gemmad::fuzz {

inline constrain::CompileBudget ConstrainFuzzBudget() {
  constrain::CompileBudget b;
  b.max_bytes = size_t{4} << 20;
  b.timeout_s = 10.0;  // the server's default; the byte bound ends hostile inputs first
  return b;
}

}  // namespace gemmad::fuzz
