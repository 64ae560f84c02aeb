// SumInRankOrder: the one reduction every Communicator uses, so that a sum has the same bits on
// every rank and in every backend: out[i] = ((x_0[i] + x_1[i]) + x_2[i]) + ... in rank order.
#pragma once

#include <span>

namespace gemmad::dist {

// per_rank[r] points at rank r's n = out.size() floats ([num_ranks][n]); out may be per_rank[0]
// itself but must not overlap any other rank's floats.
void SumInRankOrder(std::span<const float* const> per_rank, std::span<float> out);

}  // namespace gemmad::dist
