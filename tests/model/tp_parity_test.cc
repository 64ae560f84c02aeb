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
#include "model/open_weight_source.h"
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
  std::string dtype;  // "f32" | "bf16" (the golden checkpoint), "f32-int4" (it with --quantization int4),
                      // "gguf-<type>" (tests/golden/gguf's file of it) or "ct-<format>" (tests/golden/ct's)
  int tp;
};

bool IsGguf(const Case& c) { return c.dtype.starts_with("gguf-"); }
bool IsCt(const Case& c) { return c.dtype.starts_with("ct-"); }

// A safetensors directory or a GGUF file, whole or as one rank's shard.
Result<std::unique_ptr<Model>> LoadModel(const std::string& path, std::shared_ptr<dist::Communicator> comm = nullptr,
                                         WeightQuantization quantization = WeightQuantization::kNone) {
  GEMMAD_ASSIGN_OR_RETURN(auto source, OpenWeightSource(path));
  ModelOptions o;
  o.communicator = std::move(comm);
  o.quantization = quantization;  // after sharding: each rank quantizes its own slices
  return Model::Load(std::shared_ptr<const WeightSource>(std::move(source)), o);
}

std::string CaseName(const ::testing::TestParamInfo<Case>& i) {
  std::string d = i.param.dtype;
  for (char& ch : d) ch = ch == '-' ? '_' : ch;
  return i.param.model + "_" + d + "_tp" + std::to_string(i.param.tp);
}

class TpParityTest : public ::testing::TestWithParam<Case> {
 protected:
  void SetUp() override {
    const Case& c = GetParam();
    auto g = golden::Gemma4Golden::Load(c.model, IsGguf(c) || IsCt(c) || c.dtype == "f32-int4" ? "f32" : c.dtype);
    if (c.dtype == "f32-int4") quantization_ = WeightQuantization::kInt4;
    ASSERT_TRUE(g.ok()) << g.status().ToString();
    auto dir = g->CheckpointDir();
    ASSERT_TRUE(dir.ok()) << dir.status().ToString();
    ref_dir_ = *dir;
    const std::string golden = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/";
    dir_ = IsGguf(c) ? golden + "gguf/gemma4_" + c.model + "_" + c.dtype.substr(5) + ".gguf"
           : IsCt(c) ? golden + "ct/" + c.model + "_" + c.dtype.substr(3)
                     : *dir;
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
      auto m = LoadModel(dir_, std::shared_ptr<dist::Communicator>(std::move(group[static_cast<size_t>(r)])),
                         quantization_);
      EXPECT_TRUE(m.ok()) << m.status().ToString();
      if (!m.ok()) {
        // Ranks 0..r-1 loaded and would wait for this one when rank 0 stops the group: abandon them.
        for (auto& loaded : ranks) loaded.release();  // NOLINT: a failed test's memory
        return {};
      }
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

  std::string dir_, ref_dir_;  // the model, and its golden f32 checkpoint
  WeightQuantization quantization_ = WeightQuantization::kNone;
  std::vector<int32_t> prompts_[2], golden_greedy_[2];
  bool matches_generate_[2] = {true, true};
};

TEST_P(TpParityTest, ShardedModelEqualsWholeModel) {
  auto whole = LoadModel(dir_, nullptr, quantization_);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  const Result<Trace> whole_trace = RunScript(**whole, prompts_[0], prompts_[1]);
  ASSERT_TRUE(whole_trace.ok()) << whole_trace.status().ToString();
  const Trace& want = *whole_trace;
  const Trace got = RunSharded(GetParam().tp);
  ASSERT_EQ(got.logits.size(), want.logits.size());
  const std::string& dt = GetParam().dtype;
  if (dt != "f32" && dt != "gguf-f32" && dt != "bf16") {
    // Q8_0 and int4 kernels meet activations quantized to int8 per block: a rounding-level
    // difference in the all-reduced residual can flip one activation's int8 rounding (and, on MoE
    // layers, a near-tied expert choice), so the split model differs from the whole one by
    // quantization noise. On the first step (the same tokens for both) that difference stays a
    // tenth of the quantization's own error against the f32 model or less (FP8: see below).
    auto ref = LoadModel(ref_dir_);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    const Result<Trace> exact = RunScript(**ref, prompts_[0], prompts_[1]);
    ASSERT_TRUE(exact.ok()) << exact.status().ToString();
    const size_t first = (prompts_[0].size() / 2 + 1) * static_cast<size_t>((*ref)->config().vocab_size);
    const auto head = [first](const std::vector<float>& v) { return std::vector<float>(v.begin(), v.begin() + first); };
    const double split = RelDiff(head(got.logits), head(want.logits));
    const double quant = RelDiff(head(want.logits), head(exact->logits));
    std::cout << "[ tp ] first step: split vs whole " << split << ", whole vs f32 " << quant << "\n";
    // FP8-dynamic activations take one scale per token over the whole row; o_proj's and down's
    // inputs are split, so each rank scales its own slice (as vLLM's row-parallel layers do):
    // there the split model differs by the FP8 activation noise itself.
    EXPECT_LE(split, dt.ends_with("fp8") ? quant : quant / 10);
    return;
  }
  // fp32 everywhere: the partial sums add up in another order (rounding only); bf16 KV caches
  // round the same K/V values, but a value near a bf16 tie may round the other way.
  const double tol = dt == "bf16" ? 2e-3 : 1e-5;
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
                                           Case{"t1", "bf16", 2}, Case{"t2", "bf16", 2}, Case{"t3", "bf16", 2},
                                           Case{"t1", "gguf-f32", 2}, Case{"t1", "gguf-q8_0", 2},
                                           Case{"t1", "gguf-q4_0", 2}, Case{"t1", "ct-w4a16", 2},
                                           Case{"t2", "ct-w4a16", 2}, Case{"t1", "ct-fp8", 2}, Case{"t2", "ct-fp8", 2},
                                           Case{"t1", "f32-int4", 2}, Case{"t2", "f32-int4", 2}),
                         CaseName);

TEST(TpShardTest, SplitsThatCutABlockAreOneLineLoadErrors) {
  // The tiny model's 128 intermediate units split in two do not fill Q4_K's 256-element blocks
  // (real models' splits do).
  std::vector<std::unique_ptr<dist::Communicator>> group = dist::MakeInprocGroup(2);
  auto m = LoadModel(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gguf/gemma4_t1_q4_k_m.gguf",
                     std::shared_ptr<dist::Communicator>(std::move(group[0])));
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().message(), "tensor parallel: layer 4 down_proj is stored as Q4_K, which cannot be split across "
                                  "ranks yet");
}

TEST(TpShardTest, StaticActivationScalesAreAOneLineLoadError) {
  // qat-mobile: an output scale would fake-quantize each rank's partial sum instead of the sum.
  std::vector<std::unique_ptr<dist::Communicator>> group = dist::MakeInprocGroup(2);
  auto m = LoadModel(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/ct/t1_mobile",
                     std::shared_ptr<dist::Communicator>(std::move(group[0])));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("tensor parallel: checkpoints with static activation scales"), std::string::npos)
      << m.status().message();
}

// A checkpoint's per-KV-head FP8 KV scales (t2_fp8_kvh: two KV heads on every layer) go with their
// heads: each rank holds the scales of the heads it holds.
TEST(TpShardTest, PerHeadKvScalesFollowTheirHeads) {
  const std::string dir = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/ct/t2_fp8_kvh";
  auto whole = LoadModel(dir);
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  std::vector<std::unique_ptr<dist::Communicator>> group = dist::MakeInprocGroup(2);
  std::vector<std::unique_ptr<Model>> ranks;
  for (int r = 0; r < 2; ++r) {
    auto m = LoadModel(dir, std::shared_ptr<dist::Communicator>(std::move(group[static_cast<size_t>(r)])));
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    ranks.push_back(std::move(m).value());
  }
  std::thread worker([&] { EXPECT_TRUE(ranks[1]->ServeTensorParallelWorker({}).ok()); });
  const auto& wl = (*whole)->weights().layers;
  int split_layers = 0;
  for (size_t l = 0; l < wl.size(); ++l) {
    const size_t heads = wl[l].k_scale.size();  // 2 on sliding layers; the full layers' one head is replicated
    ASSERT_TRUE(heads == 1 || heads == 2) << l;
    if (heads == 2) {
      // Calibrated per head (bf16: layer 1's two k scales round to the same value, its v scales differ).
      ASSERT_TRUE(wl[l].k_scale[0] != wl[l].k_scale[1] || wl[l].v_scale[0] != wl[l].v_scale[1]) << l;
      ++split_layers;
    }
    for (size_t r = 0; r < 2; ++r) {
      const LayerWeights& got = ranks[r]->weights().layers[l];
      EXPECT_EQ(got.k_scale, std::vector<float>{wl[l].k_scale[heads == 2 ? r : 0]}) << l << " rank " << r;
      EXPECT_EQ(got.v_scale, std::vector<float>{wl[l].v_scale[heads == 2 ? r : 0]}) << l << " rank " << r;
    }
  }
  EXPECT_EQ(split_layers, 4);
  ranks[0]->StopTensorParallelWorkers();
  worker.join();
}

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
