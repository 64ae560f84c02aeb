// GroupInt4Matrices: a source's int4 pairs regrouped into rows of 16 in place where the backend reads
// them faster: a tied LM head together with its embedding (the gather reads either layout), never a
// vocabulary slice of the embedding's bytes, nor matrices of another shape or rank.
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

std::vector<uint8_t> Grouped(const std::vector<uint8_t>& pairs, int64_t rows, int64_t in) {
  std::vector<uint8_t> out(pairs.size());
  tensor::GroupQ4_0Rows(pairs.data(), rows, in, out.data());
  return out;
}

bool GroupsHere() { return kernels::Int4WeightDType({}, tensor::Shape{32, 64}) == tensor::DType::kQ4_0x16; }

TEST(GroupInt4Matrices, RegroupsStreamedPairsAndATiedHeadWithItsEmbedding) {
  const int64_t in = 64;
  auto q = Bytes(32, in, 1), odd = Bytes(18, in, 2), embed = Bytes(48, in, 3);
  const auto q_before = q, odd_before = odd, embed_before = embed;
  Weights w;
  w.layers.resize(1);
  w.layers[0].q_proj = {q.data(), tensor::DType::kQ4_0, tensor::Shape{32, in}};
  w.layers[0].o_proj = {odd.data(), tensor::DType::kQ4_0, tensor::Shape{18, in}};  // not whole groups
  w.embed = {embed.data(), tensor::DType::kQ4_0, tensor::Shape{48, in}};
  w.lm_head = w.embed;  // tied
  const bool groups = GroupsHere();
  EXPECT_EQ(GroupInt4Matrices({}, &w), groups ? 2 : 0);
  const tensor::DType want = groups ? tensor::DType::kQ4_0x16 : tensor::DType::kQ4_0;
  EXPECT_EQ(w.layers[0].q_proj.dtype, want);
  EXPECT_EQ(w.lm_head.dtype, want);
  EXPECT_EQ(w.embed.dtype, want);
  EXPECT_EQ(q, groups ? Grouped(q_before, 32, in) : q_before);
  EXPECT_EQ(embed, groups ? Grouped(embed_before, 48, in) : embed_before);
  EXPECT_EQ(w.layers[0].o_proj.dtype, tensor::DType::kQ4_0);
  EXPECT_EQ(odd, odd_before);
  EXPECT_EQ(GroupInt4Matrices({}, &w), 0);  // nothing left to regroup
}

TEST(GroupInt4Matrices, AVocabularySliceOfTheEmbeddingStaysInPairs) {
  const int64_t in = 64;
  auto embed = Bytes(64, in, 4);
  const auto embed_before = embed;
  Weights w;
  w.embed = {embed.data(), tensor::DType::kQ4_0, tensor::Shape{64, in}};
  w.lm_head = {embed.data() + tensor::RowBytes(tensor::DType::kQ4_0, in) * 32, tensor::DType::kQ4_0,
               tensor::Shape{32, in}};  // a -tp rank's half of the vocabulary
  EXPECT_EQ(GroupInt4Matrices({}, &w), 0);
  EXPECT_EQ(w.lm_head.dtype, tensor::DType::kQ4_0);
  EXPECT_EQ(w.embed.dtype, tensor::DType::kQ4_0);
  EXPECT_EQ(embed, embed_before);
}

}  // namespace
}  // namespace gemmad::model::gemma4
