// Precomputation of the per-position token masks of a Program (xgrammar's "adaptive token mask
// cache" idea, implemented from scratch): for each position, the ordinary tokens are split into
// accepted whatever the enclosing rules (LocalMask, shared between positions that behave alike),
// accepted given the statically known callers (extra_accepted), undecided (checked at run time
// against the real stack) and rejected.
#pragma once

#include "base/status.h"
#include "constrain/compile_budget.h"
#include "constrain/internal/program.h"
#include "constrain/vocabulary.h"

namespace gemmad::constrain::internal {

// Fills program.local_masks and program.pos_masks for `vocab`, within `meter`'s budget (time,
// cancellation, and the masks' bytes plus `base_bytes` already in use); null: unbounded.
Status BuildMasks(Program& program, const Vocabulary& vocab, const BudgetMeter* meter = nullptr,
                  size_t base_bytes = 0);

}  // namespace gemmad::constrain::internal
