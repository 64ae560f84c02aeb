#include "sched/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>
#include <set>
#include <vector>

namespace gemmad::sched {
namespace {

kv::KvCacheConfig Kv(int64_t full_blocks, int64_t sliding_blocks = 0, int32_t window = 8, int32_t bs = 4) {
  kv::KvCacheConfig c;
  c.block_size = bs;
  c.groups.push_back({"full", kv::KvGroupKind::kFull, 0, full_blocks, 1});
  if (sliding_blocks) c.groups.push_back({"sliding", kv::KvGroupKind::kSliding, window, sliding_blocks, 1});
  return c;
}

SequenceSpec Spec(SeqId id, int prompt_len, int max_tokens, int salt = 0) {
  SequenceSpec s;
  s.id = id;
  for (int i = 0; i < prompt_len; ++i) s.prompt_token_ids.push_back((i * 13 + salt) % 97 + 3);
  s.params.max_tokens = max_tokens;
  return s;
}

// "Model": the next token is a function of the sequence so far.
int32_t Oracle(const Sequence& s) {
  uint64_t h = 1469598103934665603ull;
  for (int32_t t : s.token_ids()) h = (h ^ static_cast<uint64_t>(t)) * 1099511628211ull;
  return static_cast<int32_t>(3 + h % 90);
}

std::vector<SeqUpdate> Step(Scheduler& sched, SchedulerOutput* out_copy = nullptr) {
  SchedulerOutput out = sched.Schedule();
  std::vector<std::vector<int32_t>> sampled(out.seqs.size());
  for (size_t i = 0; i < out.seqs.size(); ++i) {
    if (out.seqs[i].sample) sampled[i].push_back(Oracle(*sched.Find(out.seqs[i].seq_id)));
  }
  auto updates = sched.Update(out, sampled);
  sched.CheckInvariants();
  if (out_copy) *out_copy = std::move(out);
  return updates;
}

TEST(Scheduler, ChunkedPrefillRespectsTheBudget) {
  Scheduler sched({8, 16, 256}, Kv(64));
  sched.Add(Spec(1, 40, 3));
  SchedulerOutput out;
  std::vector<int> chunks;
  for (int i = 0; i < 3; ++i) {
    Step(sched, &out);
    ASSERT_EQ(out.seqs.size(), 1u);
    chunks.push_back(out.seqs[0].num_scheduled_tokens);
    EXPECT_EQ(out.seqs[0].sample, i == 2);
  }
  EXPECT_EQ(chunks, (std::vector<int>{16, 16, 8}));
  EXPECT_EQ(sched.Find(1)->num_output_tokens(), 1);
}

TEST(Scheduler, DecodesAndPrefillsShareAStep) {
  Scheduler sched({8, 10, 256}, Kv(64));
  sched.Add(Spec(1, 4, 10));
  Step(sched);
  sched.Add(Spec(2, 30, 10));
  SchedulerOutput out;
  Step(sched, &out);
  ASSERT_EQ(out.seqs.size(), 2u);
  EXPECT_EQ(out.seqs[0].num_scheduled_tokens, 1);  // decode of seq 1 first
  EXPECT_EQ(out.seqs[1].num_scheduled_tokens, 9);  // then a prefill chunk from the rest
  EXPECT_EQ(out.total_num_scheduled_tokens, 10);
}

TEST(Scheduler, MaxNumSeqsLimitsTheRunningBatch) {
  Scheduler sched({2, 100, 256}, Kv(64));
  for (SeqId id = 1; id <= 3; ++id) sched.Add(Spec(id, 4, 5));
  SchedulerOutput out;
  Step(sched, &out);
  EXPECT_EQ(out.seqs.size(), 2u);
  EXPECT_EQ(sched.num_running(), 2);
  EXPECT_EQ(sched.num_waiting(), 1);
}

TEST(Scheduler, StopsOnEosStopIdsMinTokensAndLength) {
  Scheduler sched({8, 100, 256}, Kv(64));
  SequenceSpec s = Spec(1, 4, 20);
  sched.Add(s);
  SchedulerOutput out = sched.Schedule();
  auto u = sched.Update(out, std::vector<std::vector<int32_t>>{{5}});
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].finish, SeqFinish::kNone);

  // EOS stops without a stop id; a stop id reports itself; min_tokens defers both.
  SequenceSpec e = Spec(2, 4, 20);
  e.eos_token_id = 1;
  e.params.stop_token_ids = {2};
  e.params.min_tokens = 2;
  sched.Add(e);
  out = sched.Schedule();  // seq 1 decode + seq 2 prefill
  u = sched.Update(out, std::vector<std::vector<int32_t>>{{6}, {1}});
  EXPECT_EQ(u[1].finish, SeqFinish::kNone);  // min_tokens = 2
  out = sched.Schedule();
  u = sched.Update(out, std::vector<std::vector<int32_t>>{{7}, {2}});
  EXPECT_EQ(u[1].finish, SeqFinish::kStop);
  ASSERT_TRUE(u[1].stop_token_id.has_value());
  EXPECT_EQ(*u[1].stop_token_id, 2);
  EXPECT_EQ(sched.Find(2), nullptr);

  SequenceSpec l = Spec(3, 4, 2);
  l.eos_token_id = 1;
  sched.Add(l);
  out = sched.Schedule();
  u = sched.Update(out, std::vector<std::vector<int32_t>>{{8}, {9}});
  out = sched.Schedule();
  u = sched.Update(out, std::vector<std::vector<int32_t>>{{8}, {1}});
  EXPECT_EQ(u[1].finish, SeqFinish::kStop);  // EOS at the last allowed token: stop wins
  EXPECT_FALSE(u[1].stop_token_id.has_value());
}

TEST(Scheduler, LengthLimits) {
  Scheduler sched({8, 100, 12}, Kv(64));
  sched.Add(Spec(1, 10, 2));
  Step(sched);
  auto u = Step(sched);
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].finish, SeqFinish::kLength);
  EXPECT_FALSE(sched.has_work());
}

TEST(Scheduler, MaxSequenceTokensFollowsTheKvCapacity) {
  Scheduler sched({8, 16, 1000}, Kv(6));  // 5 blocks x 4 = 20 tokens per sequence at most
  EXPECT_EQ(sched.max_sequence_tokens(), 20);
  sched.Add(Spec(2, 10, 10));
  // Specs come from admitted requests (engine::ValidateRequest); one beyond the limits is a bug.
  EXPECT_DEATH(sched.Add(Spec(1, 10, 11)), "exceeds the admitted maximum 20");
  EXPECT_DEATH(sched.Add(Spec(4, 0, 5)), "empty prompt");
  EXPECT_DEATH(sched.Add(Spec(2, 3, 5)), "already exists");
}

TEST(Scheduler, AnnouncesEachSequenceOnceAndReportsFinishedIds) {
  // Two sequences; the second is preempted and recomputed, yet announced only once.
  Scheduler sched({8, 64, 256}, Kv(7));  // 6 usable blocks of 4: 2 x 16 tokens do not fit
  sched.Add(Spec(1, 4, 12, 1));
  sched.Add(Spec(2, 4, 12, 2));
  std::map<SeqId, int> announced;
  std::vector<SeqId> finished;
  std::set<SeqId> done;
  for (int step = 0; step < 100 && sched.has_work(); ++step) {
    SchedulerOutput out;
    auto updates = Step(sched, &out);
    for (const auto& n : out.new_seqs) {
      ++announced[n.seq_id];
      EXPECT_EQ(n.params.max_tokens, 12);
      EXPECT_EQ(n.prompt_token_ids.size(), 4u);
    }
    for (SeqId id : out.finished_seq_ids) {
      EXPECT_TRUE(done.count(id)) << "finished id " << id << " reported before it finished";
      finished.push_back(id);
    }
    for (const auto& u : updates) {
      if (u.finish != SeqFinish::kNone) done.insert(u.seq_id);
    }
  }
  EXPECT_GT(sched.stats().num_preemptions, 0u);
  EXPECT_EQ(announced, (std::map<SeqId, int>{{1, 1}, {2, 1}}));
  // The last finish is reported with the next step that runs something.
  sched.Add(Spec(3, 4, 1, 3));
  SchedulerOutput out;
  Step(sched, &out);
  finished.insert(finished.end(), out.finished_seq_ids.begin(), out.finished_seq_ids.end());
  std::sort(finished.begin(), finished.end());
  EXPECT_EQ(finished, (std::vector<SeqId>{1, 2}));
  // A sequence removed before it was ever scheduled is never reported.
  sched.Add(Spec(4, 4, 1, 4));
  EXPECT_TRUE(sched.Remove(4));
  sched.Add(Spec(5, 4, 1, 5));
  Step(sched, &out);
  EXPECT_EQ(out.finished_seq_ids, (std::vector<SeqId>{3}));
}

TEST(Scheduler, PreemptsTheLatestAdmittedAndRecomputesIt) {
  // 8 usable blocks of 4: two sequences of 4 + 12 tokens each need 4 blocks each at the end.
  Scheduler sched({8, 64, 256}, Kv(7));
  sched.Add(Spec(1, 4, 12, 1));
  sched.Add(Spec(2, 4, 12, 2));
  std::vector<int32_t> out1, out2;
  int guard = 0;
  while (sched.has_work() && ++guard < 200) {
    for (const auto& u : Step(sched)) {
      auto& dst = u.seq_id == 1 ? out1 : out2;
      dst.insert(dst.end(), u.new_token_ids.begin(), u.new_token_ids.end());
    }
  }
  EXPECT_GT(sched.stats().num_preemptions, 0u);
  EXPECT_EQ(out1.size(), 12u);
  EXPECT_EQ(out2.size(), 12u);
  // Same as running each alone.
  for (SeqId id : {1, 2}) {
    Scheduler alone({8, 64, 256}, Kv(7));
    alone.Add(Spec(id, 4, 12, static_cast<int>(id)));
    std::vector<int32_t> ref;
    while (alone.has_work()) {
      for (const auto& u : Step(alone)) ref.insert(ref.end(), u.new_token_ids.begin(), u.new_token_ids.end());
    }
    EXPECT_EQ(ref, id == 1 ? out1 : out2);
  }
}

TEST(Scheduler, RemoveFreesBlocksImmediately) {
  Scheduler sched({8, 64, 256}, Kv(64));
  sched.Add(Spec(1, 20, 50));
  sched.Add(Spec(2, 20, 50));
  Step(sched);
  EXPECT_GT(sched.kv().Usage(), 0.0);
  EXPECT_TRUE(sched.Remove(1));
  EXPECT_TRUE(sched.Remove(2));
  EXPECT_FALSE(sched.Remove(2));
  EXPECT_EQ(sched.kv().Usage(), 0.0);
  sched.CheckInvariants();
}

TEST(Scheduler, PrefixHitSkipsCachedBlocksButComputesTheLastToken) {
  Scheduler sched({8, 64, 256}, Kv(64));
  sched.Add(Spec(1, 16, 1));
  Step(sched);  // finishes: blocks are freed but stay cached
  sched.Add(Spec(2, 16, 1));
  SchedulerOutput out;
  Step(sched, &out);
  ASSERT_EQ(out.seqs.size(), 1u);
  EXPECT_EQ(out.seqs[0].num_computed_tokens, 12);  // 16 - 1 rounded down to blocks
  EXPECT_EQ(out.seqs[0].num_scheduled_tokens, 4);
  EXPECT_EQ(sched.stats().prefix_cache_queries, 32u);
  EXPECT_EQ(sched.stats().prefix_cache_hits, 12u);

  SequenceSpec skip = Spec(3, 16, 1);
  skip.params.prompt_logprobs = 0;  // prompt logprobs skip the prefix cache
  sched.Add(skip);
  Step(sched, &out);
  EXPECT_EQ(out.seqs[0].num_computed_tokens, 0);
}

TEST(Scheduler, CacheSaltSeparatesPrefixes) {
  Scheduler sched({8, 64, 256}, Kv(64));
  SequenceSpec a = Spec(1, 16, 1);
  a.cache_salt = "alice";
  sched.Add(a);
  Step(sched);
  SequenceSpec b = Spec(2, 16, 1);
  b.cache_salt = "bob";
  sched.Add(b);
  SchedulerOutput out;
  Step(sched, &out);
  EXPECT_EQ(out.seqs[0].num_computed_tokens, 0);
}

}  // namespace
}  // namespace gemmad::sched

namespace gemmad::sched {
namespace {

// One step with drafts: each sampling sequence accepts its first `accept` drafts, then gets the
// next token from the Oracle-like rule `bonus`, and proposes `propose` as its next drafts.
SchedulerOutput SpecStep(Scheduler& sched, int accept, const std::vector<int32_t>& propose,
                         std::vector<SeqUpdate>* updates = nullptr) {
  SchedulerOutput out = sched.Schedule();
  std::vector<std::vector<int32_t>> sampled(out.seqs.size()), drafts(out.seqs.size());
  for (size_t i = 0; i < out.seqs.size(); ++i) {
    const ScheduledSeq& s = out.seqs[i];
    if (!s.sample) continue;
    const size_t first = static_cast<size_t>(s.num_scheduled_tokens - s.num_draft_tokens);
    for (int j = 0; j < std::min(accept, s.num_draft_tokens); ++j) sampled[i].push_back(s.token_ids[first + j]);
    sampled[i].push_back(7);
    drafts[i] = propose;
  }
  auto u = sched.Update(out, sampled, drafts);
  if (updates) *updates = std::move(u);
  sched.CheckInvariants();
  return out;
}

TEST(SchedulerSpec, DraftsAreScheduledVerifiedAndRolledBack) {
  Scheduler sched({8, 64, 256}, Kv(64, 64, 4));
  sched.Add(Spec(1, 10, 50));
  SpecStep(sched, 0, {20, 21, 22});  // prefill: samples 7, proposes three drafts
  EXPECT_EQ(sched.Find(1)->num_computed_tokens, 10);
  SchedulerOutput out = SpecStep(sched, 2, {30, 31, 32});  // verifies them: accepts 20, 21, then 7
  ASSERT_EQ(out.seqs.size(), 1u);
  EXPECT_EQ(out.seqs[0].num_scheduled_tokens, 4);
  EXPECT_EQ(out.seqs[0].num_draft_tokens, 3);
  EXPECT_EQ(out.seqs[0].token_ids, (std::vector<int32_t>{7, 20, 21, 22}));
  const Sequence* s = sched.Find(1);
  EXPECT_EQ(s->num_tokens(), 14);  // 10 + 7 + 20 + 21 + 7
  EXPECT_EQ(s->num_computed_tokens, 13);  // 22's slot is rejected: recomputed next step
  EXPECT_EQ(s->draft_token_ids, (std::vector<int32_t>{30, 31, 32}));
  out = SpecStep(sched, 0, {});
  EXPECT_EQ(out.seqs[0].num_computed_tokens, 13);
  EXPECT_EQ(out.seqs[0].token_ids, (std::vector<int32_t>{7, 30, 31, 32}));
  EXPECT_EQ(sched.Find(1)->num_computed_tokens, 14);
  out = SpecStep(sched, 0, {});  // no drafts: a plain decode step
  EXPECT_EQ(out.seqs[0].num_scheduled_tokens, 1);
}

TEST(SchedulerSpec, DraftsAreCutByBudgetMaxTokensAndModelLength) {
  {
    Scheduler sched({8, 3, 256}, Kv(64));  // budget 3: one token + 2 drafts
    sched.Add(Spec(1, 2, 50));
    SpecStep(sched, 0, {1, 2, 3, 4});
    EXPECT_EQ(SpecStep(sched, 0, {}).seqs[0].num_draft_tokens, 2);
  }
  {
    Scheduler sched({8, 64, 256}, Kv(64));
    sched.Add(Spec(1, 2, 3));  // max_tokens 3: after the first token, at most 1 draft (+ the target's)
    SpecStep(sched, 0, {1, 2, 3, 4});
    std::vector<SeqUpdate> u;
    SchedulerOutput out = SpecStep(sched, 1, {}, &u);
    EXPECT_EQ(out.seqs[0].num_draft_tokens, 1);
    ASSERT_EQ(u.size(), 1u);
    EXPECT_EQ(u[0].finish, SeqFinish::kLength);
    EXPECT_EQ(u[0].new_token_ids.size(), 2u);
    EXPECT_EQ(sched.num_running(), 0);
  }
  {
    Scheduler sched({8, 64, 12}, Kv(64));  // max_model_len 12
    sched.Add(Spec(1, 9, 3));
    SpecStep(sched, 0, {1, 2, 3, 4});
    // Positions 10..11 are in reach, but max_tokens binds first (admission keeps prompt +
    // max_tokens within the model length): one draft, then the target's token.
    EXPECT_EQ(SpecStep(sched, 0, {}).seqs[0].num_draft_tokens, 1);
  }
}

TEST(SchedulerSpec, DraftsGoBeforeAnyonePreempts) {
  Scheduler sched({8, 64, 256}, Kv(4, 0, 8, 4));  // 3 usable blocks of 4 tokens
  sched.Add(Spec(1, 7, 5));
  sched.Add(Spec(2, 3, 5, 5));
  SpecStep(sched, 0, {1, 2, 3});  // prefill: seq 1 holds blocks for 0..6, seq 2 for 0..2: all 3 blocks
  SchedulerOutput out = SpecStep(sched, 0, {});
  // Each one's next position fits its blocks, its drafts do not: the drafts are dropped, nobody
  // is preempted for them.
  ASSERT_EQ(out.seqs.size(), 2u);
  EXPECT_EQ(out.seqs[0].num_draft_tokens, 0);
  EXPECT_EQ(out.seqs[1].num_draft_tokens, 0);
  EXPECT_TRUE(out.preempted_seq_ids.empty());
}

TEST(SchedulerSpec, PreemptionDropsDrafts) {
  Scheduler sched({8, 64, 256}, Kv(8, 0, 8, 4));
  sched.Add(Spec(1, 8, 20));
  sched.Add(Spec(2, 8, 20, 5));
  SpecStep(sched, 0, {1, 2, 3});
  for (int i = 0; i < 12 && sched.stats().num_preemptions == 0; ++i) SpecStep(sched, 3, {1, 2, 3});
  ASSERT_GT(sched.stats().num_preemptions, 0u);
  for (SeqId id : {1, 2}) {
    const Sequence* s = sched.Find(id);
    if (s && s->status == SeqStatus::kWaiting) {
      EXPECT_TRUE(s->draft_token_ids.empty());
    }
  }
}

}  // namespace
}  // namespace gemmad::sched
