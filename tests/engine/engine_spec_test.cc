// Speculative decoding on the FakeRunner: whatever the drafts, every request's output equals its
// plain sequential run (greedy, seeded sampling with penalties, logprobs), under batching,
// chunked prefill, prefix caching, preemption and tiny sliding windows; drafted tokens count in
// the token budget; the spec-decode metrics add up. The fake model reads its KV through the block
// tables, so a rejected draft whose KV slot were read later, or a block dropped too early,
// would change the output.
#include <gtest/gtest.h>

#include <future>

#include "base/rng.h"
#include "engine_test_util.h"
#include "spec/drafter.h"

namespace gemmad::engine::testing {
namespace {

// Replays recorded outputs but corrupts some drafts (a hash of the position decides), so that
// rounds end in every way: all accepted, a rejection at any index, no drafts at all.
class CorruptedReplay : public spec::TokenDrafter {
 public:
  CorruptedReplay(std::shared_ptr<const spec::ReplayBook> book, int32_t vocab, uint32_t corrupt_per_mille)
      : book_(std::move(book)), vocab_(vocab), corrupt_(corrupt_per_mille) {}
  std::vector<int32_t> Propose(std::span<const int32_t> tokens, int32_t max_tokens) const override {
    std::vector<int32_t> d = book_->Continue(tokens, max_tokens);
    for (size_t j = 0; j < d.size(); ++j) {
      Rng r(tokens.size() * 131 + j * 7 + static_cast<uint64_t>(tokens.back()));
      if (r.Below(1000) < corrupt_) d[j] = static_cast<int32_t>((d[j] + 1 + r.Below(5)) % vocab_);
    }
    return d;
  }

 private:
  std::shared_ptr<const spec::ReplayBook> book_;
  int32_t vocab_;
  uint32_t corrupt_;
};

std::vector<EngineRequest> Workload(int count, int seed, int vocab) {
  std::vector<EngineRequest> reqs;
  Rng rng(static_cast<uint64_t>(seed));
  for (int i = 0; i < count; ++i) {
    std::vector<int32_t> prompt = Prompt(1 + static_cast<int>(rng.Below(40)), seed * 100 + i, vocab);
    if (i % 3 == 1) {  // a shared prefix longer than the window: prefix-cache hits
      auto shared = Prompt(24, seed, vocab);
      prompt.insert(prompt.begin(), shared.begin(), shared.end());
    }
    EngineRequest r = Request(prompt, 4 + static_cast<int32_t>(rng.Below(30)));
    if (i % 2 == 1) {
      r.sampling.temperature = 0.9f;
      r.sampling.top_k = 20;
      r.sampling.seed = 1000 + i;
      r.sampling.frequency_penalty = 0.5f;
    }
    if (i % 4 == 0) r.sampling.logprobs = 2;
    reqs.push_back(std::move(r));
  }
  return reqs;
}

struct SpecRun {
  EngineMetrics metrics;
  int64_t max_step_tokens = 0;
};

// Runs the workload at once with `drafter`, compares every request with its plain run alone.
SpecRun ExpectSpecMatchesPlain(TestEngineOptions o, int count, int seed, uint32_t corrupt_per_mille, int32_t k) {
  auto reqs = Workload(count, seed, o.vocab_size);
  auto book = std::make_shared<spec::ReplayBook>();
  std::vector<std::vector<Choice>> ref;
  for (const auto& r : reqs) {
    ref.push_back(RunAlone(o, r));
    std::vector<int32_t> all = r.prompt_token_ids;
    all.insert(all.end(), ref.back()[0].tokens.begin(), ref.back()[0].tokens.end());
    book->Record(std::move(all));
  }
  o.drafter = std::make_shared<CorruptedReplay>(book, o.vocab_size, corrupt_per_mille);
  o.num_speculative_tokens = k;
  std::promise<void> release;  // the first step waits for the whole workload (see FakeRunnerConfig)
  o.first_step_gate = release.get_future().share();
  runner::FakeRunner* fake = nullptr;
  auto engine = MakeEngine(o, &fake);
  std::vector<std::unique_ptr<RequestStream>> streams;
  for (const auto& r : reqs) {
    auto s = engine->Submit(r);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (s.ok()) streams.push_back(std::move(*s));
  }
  release.set_value();
  for (size_t i = 0; i < streams.size(); ++i) {
    auto got = Collect(*streams[i]);
    EXPECT_EQ(got[0].tokens, ref[i][0].tokens) << "request " << i;
    EXPECT_EQ(got[0].finish, ref[i][0].finish) << "request " << i;
    EXPECT_EQ(got[0].logprobs.size(), ref[i][0].logprobs.size()) << "request " << i;
    for (size_t t = 0; t < std::min(got[0].logprobs.size(), ref[i][0].logprobs.size()); ++t) {
      EXPECT_FLOAT_EQ(got[0].logprobs[t].logprob, ref[i][0].logprobs[t].logprob);
    }
  }
  SpecRun run;
  run.metrics = engine->Metrics();
  EXPECT_EQ(run.metrics.num_speculative_tokens, k);
  uint64_t per_pos = 0;
  for (uint64_t v : run.metrics.spec_decode_num_accepted_tokens_per_pos) per_pos += v;
  EXPECT_EQ(per_pos, run.metrics.spec_decode_num_accepted_tokens);
  EXPECT_LE(run.metrics.spec_decode_num_accepted_tokens, run.metrics.spec_decode_num_draft_tokens);
  EXPECT_LE(run.metrics.spec_decode_num_draft_tokens, run.metrics.spec_decode_num_drafts * static_cast<uint64_t>(k));
  return run;
}

TEST(EngineSpec, CorrectDraftsAreAllAcceptedAndChangeNothing) {
  TestEngineOptions o;
  SpecRun r = ExpectSpecMatchesPlain(o, 12, 1, /*corrupt=*/0, /*k=*/4);
  EXPECT_GT(r.metrics.spec_decode_num_drafts, 0u);
  EXPECT_EQ(r.metrics.spec_decode_num_accepted_tokens, r.metrics.spec_decode_num_draft_tokens);
  // Fewer steps than tokens: most steps emitted several tokens per sequence.
  EXPECT_GT(r.metrics.spec_decode_num_accepted_tokens, r.metrics.spec_decode_num_drafts);
}

TEST(EngineSpec, PartlyWrongDraftsRollBackAndChangeNothing) {
  TestEngineOptions o;
  SpecRun r = ExpectSpecMatchesPlain(o, 16, 2, /*corrupt=*/300, /*k=*/3);
  EXPECT_GT(r.metrics.spec_decode_num_accepted_tokens, 0u);
  EXPECT_LT(r.metrics.spec_decode_num_accepted_tokens, r.metrics.spec_decode_num_draft_tokens);
  EXPECT_GT(r.metrics.spec_decode_num_accepted_tokens_per_pos.at(0),
            r.metrics.spec_decode_num_accepted_tokens_per_pos.at(2));
}

TEST(EngineSpec, TinyWindowsAndBlocks) {
  TestEngineOptions o;
  o.window = 1;  // the sliding group keeps one position: rejected drafts must not survive in it
  o.block_size = 2;
  ExpectSpecMatchesPlain(o, 10, 3, 400, 5);
  TestEngineOptions w;
  w.window = 3;
  w.block_size = 1;
  ExpectSpecMatchesPlain(w, 10, 4, 250, 6);
}

TEST(EngineSpec, DraftsCountInTheBudgetWithChunkedPrefill) {
  TestEngineOptions o;
  o.max_num_batched_tokens = 5;  // a draft round of 1 + 4 fills a step; prompts are chunked
  SpecRun r = ExpectSpecMatchesPlain(o, 10, 5, 200, 8);
  EXPECT_GT(r.metrics.spec_decode_num_drafts, 0u);
  EXPECT_LE(r.metrics.iteration_tokens_total.sum, r.metrics.iteration_tokens_total.count * 5.0);
}

TEST(EngineSpec, PreemptionAndNoPrefixCache) {
  TestEngineOptions o;
  o.full_blocks = 40;  // 39 usable blocks of 4 tokens: preemption under load
  o.sliding_blocks = 40;
  o.max_model_len = 120;
  SpecRun r = ExpectSpecMatchesPlain(o, 16, 6, 200, 4);
  EXPECT_GT(r.metrics.num_preemptions, 0u);
  TestEngineOptions off;
  off.prefix_caching = false;
  ExpectSpecMatchesPlain(off, 10, 7, 200, 4);
}

TEST(EngineSpec, NgramDraftingChangesNothing) {
  TestEngineOptions o;
  o.drafter = std::make_shared<spec::NgramDrafter>(1, 3);
  o.num_speculative_tokens = 3;
  auto engine = MakeEngine(o);
  auto reqs = Workload(8, 8, o.vocab_size);
  for (const auto& r : reqs) EXPECT_EQ(RunOne(*engine, r)[0].tokens, RunAlone(o, r)[0].tokens);
  EXPECT_GT(engine->Metrics().spec_decode_num_drafts, 0u);
}

}  // namespace
}  // namespace gemmad::engine::testing
