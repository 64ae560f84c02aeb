// MTP speculative decoding through the engine on the golden target/assistant pairs (tests/golden
// gemma4/t1..t3 + mtp/t1..t3): greedy output equals transformers' plain greedy run token for
// token, and the drafted and accepted counts equal the golden's "clean" loop (the assistant reads
// accepted K/V only, as here), round for round in total; several requests batched at once, with
// and without prefix caching, on every pair.
#include <gtest/gtest.h>

#include <deque>
#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "kernels/thread_pool.h"
#include "model/gemma4/assistant.h"
#include "model/gemma4/model.h"
#include "model/open_weight_source.h"
#include "runner/model_runner.h"
#include "vision_golden.h"

namespace gemmad::engine {
namespace {

std::string Root() { return std::string(GEMMAD_SOURCE_DIR) + "/tests/golden"; }

struct Golden {
  std::vector<int32_t> prompt, greedy;
  int64_t drafted = 0, accepted = 0;
};

std::unique_ptr<Engine> MtpEngine(const std::string& pair, const std::string& target_dir, bool caching,
                                  int32_t budget) {
  auto model = model::gemma4::Model::Load(target_dir);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  auto source = model::OpenWeightSource(Root() + "/mtp/" + pair + "/assistant");
  EXPECT_TRUE(source.ok());
  auto assistant = model::gemma4::Assistant::Load(std::shared_ptr<const model::WeightSource>(std::move(*source)),
                                                  (*model)->config());
  EXPECT_TRUE(assistant.ok()) << assistant.status().ToString();
  const auto spec = (*model)->MakeKvCacheSpec(4);
  std::vector<int64_t> blocks(spec.groups.size(), 256);
  kv::KvCacheConfig kv = runner::KvConfigForSpec(spec, blocks, caching);
  kv.sliding_extra_keys = 1;
  EngineConfig cfg;
  cfg.kv = kv;
  cfg.scheduler = {8, budget, (*model)->config().max_position_embeddings};
  cfg.num_speculative_tokens = 4;
  static std::deque<std::unique_ptr<kernels::ThreadPool>> pools;
  pools.push_back(std::make_unique<kernels::ThreadPool>(2));
  auto runner = runner::ModelRunner::Create(std::move(*model), kv, {pools.back().get(), nullptr});
  EXPECT_TRUE(runner.ok()) << runner.status().ToString();
  (*runner)->SetMtpAssistant(std::move(*assistant), 4);
  auto engine = std::make_unique<Engine>(cfg, std::move(*runner));
  EXPECT_TRUE(engine->Start().ok());
  return engine;
}

std::vector<int32_t> Ints(const nlohmann::json& j) { return j.get<std::vector<int32_t>>(); }

void CheckPair(const std::string& pair, bool caching, int32_t budget) {
  SCOPED_TRACE(pair);
  auto g = golden::GoldenFile::Load(Root() + "/mtp/" + pair + "/golden");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const std::string target_dir = Root() + "/" + nlohmann::json::parse(g->Field("target")).get<std::string>();
  std::vector<Golden> want;
  for (const auto& p : nlohmann::json::parse(g->Field("prompts"))) {
    Golden w{Ints(p["token_ids"]), Ints(p["greedy_ids"]), p["clean"]["drafted"], p["clean"]["accepted"]};
    ASSERT_EQ(Ints(p["assisted_generate_ids"]), w.greedy);
    want.push_back(std::move(w));
  }
  auto engine = MtpEngine(pair, target_dir, caching, budget);
  ASSERT_NE(engine, nullptr);
  std::vector<std::unique_ptr<RequestStream>> streams;
  for (const Golden& w : want) {
    EngineRequest r;
    r.prompt_token_ids = w.prompt;
    r.sampling.temperature = 0.0f;
    r.sampling.ignore_eos = true;
    r.sampling.max_tokens = static_cast<int32_t>(w.greedy.size());
    auto s = engine->Submit(std::move(r));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    streams.push_back(std::move(*s));
  }
  int64_t drafted = 0, accepted = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    std::vector<int32_t> got;
    RequestOutput out;
    while (streams[i]->Read(&out, std::chrono::seconds(60)) == RequestStream::ReadStatus::kOutput) {
      got.insert(got.end(), out.token_ids.begin(), out.token_ids.end());
      ASSERT_TRUE(out.error.ok()) << out.error.ToString();
    }
    EXPECT_EQ(got, want[i].greedy) << "prompt " << i;
    drafted += want[i].drafted;
    accepted += want[i].accepted;
  }
  const EngineMetrics m = engine->Metrics();
  EXPECT_EQ(static_cast<int64_t>(m.spec_decode_num_draft_tokens), drafted);
  EXPECT_EQ(static_cast<int64_t>(m.spec_decode_num_accepted_tokens), accepted);
  EXPECT_GT(m.spec_decode_num_accepted_tokens, 0u);
  std::printf("[ mtp engine %s ] drafted %lld, accepted %lld (golden clean: %lld, %lld)\n", pair.c_str(),
              static_cast<long long>(m.spec_decode_num_draft_tokens),
              static_cast<long long>(m.spec_decode_num_accepted_tokens), static_cast<long long>(drafted),
              static_cast<long long>(accepted));
}

TEST(MtpEngine, ELikeTargetT1) { CheckPair("t1", true, 64); }
TEST(MtpEngine, MoeKEqVTargetT2) { CheckPair("t2", true, 64); }
TEST(MtpEngine, T3ChunkedNoPrefixCache) { CheckPair("t3", false, 7); }

}  // namespace
}  // namespace gemmad::engine
