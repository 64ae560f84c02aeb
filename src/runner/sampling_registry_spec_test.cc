// Verification of drafts in SamplingRegistry::Consume keeps the target's output distribution: for
// any draft, the first output token is distributed as the target's first row, and given that it
// equals the draft, the next one as the second row (speculative rejection sampling with a
// point-mass draft). Chi-square tests over fixed seeds (deterministic, not flaky).
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "runner/sampling_registry.h"

namespace gemmad::runner {
namespace {

constexpr int32_t kVocab = 8;

std::vector<double> Softmax(const std::vector<float>& l) {
  double m = l[0], z = 0;
  for (float x : l) m = std::max<double>(m, x);
  std::vector<double> p;
  for (float x : l) z += std::exp(x - m);
  for (float x : l) p.push_back(std::exp(x - m) / z);
  return p;
}

double ChiSquare(const std::vector<int64_t>& counts, const std::vector<double>& p) {
  int64_t n = 0;
  for (int64_t c : counts) n += c;
  double chi = 0;
  for (size_t i = 0; i < p.size(); ++i) {
    const double e = p[i] * static_cast<double>(n);
    chi += (static_cast<double>(counts[i]) - e) * (static_cast<double>(counts[i]) - e) / e;
  }
  return chi;
}

struct Outcome {
  std::vector<int32_t> tokens;
};

// One verification round of drafts {d1, d2} over rows r0 (predicts the token after the last
// known one), r1, r2, for a fresh sequence with `seed`.
Outcome Verify(SamplingRegistry& reg, kv::SeqId id, uint64_t seed, float temperature, int32_t d1, int32_t d2,
               const std::vector<std::vector<float>>& rows) {
  sched::SchedulerOutput out;
  sched::NewSequence n;
  n.seq_id = id;
  n.prompt_token_ids = {3, 4, 5};
  n.params.temperature = temperature;
  n.params.max_tokens = 16;
  n.params = sample::Normalized(n.params, kVocab);
  n.seed = seed;
  out.new_seqs.push_back(n);
  if (id > 1) out.finished_seq_ids.push_back(id - 1);
  reg.Apply(out);
  sched::ScheduledSeq s;
  s.seq_id = id;
  s.num_computed_tokens = 3;  // the prompt's KV; token 6 was sampled at prefill
  s.num_scheduled_tokens = 3;
  s.token_ids = {6, d1, d2};
  s.num_draft_tokens = 2;
  s.num_prompt_tokens = 3;
  s.sample = true;
  EXPECT_EQ(reg.LogitRows(s), (std::vector<int32_t>{0, 1, 2}));
  std::vector<float> buf;
  for (const auto& r : rows) buf.insert(buf.end(), r.begin(), r.end());
  SeqStepResult res = reg.Consume(s, buf);
  EXPECT_TRUE(res.error.ok());
  return {res.sampled_token_ids};
}

const std::vector<std::vector<float>> kRows = {
    {1.0f, 0.2f, -0.5f, 2.0f, 0.0f, 1.5f, -1.0f, 0.7f},
    {0.1f, 1.2f, 0.3f, -0.4f, 2.2f, 0.0f, 0.9f, -2.0f},
    {-0.3f, 0.0f, 0.0f, 1.0f, 0.5f, 0.5f, 2.5f, 0.1f}};

TEST(DraftVerification, KeepsTheTargetDistribution) {
  SamplingRegistry reg(kVocab);
  const auto p0 = Softmax(kRows[0]), p1 = Softmax(kRows[1]);
  // Draft 5 (p0 = 0.21) then 4; many seeds.
  std::vector<int64_t> first(kVocab, 0), second(kVocab, 0);
  int64_t accepted_both = 0;
  const int kTrials = 40000;
  for (int t = 0; t < kTrials; ++t) {
    Outcome o = Verify(reg, static_cast<kv::SeqId>(t + 1), 1000003ull * static_cast<uint64_t>(t) + 17, 1.0f, 5, 4, kRows);
    ASSERT_GE(o.tokens.size(), 1u);
    ASSERT_LE(o.tokens.size(), 3u);
    ++first[static_cast<size_t>(o.tokens[0])];
    if (o.tokens[0] != 5) {
      EXPECT_EQ(o.tokens.size(), 1u);  // rejected: the target's token ends the round
      continue;
    }
    ASSERT_GE(o.tokens.size(), 2u);
    ++second[static_cast<size_t>(o.tokens[1])];
    if (o.tokens[1] == 4) {
      EXPECT_EQ(o.tokens.size(), 3u);  // both accepted: plus the target's token after them
      ++accepted_both;
    }
  }
  // 7 degrees of freedom: P(chi2 > 24.32) = 0.001.
  EXPECT_LT(ChiSquare(first, p0), 24.32);
  EXPECT_LT(ChiSquare(second, p1), 24.32);
  // The acceptance rate of draft 1 is p0(5), as rejection sampling's min(1, p/q) with q = 1.
  EXPECT_NEAR(static_cast<double>(first[5]) / kTrials, p0[5], 0.01);
  EXPECT_GT(accepted_both, 0);
  // A wrong distribution is caught by the same test: the counts of the first row against p1.
  EXPECT_GT(ChiSquare(first, p1), 1000.0);
}

TEST(DraftVerification, GreedyAcceptsExactlyTheArgmaxPrefix) {
  SamplingRegistry reg(kVocab);
  EXPECT_EQ(Verify(reg, 1, 1, 0.0f, 3, 4, kRows).tokens, (std::vector<int32_t>{3, 4, 6}));  // all accepted
  EXPECT_EQ(Verify(reg, 2, 1, 0.0f, 3, 1, kRows).tokens, (std::vector<int32_t>{3, 4}));     // second rejected
  EXPECT_EQ(Verify(reg, 3, 1, 0.0f, 0, 4, kRows).tokens, (std::vector<int32_t>{3}));        // first rejected
}

}  // namespace
}  // namespace gemmad::runner
