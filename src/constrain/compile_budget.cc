// BudgetMeter (see compile_budget.h).
#include "constrain/compile_budget.h"

#include <fmt/format.h>
#include <time.h>

namespace gemmad::constrain {
namespace {

int64_t ThreadCpuNanos() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

BudgetMeter::BudgetMeter(const CompileBudget& budget)
    : budget_(budget), deadline_ns_(ThreadCpuNanos() + static_cast<int64_t>(budget.timeout_s * 1e9)) {}

Status BudgetMeter::Check(size_t bytes_in_use) const {
  if (bytes_in_use > budget_.max_bytes) {
    return InvalidArgumentError(fmt::format(
        "compiling the constraint needs more than {:.1f} MiB (--structured-outputs-max-compile-bytes); simplify it",
        static_cast<double>(budget_.max_bytes) / (1 << 20)));
  }
  if (!expired_ && calls_++ % 32 == 0) expired_ = ThreadCpuNanos() > deadline_ns_;
  if (expired_) {
    return InvalidArgumentError(fmt::format(
        "compiling the constraint took more than {:g} s of CPU time (--structured-outputs-compile-timeout); simplify it",
        budget_.timeout_s));
  }
  if (budget_.cancelled && budget_.cancelled()) return CancelledError("the client went away");
  return OkStatus();
}

Status BudgetMeter::CheckNesting(int depth, const char* what) const {
  if (depth <= budget_.max_nesting) return OkStatus();
  return InvalidArgumentError(fmt::format("{} is nested more than {} levels deep (--structured-outputs-max-nesting)",
                                          what, budget_.max_nesting));
}

}  // namespace gemmad::constrain
