// SumInRankOrder: a left-to-right float sum over ranks, element by element (no reassociation:
// the build never uses -ffast-math, and each element's additions happen in rank order).
#include "dist/rank_sum.h"

#include <algorithm>

#include "base/check.h"

namespace gemmad::dist {

void SumInRankOrder(std::span<const float* const> per_rank, std::span<float> out) {
  GEMMAD_CHECK(!per_rank.empty(), "SumInRankOrder needs at least one rank");
  const size_t n = out.size();
  if (n == 0) return;
  // Rank by rank over the whole row (vectorises); element i still sees x_0 + x_1 + ... in order.
  if (out.data() != per_rank[0]) std::copy_n(per_rank[0], n, out.data());
  for (size_t r = 1; r < per_rank.size(); ++r) {
    const float* x = per_rank[r];
    for (size_t i = 0; i < n; ++i) out[i] += x[i];
  }
}

}  // namespace gemmad::dist
