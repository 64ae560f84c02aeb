// Tensor parallelism on the golden T1 (KV sharing, PLE, double-wide MLP, 2 KV heads), T2 (MoE,
// one global KV head), T3 (k_eq_v) and Gemma 3 G1 checkpoints (tests/golden), f32 and bf16: a model split t ways over ranks that are
// threads of this process (dist/inproc_communicator.h) gives the logits, hidden states and greedy
// tokens of the whole model. t = 2 shards the KV heads, t = 4 replicates them (t > nkv). The sums
// run in another order, so logits agree to rounding, not bitwise (docs/tensor-parallel.md). The
// script is tp_script.h's; tp_mpi_parity_main.cc runs it with the ranks as MPI processes.
#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <thread>

#include "base/rng.h"
#include "dist/inproc_communicator.h"
#include "model/gemma4/model.h"
#include "gemma4_golden.h"
#include "model/gemma4/presets.h"
#include "tp_script.h"

namespace gemmad::model::gemma4 {
namespace {

using testing::kSteps;
using testing::RelDiff;
using testing::RunScript;
using testing::Trace;
namespace fs = std::filesystem;

struct Case {
  std::string model;
  std::string dtype;  // "f32" | "bf16"
  int tp;
};

std::string CaseName(const ::testing::TestParamInfo<Case>& i) {
  return i.param.model + "_" + i.param.dtype + "_tp" + std::to_string(i.param.tp);
}

class TpParityTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    auto g = golden::Gemma4Golden::Load(GetParam().model, GetParam().dtype);
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    auto dir = g->CheckpointDir();
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    dir_ = *dir;
    ASSERT_GE(g->prompts().size(), 2u);
    for (int i = 0; i < 2; ++i) {
      const auto& ids = g->prompts()[static_cast<size_t>(i)].token_ids;
      prompts_[i].assign(ids.begin(), ids.end());
      const auto& want = g->prompts()[static_cast<size_t>(i)].greedy_ids;
      golden_greedy_[i].assign(want.begin(), want.begin() + kSteps);
      matches_generate_[i] = g->prompts()[static_cast<size_t>(i)].greedy_matches_generate;
    }
  }

  // Rank 0 runs the script; the others serve its steps from their own threads.
  Trace RunSharded(int tp) {
    std::vector<std::unique_ptr<dist::Communicator>> group = dist::MakeInprocGroup(tp);
    std::vector<std::unique_ptr<Model>> ranks;
    for (int r = 0; r < tp; ++r) {
      ModelOptions o;
      o.communicator = std::shared_ptr<dist::Communicator>(std::move(group[static_cast<size_t>(r)]));
      auto m = Model::Load(dir_, {}, o);
      EXPECT_TRUE(m.ok()) << m.status().ToString();
      if (!m.ok()) return {};
      ranks.push_back(std::move(m).value());
    }
    std::vector<std::thread> workers;
    std::vector<Status> worker_status(static_cast<size_t>(tp), OkStatus());
    for (int r = 1; r < tp; ++r) {
      workers.emplace_back([&, r] { worker_status[static_cast<size_t>(r)] = ranks[static_cast<size_t>(r)]->ServeTensorParallelWorker({}); });
    }
    Result<Trace> t = RunScript(*ranks[0], prompts_[0], prompts_[1]);
    EXPECT_TRUE(t.ok()) << t.status().ToString();
    ranks[0]->StopTensorParallelWorkers();
    for (auto& w : workers) w.join();
    for (const Status& s : worker_status) EXPECT_TRUE(s.ok()) << s.ToString();
    return t.ok() ? std::move(t).value() : Trace{};
  }

  std::string dir_;
  std::vector<int32_t> prompts_[2], golden_greedy_[2];
  bool matches_generate_[2] = {true, true};
};

TEST_P(TpParityTest, ShardedModelEqualsWholeModel) {
  auto whole = Model::Load(dir_);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  const Result<Trace> whole_trace = RunScript(**whole, prompts_[0], prompts_[1]);
  ASSERT_TRUE(whole_trace.ok()) << whole_trace.status().ToString();
  const Trace& want = *whole_trace;
  const Trace got = RunSharded(GetParam().tp);
  ASSERT_EQ(got.logits.size(), want.logits.size());
  // fp32 everywhere: the partial sums add up in another order (rounding only); bf16 KV caches
  // round the same K/V values, but a value near a bf16 tie may round the other way.
  const double tol = GetParam().dtype == "f32" ? 1e-5 : 2e-3;
  const double logit_diff = RelDiff(got.logits, want.logits);
  std::cout << "[ tp ] max |logit diff| / max |logit| = " << logit_diff << "\n";
  EXPECT_LT(logit_diff, tol);
  EXPECT_EQ(got.greedy, want.greedy);
  ASSERT_EQ(got.hidden.size(), want.hidden.size());
  for (size_t l = 0; l < want.hidden.size(); ++l) EXPECT_LT(RelDiff(got.hidden[l], want.hidden[l]), tol) << "hidden " << l;
  // The whole model's greedy tokens are transformers' (the goldens, which are not degenerate; in
  // bf16 gemmad keeps f32 activations, so its greedy run departs from the reference's).
  for (int i = 0; i < 2 && GetParam().dtype == "f32"; ++i) {
    if (matches_generate_[i]) {
      EXPECT_EQ(want.greedy[static_cast<size_t>(i)], golden_greedy_[i]) << "prompt " << i;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Presets, TpParityTest,
                         ::testing::Values(Case{"t1", "f32", 2}, Case{"t1", "f32", 4}, Case{"t2", "f32", 2},
                                           Case{"t2", "f32", 4}, Case{"t3", "f32", 2}, Case{"g1", "f32", 2},
                                           Case{"t1", "bf16", 2}, Case{"t2", "bf16", 2}, Case{"t3", "bf16", 2}),
                         CaseName);

TEST(TpShardTest, SizesThatDoNotDivideAreRefused) {
  auto preset = FindPreset("t1");
  ASSERT_TRUE(preset.ok());
  auto c = ShardConfig(preset->config, TpRank{0, 3});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("tensor parallel size 3 does not divide the 4 attention heads"), std::string::npos)
      << c.status().message();
  EXPECT_FALSE(ShardConfig(preset->config, TpRank{0, 8}).ok());
}

TEST(TpShardTest, VocabularySlicesCoverTheVocabularyOnce) {
  for (int64_t V : {1, 7, 512, 262144, 262145}) {
    for (int t : {1, 2, 3, 4, 8}) {
      int64_t next = 0;
      for (int r = 0; r < t; ++r) {
        const VocabSlice s = LmHeadSlice(V, TpRank{r, t});
        EXPECT_EQ(s.begin, std::min(next, V));
        EXPECT_LE(s.count, s.stride);
        next = s.begin + s.count;
      }
      EXPECT_EQ(next, V) << V << " " << t;
    }
  }
}

}  // namespace
}  // namespace gemmad::model::gemma4
