// VLLM_CPU_OMP_THREADS_BIND as vLLM's CPU backend reads it: the CPUs each tensor-parallel rank's
// threads run on, one CPU list per rank separated by '|' ("0-31|32-63"; a list is "0-3,8,10-11"),
// or "auto" (the launcher's binding: one NUMA node per rank where there are enough) or "nobind" /
// "all" (no binding). gemmad binds the whole rank process, so its thread pool and the memory its
// threads touch first stay on those CPUs; the pool then has one thread per listed CPU.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::dist {

// "0-3,8" -> {0, 1, 2, 3, 8} (ascending, no duplicates). InvalidArgument naming the bad part.
Result<std::vector<int>> ParseCpuList(std::string_view text);

// The CPUs of `rank` from the spec; nullopt for "", "auto", "nobind" and "all". InvalidArgument when
// the number of lists is not `size` or a list is malformed.
Result<std::optional<std::vector<int>>> RankCpus(std::string_view spec, int rank, int size);

}  // namespace gemmad::dist
