#include "model/gemma4/tp_step.h"

#include <gtest/gtest.h>

namespace gemmad::model::gemma4 {
namespace {

TpStep Example(std::vector<float>* rows) {
  TpStep s;
  s.block_size = 16;
  s.kv_dtype = tensor::DType::kF32;
  s.num_blocks = {7, 9};
  s.record_hidden = true;
  s.batch.token_ids = {5, 6, 7, 8};
  s.batch.positions = {0, 1, 2, 40};
  SequenceInBatch a{0, 3, 0, {2}, {{0}, {1}}, {{1, 3}}};
  SequenceInBatch b{3, 1, 40, {0}, {{2, 3, 4}, {5}}, {}};
  s.batch.sequences = {a, b};
  rows->assign(2 * 4, 0.5f);
  s.batch.embedding_overrides = {{1, 2, rows->data()}};
  return s;
}

TEST(TpStepTest, RoundTripsEveryField) {
  std::vector<float> rows;
  const TpStep want = Example(&rows);
  const std::vector<uint8_t> bytes = EncodeTpStep(want, 4);
  auto got = DecodeTpStep(bytes, 4);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_FALSE(got->stop);
  EXPECT_EQ(got->block_size, 16);
  EXPECT_EQ(got->kv_dtype, tensor::DType::kF32);
  EXPECT_EQ(got->num_blocks, want.num_blocks);
  EXPECT_TRUE(got->record_hidden);
  EXPECT_EQ(got->batch.token_ids, want.batch.token_ids);
  EXPECT_EQ(got->batch.positions, want.batch.positions);
  ASSERT_EQ(got->batch.sequences.size(), 2u);
  EXPECT_EQ(got->batch.sequences[0].block_tables, want.batch.sequences[0].block_tables);
  EXPECT_EQ(got->batch.sequences[0].bidirectional_spans[0].end, 3);
  EXPECT_EQ(got->batch.sequences[1].num_computed_tokens, 40);
  EXPECT_EQ(got->batch.sequences[1].logit_offsets, want.batch.sequences[1].logit_offsets);
  ASSERT_EQ(got->batch.embedding_overrides.size(), 1u);
  EXPECT_EQ(got->batch.embedding_overrides[0].row, 1);
  EXPECT_EQ(std::vector<float>(got->batch.embedding_overrides[0].data, got->batch.embedding_overrides[0].data + 8),
            rows);
  EXPECT_EQ(EncodeTpStep(*got, 4), bytes);
  auto stop = DecodeTpStep(EncodeTpStop(), 4);
  ASSERT_TRUE(stop.ok());
  EXPECT_TRUE(stop->stop);
}

TEST(TpStepTest, TruncatedOrPaddedMessagesAreErrors) {
  std::vector<float> rows;
  const std::vector<uint8_t> bytes = EncodeTpStep(Example(&rows), 4);
  for (size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(DecodeTpStep(std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(n)), 4).ok()) << n;
  }
  std::vector<uint8_t> longer = bytes;
  longer.push_back(0);
  EXPECT_FALSE(DecodeTpStep(longer, 4).ok());
  EXPECT_FALSE(DecodeTpStep(bytes, 5).ok());  // override rows of another width
}

}  // namespace
}  // namespace gemmad::model::gemma4
