// Self-consistency of the forward pass on random T1/T2/T3 and Gemma 3 G1 checkpoints (written torch-free by
// WriteRandomCheckpoint, fp32 and bf16): incremental decoding, chunked prefill, multi-sequence
// batches, a thread pool and a minimal recycled block pool all give the prefill logits; invalid
// batches are rejected with InvalidArgument.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <numeric>

#include "base/rng.h"
#include "kernels/thread_pool.h"
#include "model/gemma4/model.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "sequence_runner.h"

namespace gemmad::model::gemma4 {
namespace {

using testing::SequenceRunner;
namespace fs = std::filesystem;

std::vector<int32_t> RandomIds(uint64_t seed, int n, int vocab) {
  Rng rng(seed);
  std::vector<int32_t> ids(static_cast<size_t>(n));
  for (auto& id : ids) id = static_cast<int32_t>(rng.Below(static_cast<uint64_t>(vocab)));
  return ids;
}

double MaxAbsDiff(const std::vector<float>& a, const float* b, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) m = std::max(m, static_cast<double>(std::fabs(a[i] - b[i])));
  return m;
}

struct Case {
  std::string preset;
  tensor::DType dtype;
};

class ForwardConsistencyTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const Case& c = GetParam();
    dir_ = fs::path(::testing::TempDir()) /
           ("gemmad_fc_" + c.preset + "_" + std::string(tensor::DTypeName(c.dtype)) + "_" + std::to_string(getpid()));
    auto preset = FindPreset(c.preset);
    ASSERT_TRUE(preset.ok()) << preset.status().ToString();
    RandomCheckpointOptions opt;
    opt.dtype = c.dtype;
    opt.seed = 7;
    ASSERT_TRUE(WriteRandomCheckpoint(dir_.string(), preset->config, opt).ok());
    auto m = Model::Load(dir_.string());
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    model_ = std::move(m).value();
    vocab_ = static_cast<int>(model_->config().vocab_size);
    ids_ = RandomIds(3, 40, vocab_);
    SequenceRunner r(*model_, 4, 64);
    prefill_ = r.Step(0, ids_, true);
  }
  void TearDown() override { fs::remove_all(dir_); }
  // fp32 steps agree to rounding; bf16 KV caches too (every path reads the same cached K/V).
  double Tol() const { return 2e-5; }

  fs::path dir_;
  std::unique_ptr<Model> model_;
  int vocab_ = 0;
  std::vector<int32_t> ids_;
  std::vector<float> prefill_;  // [40, V]
};

TEST_P(ForwardConsistencyTest, IncrementalDecodingEqualsPrefill) {
  SequenceRunner r(*model_, 4, 64);
  std::vector<float> got = r.Step(0, std::vector<int32_t>(ids_.begin(), ids_.begin() + 5), true);
  for (size_t t = 5; t < ids_.size(); ++t) {
    std::vector<float> row = r.Step(0, {ids_[t]}, false);
    got.insert(got.end(), row.begin(), row.end());
  }
  ASSERT_EQ(got.size(), prefill_.size());
  EXPECT_LE(MaxAbsDiff(got, prefill_.data(), got.size()), Tol());
}

TEST_P(ForwardConsistencyTest, KvSharedLayersRunOnlyForLogitRows) {
  // With logits for a few rows only, the KV-shared layers (T1, T3) compute just those rows; the
  // result must equal the all-rows prefill, and later steps must see an intact cache.
  SequenceRunner r(*model_, 4, 64);
  ForwardBatch batch = SingleSequenceBatch({ids_.begin(), ids_.begin() + 30}, 0, {}, false);
  batch.sequences[0].logit_offsets = {3, 17, 29};
  ASSERT_TRUE(r.blocks().Prepare(0, 0, 30));
  batch.sequences[0].block_tables = r.blocks().tables(0);
  const int64_t V = vocab_;
  std::vector<float> got(static_cast<size_t>(3 * V));
  ASSERT_TRUE(model_->Forward({}, batch, r.cache(), {got.data(), tensor::DType::kF32, tensor::Shape{3, V}}).ok());
  int k = 0;
  for (int row : {3, 17, 29}) {
    EXPECT_LE(MaxAbsDiff(std::vector<float>(got.begin() + k * V, got.begin() + (k + 1) * V), prefill_.data() + row * V, V),
              Tol()) << "row " << row;
    ++k;
  }
  // No logits at all (a middle prefill chunk), then the rest.
  ForwardBatch mid = SingleSequenceBatch({ids_.begin() + 30, ids_.begin() + 35}, 30, {}, false);
  mid.sequences[0].logit_offsets.clear();
  ASSERT_TRUE(r.blocks().Prepare(0, 30, 5));
  mid.sequences[0].block_tables = r.blocks().tables(0);
  ASSERT_TRUE(model_->Forward({}, mid, r.cache(), {nullptr, tensor::DType::kF32, tensor::Shape{0, V}}).ok());
  ForwardBatch rest = SingleSequenceBatch({ids_.begin() + 35, ids_.end()}, 35, {}, true);
  ASSERT_TRUE(r.blocks().Prepare(0, 35, 5));
  rest.sequences[0].block_tables = r.blocks().tables(0);
  std::vector<float> tail(static_cast<size_t>(5 * V));
  ASSERT_TRUE(model_->Forward({}, rest, r.cache(), {tail.data(), tensor::DType::kF32, tensor::Shape{5, V}}).ok());
  EXPECT_LE(MaxAbsDiff(tail, prefill_.data() + 35 * V, tail.size()), Tol());
}

TEST_P(ForwardConsistencyTest, ChunkedPrefillWithThreadsEqualsPrefill) {
  kernels::ThreadPool pool(2);
  SequenceRunner r(*model_, 3, 64, kernels::ExecContext{&pool});
  std::vector<float> got;
  for (size_t b = 0; b < ids_.size(); b += 7) {
    std::vector<int32_t> chunk(ids_.begin() + b, ids_.begin() + std::min(ids_.size(), b + 7));
    std::vector<float> rows = r.Step(0, chunk, true);
    got.insert(got.end(), rows.begin(), rows.end());
  }
  EXPECT_LE(MaxAbsDiff(got, prefill_.data(), got.size()), Tol());
}

TEST_P(ForwardConsistencyTest, SeveralSequencesInOneBatch) {
  // Sequence 0: the 40 ids; 1: a 13-token prompt; 2: the first 9 ids. They are interleaved in
  // mixed prefill/decode batches; every logit row must equal the same sequence run alone.
  const std::vector<int32_t> p1 = RandomIds(11, 13, vocab_);
  SequenceRunner alone(*model_, 4, 64);
  const std::vector<float> want1 = alone.Step(1, p1, true);
  SequenceRunner r(*model_, 2, 256);
  const int64_t V = vocab_;
  std::vector<float> step = r.Step({{0, {ids_.begin(), ids_.begin() + 20}, false}, {1, p1, true}});
  EXPECT_LE(MaxAbsDiff(std::vector<float>(step.begin(), step.begin() + V), prefill_.data() + 19 * V, V), Tol());
  EXPECT_LE(MaxAbsDiff(std::vector<float>(step.begin() + V, step.end()), want1.data(), want1.size()), Tol());
  for (int t = 20; t < 40; ++t) {
    std::vector<SequenceRunner::Chunk> chunks = {{0, {ids_[t]}, false}};
    if (t == 25) chunks.push_back({2, {ids_.begin(), ids_.begin() + 9}, true});
    step = r.Step(chunks);
    EXPECT_LE(MaxAbsDiff(std::vector<float>(step.begin(), step.begin() + V), prefill_.data() + t * V, V), Tol())
        << "position " << t;
    if (t == 25) {
      EXPECT_LE(MaxAbsDiff(std::vector<float>(step.begin() + V, step.end()), prefill_.data(), 9 * V), Tol());
    }
  }
}

TEST_P(ForwardConsistencyTest, MinimalRecycledBlockPool) {
  // Exactly the blocks a 40-token sequence needs at its last step: sliding groups hold only the
  // window, so their older blocks must be freed (-1) and reused while decoding.
  const int64_t bs = 2, T = static_cast<int64_t>(ids_.size());
  KvCacheSpec spec = model_->MakeKvCacheSpec(bs);
  std::vector<int64_t> blocks;
  for (const auto& g : spec.groups) blocks.push_back(g.NumBlocksNeeded(T));
  SequenceRunner r(*model_, spec, blocks);
  std::vector<float> got = r.Step(0, {ids_[0]}, true);
  for (int64_t t = 1; t < T; ++t) {
    std::vector<float> row = r.Step(0, {ids_[t]}, false);
    got.insert(got.end(), row.begin(), row.end());
  }
  EXPECT_LE(MaxAbsDiff(got, prefill_.data(), got.size()), Tol());
  int64_t want_bytes = 0;
  for (size_t g = 0; g < spec.groups.size(); ++g) want_bytes += blocks[g] * spec.groups[g].bytes_per_block();
  EXPECT_EQ(r.cache().allocated_bytes(), want_bytes);
  // Fewer blocks must run dry: the pool really was minimal.
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    std::vector<int64_t> fewer = blocks;
    --fewer[g];
    testing::TestBlocks tb(spec, fewer);
    bool ok = true;
    for (int64_t t = 0; t < T && ok; ++t) ok = tb.Prepare(0, t, 1);
    EXPECT_FALSE(ok) << "group " << g;
  }
}

TEST_P(ForwardConsistencyTest, InvalidBatchesAreRejected) {
  KvCacheSpec spec = model_->MakeKvCacheSpec(4);
  std::vector<int64_t> blocks(spec.groups.size(), 4);
  auto cache = KvCache::Create(spec, blocks);
  ASSERT_TRUE(cache.ok());
  std::vector<std::vector<int32_t>> tables(spec.groups.size(), std::vector<int32_t>{0, 1, 2, 3});
  const int64_t V = vocab_;
  std::vector<float> logits(static_cast<size_t>(V));
  tensor::TensorView lv{logits.data(), tensor::DType::kF32, tensor::Shape{1, V}};
  auto expect_invalid = [&](const ForwardBatch& b, const std::string& what) {
    Status st = model_->Forward({}, b, **cache, lv);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << what << ": " << st.ToString();
  };
  expect_invalid(SingleSequenceBatch({vocab_}, 0, tables, false), "token id = vocab size");
  expect_invalid(SingleSequenceBatch({-1}, 0, tables, false), "negative token id");
  expect_invalid(SingleSequenceBatch(std::vector<int32_t>(17, 1), 0, tables, false), "table too short");
  auto freed = tables;
  freed[0][1] = -1;
  expect_invalid(SingleSequenceBatch({1, 2, 3}, 4, freed, false), "freed block inside the window");
  auto outside = tables;
  outside[0][0] = 4;
  expect_invalid(SingleSequenceBatch({1}, 0, outside, false), "block id beyond the cache");
  ForwardBatch overlap = SingleSequenceBatch({1, 2}, 0, tables, false);
  overlap.sequences.push_back(overlap.sequences[0]);
  expect_invalid(overlap, "overlapping rows");
  ForwardBatch two_rows = SingleSequenceBatch({1, 2}, 0, tables, true);
  expect_invalid(two_rows, "logits view has 1 row for 2 logit rows");
  ForwardBatch no_tables = SingleSequenceBatch({1}, 0, {}, false);
  expect_invalid(no_tables, "no block tables");
  // A correct batch still works afterwards.
  EXPECT_TRUE(model_->Forward({}, SingleSequenceBatch({1, 2, 3}, 0, tables, false), **cache, lv).ok());
}

INSTANTIATE_TEST_SUITE_P(Presets, ForwardConsistencyTest,
                         ::testing::Values(Case{"t1", tensor::DType::kF32}, Case{"t2", tensor::DType::kF32},
                                           Case{"t3", tensor::DType::kF32}, Case{"t1", tensor::DType::kBF16},
                                           Case{"t3", tensor::DType::kBF16}, Case{"g1", tensor::DType::kF32},
                                           Case{"g1", tensor::DType::kBF16}),
                         [](const auto& info) {
                           return info.param.preset + "_" + std::string(tensor::DTypeName(info.param.dtype));
                         });

}  // namespace
}  // namespace gemmad::model::gemma4
