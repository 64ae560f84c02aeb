// Thousands of seeded random scheduler steps on the FakeRunner with every invariant checked
// after every step; every sequence that was not aborted must equal its sequential run.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "base/rng.h"
#include "kv/kv_cache_manager.h"
#include "runner/fake_runner.h"
#include "spec/drafter.h"
#include "sched/scheduler.h"

namespace gemmad {
namespace {

struct FuzzCase {
  uint64_t seed;
  bool caching;
  int32_t window;  // 0 = no sliding group
  int32_t block_size;
  int64_t blocks;  // per group, including the null block
  int32_t max_num_seqs;
  int32_t budget;
  int steps;
  int32_t drafts = 0;  // n-gram drafts per step (speculative decoding; 0 = off)
};

struct Live {
  sched::SequenceSpec spec;  // everything the scheduler and (through new_seqs) the runner get
  std::vector<int32_t> output;
};

kv::KvCacheConfig KvFor(const FuzzCase& c, int64_t blocks) {
  kv::KvCacheConfig k;
  k.block_size = c.block_size;
  k.enable_prefix_caching = c.caching;
  k.groups.push_back({"full", kv::KvGroupKind::kFull, 0, blocks, 1});
  if (c.window > 0) k.groups.push_back({"sliding", kv::KvGroupKind::kSliding, c.window, blocks, 1});
  return k;
}

runner::FakeRunnerConfig RunnerFor(const kv::KvCacheConfig& kv) {
  runner::FakeRunnerConfig r;
  r.vocab_size = 64;
  r.kv = kv;
  r.eos_token_id = 1;
  r.eos_bias = -1.0f;
  return r;
}

// Checks the step against the scheduler's promises before the runner executes it.
void CheckStep(const sched::Scheduler& sched, const sched::SchedulerOutput& out, const FuzzCase& c) {
  int64_t total = 0;
  for (const auto& s : out.seqs) {
    total += s.num_scheduled_tokens;
    ASSERT_GT(s.num_scheduled_tokens, 0);
    const sched::Sequence* seq = sched.Find(s.seq_id);
    ASSERT_NE(seq, nullptr);
    const int64_t known = s.num_scheduled_tokens - s.num_draft_tokens;  // drafts follow the known tokens
    ASSERT_TRUE(s.num_draft_tokens == 0 || (s.sample && s.num_draft_tokens <= c.drafts));
    ASSERT_EQ(std::vector<int32_t>(seq->token_ids().begin() + s.num_computed_tokens,
                                   seq->token_ids().begin() + s.num_computed_tokens + known),
              std::vector<int32_t>(s.token_ids.begin(), s.token_ids.begin() + known));
    if (c.window > 0) {
      const auto& g = sched.kv().config().groups[1];
      const int64_t end = s.num_computed_tokens + s.num_scheduled_tokens;
      ASSERT_LE(sched.kv().NumHeldBlocks(s.seq_id, 1),
                kv::MaxBlocksPerSequence(g, c.block_size, end, s.num_scheduled_tokens));
      // Decode steps: never more than the window's blocks plus one.
      if (s.num_scheduled_tokens == 1) {
        ASSERT_LE(sched.kv().NumHeldBlocks(s.seq_id, 1), kv::CeilDiv(c.window, c.block_size) + 1);
      }
    }
    // Prefix hashes match the tokens.
    const auto& hashes = seq->block_hashes();
    // A block this sequence holds that is registered in the prefix cache is registered under
    // the hash of this sequence's tokens at that position (so a later hit reads the right KV).
    for (int g = 0; g < sched.kv().num_groups(); ++g) {
      const auto& table = sched.kv().BlockTable(s.seq_id, g);
      const kv::BlockPool& pool = sched.kv().pool(g);
      for (size_t j = 0; j < table.size(); ++j) {
        if (table[j] == kv::kNullBlock || !pool.has_hash(table[j])) continue;
        ASSERT_LT(j, hashes.size()) << "a partial block is registered";
        ASSERT_LT(static_cast<int64_t>(j), kv::CeilDiv(s.num_computed_tokens + s.num_scheduled_tokens, c.block_size));
        auto found = pool.Lookup(hashes[j]);
        ASSERT_TRUE(found.has_value() && *found == table[j])
            << "sequence " << s.seq_id << " group " << g << " block " << j << " is cached under another hash";
      }
    }
    ASSERT_EQ(static_cast<int64_t>(hashes.size()), seq->num_tokens() / c.block_size);
    for (size_t j = 0; j < hashes.size(); ++j) {
      const int32_t* b = seq->token_ids().data() + j * static_cast<size_t>(c.block_size);
      ASSERT_EQ(hashes[j], kv::HashBlock(j ? &hashes[j - 1] : nullptr,
                                         std::span<const int32_t>(b, static_cast<size_t>(c.block_size)), ""));
    }
  }
  ASSERT_EQ(total, out.total_num_scheduled_tokens);
  ASSERT_LE(total, c.budget);
  ASSERT_LE(static_cast<int64_t>(out.seqs.size()), c.max_num_seqs);
}

// Runs one sequence alone with ample KV and budget.
std::vector<int32_t> Sequential(const FuzzCase& c, const Live& l) {
  FuzzCase big = c;
  big.budget = 4096;
  auto kv = KvFor(big, 2048);
  sched::Scheduler sched({4, 4096, 4096}, kv);
  runner::FakeRunner runner(RunnerFor(kv));
  sched.Add(l.spec);
  std::vector<int32_t> out;
  while (sched.has_work()) {
    auto step = sched.Schedule();
    auto res = runner.Execute(step);
    std::vector<std::vector<int32_t>> sampled;
    for (auto& r : res->seqs) sampled.push_back(r.sampled_token_ids);
    for (auto& u : sched.Update(step, sampled)) out.insert(out.end(), u.new_token_ids.begin(), u.new_token_ids.end());
  }
  return out;
}

void RunFuzz(const FuzzCase& c) {
  Rng rng(c.seed);
  auto kv = KvFor(c, c.blocks);
  const int64_t max_model_len = 160;
  sched::Scheduler sched({c.max_num_seqs, c.budget, max_model_len}, kv);
  runner::FakeRunner runner(RunnerFor(kv));
  if (c.drafts > 0) runner.SetTokenDrafter(std::make_shared<spec::NgramDrafter>(1, 3), c.drafts);
  std::map<kv::SeqId, Live> live;
  std::vector<Live> done;
  std::vector<std::vector<int32_t>> prefixes;
  for (int i = 0; i < 4; ++i) {
    std::vector<int32_t> p;
    for (int j = 0; j < 10 + 9 * i; ++j) p.push_back(2 + static_cast<int32_t>(rng.Below(62)));
    prefixes.push_back(p);
  }
  kv::SeqId next_id = 1;
  int aborted = 0;
  std::set<kv::SeqId> preempted, aborted_ids;
  for (int step = 0; step < c.steps || sched.has_work(); ++step) {
    ASSERT_LT(step, c.steps + 5000) << "no progress";
    if (step < c.steps && rng.Below(3) == 0) {
      Live l;
      l.spec.id = next_id++;
      l.spec.prompt_token_ids = prefixes[rng.Below(prefixes.size())];
      const int extra = static_cast<int>(rng.Below(30));
      for (int j = 0; j < extra; ++j) l.spec.prompt_token_ids.push_back(2 + static_cast<int32_t>(rng.Below(62)));
      l.spec.params.max_tokens = 1 + static_cast<int32_t>(rng.Below(40));
      l.spec.eos_token_id = 1;
      if (rng.Below(2)) {
        l.spec.params.temperature = 0.8f;
        l.spec.params.top_p = 0.95f;
      } else {
        l.spec.params.temperature = 0.0f;
      }
      l.spec.seed = rng.Next();
      sched.Add(l.spec);
      live.emplace(l.spec.id, l);
    }
    if (!live.empty() && rng.Below(40) == 0) {  // abort a random live sequence
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng.Below(live.size())));
      ASSERT_TRUE(sched.Remove(it->first));  // the runner hears of it in the next step's finished ids
      aborted_ids.insert(it->first);
      live.erase(it);
      ++aborted;
    }
    auto out = sched.Schedule();
    ASSERT_NO_FATAL_FAILURE(CheckStep(sched, out, c));
    for (kv::SeqId id : out.preempted_seq_ids) {
      preempted.insert(id);
      const sched::Sequence* p = sched.Find(id);
      ASSERT_TRUE(p != nullptr && p->status == sched::SeqStatus::kWaiting && !sched.kv().has_seq(id))
          << "preempted sequence " << id << " still holds blocks";
    }
    auto res = runner.Execute(out);
    ASSERT_TRUE(res.ok());
    // The runner's per-sequence state follows the plain-data contract alone: after a step it
    // holds nothing for sequences that left the scheduler before it.
    if (!out.empty()) {
      ASSERT_LE(runner.num_registered(), live.size());
    }
    std::vector<std::vector<int32_t>> sampled, drafts;
    for (auto& r : res->seqs) {
      ASSERT_TRUE(r.error.ok());
      sampled.push_back(r.sampled_token_ids);
      drafts.push_back(r.draft_token_ids);
    }
    for (auto& u : sched.Update(out, sampled, drafts)) {
      Live& l = live.at(u.seq_id);
      l.output.insert(l.output.end(), u.new_token_ids.begin(), u.new_token_ids.end());
      if (u.finish != sched::SeqFinish::kNone) {
        done.push_back(std::move(l));
        live.erase(u.seq_id);
      }
    }
    sched.CheckInvariants();
    if (!sched.has_work()) {
      ASSERT_EQ(sched.kv().Usage(), 0.0);
    }
  }
  EXPECT_TRUE(live.empty());
  EXPECT_GT(done.size(), 10u);
  std::set<kv::SeqId> finished;
  for (const Live& l : done) {
    finished.insert(l.spec.id);
    EXPECT_EQ(l.output, Sequential(c, l)) << "sequence " << l.spec.id;
  }
  // Every preempted sequence finished (with its sequential output, above) unless it was aborted.
  for (kv::SeqId id : preempted) {
    EXPECT_TRUE(finished.count(id) || aborted_ids.count(id)) << "preempted sequence " << id << " never finished";
  }
  ::testing::Test::RecordProperty("preemptions", static_cast<int>(sched.stats().num_preemptions));
  ::testing::Test::RecordProperty("aborted", aborted);
  if (c.blocks < 64) {
    EXPECT_GT(sched.stats().num_preemptions, 0u);
    EXPECT_GT(preempted.size() - std::count_if(preempted.begin(), preempted.end(),
                                               [&](kv::SeqId id) { return aborted_ids.count(id) > 0; }),
              0u);
  }
  if (c.caching) {
    EXPECT_GT(sched.stats().prefix_cache_hits, 0u);
  }
}

TEST(SchedulerFuzz, RoomyWithCaching) { RunFuzz({1, true, 8, 4, 512, 16, 48, 1500}); }
TEST(SchedulerFuzz, TightKvForcesPreemption) { RunFuzz({2, true, 8, 4, 60, 16, 32, 1500}); }
TEST(SchedulerFuzz, TightKvNoCaching) { RunFuzz({3, false, 6, 2, 110, 8, 16, 1500}); }
TEST(SchedulerFuzz, FullOnlySmallBudget) { RunFuzz({4, true, 0, 4, 50, 32, 7, 1500}); }
TEST(SchedulerFuzz, WindowOneBlockSizeOne) { RunFuzz({5, true, 1, 1, 240, 8, 24, 1000}); }
// The e2e model's geometry (window 32, blocks of 16), a tight cache and a small step budget.
TEST(SchedulerFuzz, E2eGeometryTightKvChunked) { RunFuzz({6, true, 32, 16, 24, 8, 20, 3000}); }
// Speculative decoding: n-gram drafts verified in the step, rolled back when rejected.
TEST(SchedulerFuzz, DraftsTightKvWithCaching) { RunFuzz({7, true, 8, 4, 60, 16, 32, 1500, 3}); }
TEST(SchedulerFuzz, DraftsWindowOneSmallBudget) { RunFuzz({8, true, 1, 1, 240, 8, 5, 1000, 4}); }

}  // namespace
}  // namespace gemmad
