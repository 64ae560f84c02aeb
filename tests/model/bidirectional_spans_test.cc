// ForwardBatch bidirectional spans through Model::Forward (multimodal.md §5.5) on random T1
// checkpoints: a use_bidirectional_attention == "vision" copy of T1 lets a span's rows see each
// other on sliding layers (and only those rows change), chunks that never split a span and a step
// that starts inside a span (as after a prefix-cache hit) reproduce the one-step prefill, logit
// rows inside a span stay right past the KV-shared layers (kept rows), a split span is refused,
// and T1 itself (use_bidirectional_attention null) ignores spans. The numbers against
// transformers are in model_mm_golden_test.cc.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "model/forward_batch.h"
#include "model/gemma4/model.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "model/kv_cache.h"
#include "test_blocks.h"

namespace gemmad::model {
namespace {

namespace fs = std::filesystem;
using gemma4::Model;

// T1 (sliding window 4, 3 KV-shared layers), with use_bidirectional_attention `mode`.
std::unique_ptr<Model> T1(const std::string& mode) {
  fs::path dir = fs::path(::testing::TempDir()) / ("gemmad_bidir_t1_" + (mode.empty() ? std::string("null") : mode) +
                                                   "_" + std::to_string(getpid()));
  if (!fs::exists(dir / "config.json")) {
    auto p = gemma4::FindPreset("t1");
    EXPECT_TRUE(p.ok());
    p->config.use_bidirectional_attention = mode;
    gemma4::RandomCheckpointOptions opt;
    opt.seed = 23;
    opt.dtype = tensor::DType::kF32;
    EXPECT_TRUE(gemma4::WriteRandomCheckpoint(dir.string(), p->config, opt).ok());
  }
  auto m = Model::Load(dir.string());
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return std::move(m).value();
}

const std::vector<int32_t> kIds = {2, 17, 301, 44, 5, 5, 91, 260, 7, 33, 402, 11, 64, 3};
const BidirectionalSpan kSpan = {3, 11};  // 8 rows, twice the sliding window

// One sequence on a fresh cache, computed in `chunks` (token counts); returns the logits of every
// row [T, V], or the status of the first failing step.
struct Steps {
  std::vector<int64_t> chunks;
  std::vector<BidirectionalSpan> spans;
};
Result<std::vector<float>> RunSteps(Model& m, const Steps& st) {
  KvCacheSpec spec = m.MakeKvCacheSpec(4);
  std::vector<int64_t> blocks(spec.groups.size(), 16);
  testing::TestBlocks tb(spec, blocks);
  GEMMAD_ASSIGN_OR_RETURN(auto cache, KvCache::Create(spec, blocks));
  const int64_t V = m.config().vocab_size;
  std::vector<float> all;
  int64_t done = 0;
  for (int64_t n : st.chunks) {
    EXPECT_TRUE(tb.Prepare(0, done, n));
    ForwardBatch b = SingleSequenceBatch({kIds.begin() + done, kIds.begin() + done + n}, done, tb.tables(0), true);
    b.sequences[0].bidirectional_spans = st.spans;
    std::vector<float> logits(static_cast<size_t>(n * V));
    GEMMAD_RETURN_IF_ERROR(m.Forward({}, b, *cache, {logits.data(), tensor::DType::kF32, tensor::Shape{n, V}}));
    all.insert(all.end(), logits.begin(), logits.end());
    done += n;
  }
  return all;
}

std::vector<float> MustRun(Model& m, const Steps& st) {
  auto r = RunSteps(m, st);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::vector<float>{};
}

double MaxDiff(const std::vector<float>& a, const std::vector<float>& b, int64_t row_begin, int64_t row_end, int64_t V) {
  double d = 0;
  for (int64_t i = row_begin * V; i < row_end * V; ++i) d = std::max(d, static_cast<double>(std::fabs(a[i] - b[i])));
  return d;
}

const int64_t kT = static_cast<int64_t>(kIds.size());

TEST(BidirectionalSpans, ChangeTheRowsOfTheSpanAndAfterOnVisionModels) {
  auto m = T1("vision");
  const int64_t V = m->config().vocab_size;
  const auto causal = MustRun(*m, {{kT}, {}});
  const auto bidir = MustRun(*m, {{kT}, {kSpan}});
  ASSERT_EQ(causal.size(), bidir.size());
  EXPECT_EQ(MaxDiff(causal, bidir, 0, kSpan.begin, V), 0.0);  // rows before the span: the same work
  EXPECT_GT(MaxDiff(causal, bidir, kSpan.begin, kSpan.begin + 1, V), 1e-2);  // the span's first row sees more
  EXPECT_GT(MaxDiff(causal, bidir, kSpan.end, kT, V), 1e-3);  // later rows read the changed keys
  // The span's last row has no later keys of its own span, but reads keys the span changed.
  EXPECT_GT(MaxDiff(causal, bidir, kSpan.end - 1, kSpan.end, V), 0.0);
}

TEST(BidirectionalSpans, ModelsWithoutVisionBlocksIgnoreThem) {
  auto m = T1("");
  EXPECT_EQ(MustRun(*m, {{kT}, {kSpan}}), MustRun(*m, {{kT}, {}}));
  // Not even checked: a split span is no error for a causal model.
  EXPECT_TRUE(RunSteps(*m, {{5, kT - 5}, {kSpan}}).ok());
}

TEST(BidirectionalSpans, ChunksThatKeepSpansWholeMatchOneStep) {
  auto m = T1("vision");
  const int64_t V = m->config().vocab_size;
  const auto one = MustRun(*m, {{kT}, {kSpan}});
  for (const std::vector<int64_t>& chunks : std::vector<std::vector<int64_t>>{
           {3, 8, 3}, {1, 12, 1}, {3, 9, 1, 1}, {2, 10, 2}, {11, 1, 1, 1}}) {
    SCOPED_TRACE(::testing::Message() << "chunks " << chunks[0] << "," << chunks[1] << ",...");
    const auto got = MustRun(*m, {chunks, {kSpan}});
    EXPECT_LE(MaxDiff(got, one, 0, kT, V), 1e-5);
  }
  // Two spans, the second right after the first's end marker.
  const std::vector<BidirectionalSpan> two = {{2, 6}, {7, 12}};
  const auto both = MustRun(*m, {{kT}, two});
  EXPECT_LE(MaxDiff(MustRun(*m, {{6, 1, 5, 2}, two}), both, 0, kT, V), 1e-5);
  EXPECT_GT(MaxDiff(both, one, 0, kT, V), 1e-3);
}

TEST(BidirectionalSpans, AStepMayStartInsideASpanWhoseEarlierKeysAreCached) {
  // After a prefix-cache hit that ends inside a span the scheduler runs the rest of the span in
  // one step: rows 6.. are recomputed over keys 0..5 computed by the one-step prefill.
  auto m = T1("vision");
  const int64_t V = m->config().vocab_size;
  KvCacheSpec spec = m->MakeKvCacheSpec(4);
  std::vector<int64_t> blocks(spec.groups.size(), 16);
  testing::TestBlocks tb(spec, blocks);
  auto cache = KvCache::Create(spec, blocks);
  ASSERT_TRUE(cache.ok());
  ASSERT_TRUE(tb.Prepare(0, 0, kT));
  ForwardBatch full = SingleSequenceBatch(kIds, 0, tb.tables(0), true);
  full.sequences[0].bidirectional_spans = {kSpan};
  std::vector<float> want(static_cast<size_t>(kT * V));
  ASSERT_TRUE(m->Forward({}, full, **cache, {want.data(), tensor::DType::kF32, tensor::Shape{kT, V}}).ok());
  const int64_t from = 6;
  ForwardBatch rest = SingleSequenceBatch({kIds.begin() + from, kIds.end()}, from, tb.tables(0), true);
  rest.sequences[0].bidirectional_spans = {kSpan};
  std::vector<float> got(static_cast<size_t>((kT - from) * V));
  Status s = m->Forward({}, rest, **cache, {got.data(), tensor::DType::kF32, tensor::Shape{kT - from, V}});
  ASSERT_TRUE(s.ok()) << s.ToString();
  for (int64_t i = 0; i < (kT - from) * V; ++i) ASSERT_NEAR(got[i], want[from * V + i], 1e-5) << i;
}

TEST(BidirectionalSpans, LogitRowsInsideASpanKeepItPastTheKvSharedLayers) {
  // Only rows 5 and 13 need logits: from T1's first KV-shared layer on only those rows run.
  auto m = T1("vision");
  ASSERT_GT(m->config().num_kv_shared_layers, 0);
  const int64_t V = m->config().vocab_size;
  const auto all = MustRun(*m, {{kT}, {kSpan}});
  KvCacheSpec spec = m->MakeKvCacheSpec(4);
  std::vector<int64_t> blocks(spec.groups.size(), 16);
  testing::TestBlocks tb(spec, blocks);
  auto cache = KvCache::Create(spec, blocks);
  ASSERT_TRUE(cache.ok() && tb.Prepare(0, 0, kT));
  ForwardBatch b = SingleSequenceBatch(kIds, 0, tb.tables(0), false);
  b.sequences[0].logit_offsets = {5, 13};
  b.sequences[0].bidirectional_spans = {kSpan};
  std::vector<float> got(static_cast<size_t>(2 * V));
  ASSERT_TRUE(m->Forward({}, b, **cache, {got.data(), tensor::DType::kF32, tensor::Shape{2, V}}).ok());
  for (int64_t i = 0; i < V; ++i) {
    ASSERT_NEAR(got[i], all[5 * V + i], 1e-5) << i;
    ASSERT_NEAR(got[V + i], all[13 * V + i], 1e-5) << i;
  }
}

TEST(BidirectionalSpans, ASplitSpanIsRefused) {
  auto m = T1("vision");
  for (int64_t cut : {4, 5, 10}) {  // the first step ends inside [3, 11)
    auto r = RunSteps(*m, {{cut, kT - cut}, {kSpan}});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("bidirectional span [3, 11) ends after this step's tokens [0, " +
                                        std::to_string(cut) + ")"),
              std::string::npos)
        << r.status().message();
  }
  // Spans must be ascending and disjoint (ValidateForwardBatch).
  auto overlapping = RunSteps(*m, {{kT}, {{2, 6}, {5, 9}}});
  ASSERT_FALSE(overlapping.ok());
  EXPECT_NE(overlapping.status().message().find("ascending and disjoint"), std::string::npos);
}

}  // namespace
}  // namespace gemmad::model
