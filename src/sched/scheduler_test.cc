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
