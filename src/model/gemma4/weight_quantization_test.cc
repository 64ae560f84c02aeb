// GroupInt4Matrices: a source's int4 pairs regrouped into rows of 16 in place where the backend reads
// them faster, never the bytes of a gather table (a tied LM head sharing the embedding's Q4_0
// bytes), nor matrices of another shape or rank.
#include "model/gemma4/weight_quantization.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/ops.h"
#include "tensor/q4_groups.h"

namespace gemmad::model::gemma4 {
namespace {

std::vector<uint8_t> Bytes(int64_t rows, int64_t in, uint8_t seed) {
  std::vector<uint8_t> b(tensor::RowBytes(tensor::DType::kQ4_0, in) * static_cast<size_t>(rows));
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<uint8_t>(i * 37 + seed);
  return b;
}

TEST(GroupInt4Matrices, RegroupsStreamedPairsButNotGatherTables) {
  const int64_t in = 64;
  auto q = Bytes(32, in, 1), odd = Bytes(18, in, 2), embed = Bytes(48, in, 3);
  const auto q_before = q, odd_before = odd, embed_before = embed;
  Weights w;
  w.layers.resize(1);
  w.layers[0].q_proj = {q.data(), tensor::DType::kQ4_0, tensor::Shape{32, in}};
  w.layers[0].o_proj = {odd.data(), tensor::DType::kQ4_0, tensor::Shape{18, in}};  // not whole groups
  w.embed = {embed.data(), tensor::DType::kQ4_0, tensor::Shape{48, in}};
  w.lm_head = w.embed;  // tied: the gather reads these bytes as pairs
  const bool groups = kernels::Int4WeightDType({}, tensor::Shape{32, in}) == tensor::DType::kQ4_0x16;
  EXPECT_EQ(GroupInt4Matrices({}, &w), groups ? 1 : 0);
  EXPECT_EQ(w.lm_head.dtype, tensor::DType::kQ4_0);
  EXPECT_EQ(embed, embed_before);
  EXPECT_EQ(w.layers[0].o_proj.dtype, tensor::DType::kQ4_0);
  EXPECT_EQ(odd, odd_before);
  if (groups) {
    EXPECT_EQ(w.layers[0].q_proj.dtype, tensor::DType::kQ4_0x16);
    std::vector<uint8_t> want(q.size());
    tensor::GroupQ4_0Rows(q_before.data(), 32, in, want.data());
    EXPECT_EQ(q, want);
  } else {
    EXPECT_EQ(q, q_before);
  }
  // A second call finds nothing left to regroup.
  EXPECT_EQ(GroupInt4Matrices({}, &w), 0);
}

}  // namespace
}  // namespace gemmad::model::gemma4
