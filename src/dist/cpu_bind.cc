// VLLM_CPU_OMP_THREADS_BIND parsing (cpu_bind.h).
#include "dist/cpu_bind.h"

#include <algorithm>
#include <charconv>
#include <string>

#include <fmt/format.h>

namespace gemmad::dist {
namespace {

constexpr int kMaxCpu = 1 << 16;

bool ParseInt(std::string_view s, int* out) {
  if (s.empty()) return false;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
  return ec == std::errc() && end == s.data() + s.size() && *out >= 0 && *out < kMaxCpu;
}

std::vector<std::string_view> Split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

}  // namespace

Result<std::vector<int>> ParseCpuList(std::string_view text) {
  std::vector<int> cpus;
  for (std::string_view part : Split(text, ',')) {
    const size_t dash = part.find('-');
    int lo = 0, hi = 0;
    const bool ok = dash == std::string_view::npos
                        ? ParseInt(part, &lo) && (hi = lo, true)
                        : ParseInt(part.substr(0, dash), &lo) && ParseInt(part.substr(dash + 1), &hi) && lo <= hi;
    if (!ok) {
      return InvalidArgumentError(fmt::format("VLLM_CPU_OMP_THREADS_BIND: '{}' in '{}' is not a CPU id or range",
                                              part, text));
    }
    for (int c = lo; c <= hi; ++c) cpus.push_back(c);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

Result<std::optional<std::vector<int>>> RankCpus(std::string_view spec, int rank, int size) {
  if (spec.empty() || spec == "auto" || spec == "nobind" || spec == "all") return std::optional<std::vector<int>>();
  const std::vector<std::string_view> lists = Split(spec, '|');
  if (static_cast<int>(lists.size()) != size) {
    return InvalidArgumentError(fmt::format(
        "VLLM_CPU_OMP_THREADS_BIND='{}' has {} CPU lists for {} tensor-parallel ranks (one per rank, separated by '|')",
        spec, lists.size(), size));
  }
  GEMMAD_ASSIGN_OR_RETURN(std::vector<int> cpus, ParseCpuList(lists[static_cast<size_t>(rank)]));
  return std::optional<std::vector<int>>(std::move(cpus));
}

}  // namespace gemmad::dist
