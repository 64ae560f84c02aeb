#include "sample/sequence_sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "base/rng.h"

namespace gemmad::sample {
namespace {

constexpr int32_t kVocab = 50;

std::vector<float> RandomLogits(uint64_t seed) {
  Rng rng(seed);
  std::vector<float> l(kVocab);
  for (auto& x : l) x = static_cast<float>(rng.Uniform(-3, 3));
  return l;
}

SamplingParams Random(float temperature = 1.0f) {
  SamplingParams p;
  p.temperature = temperature;
  return p;
}

std::vector<int32_t> Draw(SequenceSampler& s, int n, uint64_t logits_seed = 9) {
  std::vector<int32_t> out;
  for (int i = 0; i < n; ++i) {
    auto l = RandomLogits(logits_seed + static_cast<uint64_t>(i));
    auto r = s.Sample(l);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    out.push_back(r->token_id);
  }
  return out;
}

TEST(SequenceSampler, SameSeedSameTokensOtherSeedOtherTokens) {
  SequenceSampler a(Random(), 77, {}, std::nullopt, kVocab, nullptr);
  SequenceSampler b(Random(), 77, {}, std::nullopt, kVocab, nullptr);
  SequenceSampler c(Random(), 78, {}, std::nullopt, kVocab, nullptr);
  auto ta = Draw(a, 30), tb = Draw(b, 30), tc = Draw(c, 30);
  EXPECT_EQ(ta, tb);
  EXPECT_NE(ta, tc);
  EXPECT_EQ(a.output_token_ids(), ta);
}

TEST(SequenceSampler, GreedyIsArgmaxAfterPenalties) {
  SamplingParams p;
  p.temperature = 0.0f;
  SequenceSampler s(p, 1, {}, std::nullopt, kVocab, nullptr);
  auto l = RandomLogits(4);
  auto expected = static_cast<int32_t>(std::max_element(l.begin(), l.end()) - l.begin());
  EXPECT_EQ(s.Sample(l)->token_id, expected);
  // Presence penalty pushes the repeated token down: greedy picks another one next time.
  SamplingParams pp = p;
  pp.presence_penalty = 2.0f;
  pp.frequency_penalty = 2.0f;
  SequenceSampler s2(pp, 1, {}, std::nullopt, kVocab, nullptr);
  std::vector<float> flat(kVocab, 0.0f);
  flat[5] = 3.0f;
  flat[6] = 0.5f;
  auto f1 = flat, f2 = flat;
  EXPECT_EQ(s2.Sample(f1)->token_id, 5);
  EXPECT_EQ(s2.Sample(f2)->token_id, 6);  // 3 - 2 - 2 = -1 < 0.5
}

TEST(SequenceSampler, RepetitionPenaltyCoversPromptTokens) {
  SamplingParams p;
  p.temperature = 0.0f;
  p.repetition_penalty = 4.0f;
  std::vector<int32_t> prompt = {5};
  SequenceSampler s(p, 1, prompt, std::nullopt, kVocab, nullptr);
  std::vector<float> l(kVocab, 0.0f);
  l[5] = 3.0f;  // 3 / 4 = 0.75 < 1
  l[6] = 1.0f;
  EXPECT_EQ(s.Sample(l)->token_id, 6);
}

TEST(SequenceSampler, MinTokensMasksEosAndStopIds) {
  SamplingParams p;
  p.temperature = 0.0f;
  p.min_tokens = 2;
  p.stop_token_ids = {7};
  SequenceSampler s(p, 1, {}, /*eos=*/3, kVocab, nullptr);
  for (int i = 0; i < 3; ++i) {
    std::vector<float> l(kVocab, 0.0f);
    l[3] = 10.0f;
    l[7] = 9.0f;
    l[11] = 1.0f;
    int32_t t = s.Sample(l)->token_id;
    EXPECT_EQ(t, i < 2 ? 11 : 3) << i;
  }
}

TEST(SequenceSampler, LogitBiasAndAllowedIds) {
  SamplingParams p;
  p.temperature = 0.0f;
  p.logit_bias = {{9, 100.0f}};
  SequenceSampler s(p, 1, {}, std::nullopt, kVocab, nullptr);
  auto l = RandomLogits(2);
  EXPECT_EQ(s.Sample(l)->token_id, 9);
  SamplingParams a;
  a.temperature = 1.0f;
  a.allowed_token_ids = {4, 8};
  SequenceSampler sa(a, 3, {}, std::nullopt, kVocab, nullptr);
  for (int32_t t : Draw(sa, 50)) EXPECT_TRUE(t == 4 || t == 8) << t;
}

TEST(SequenceSampler, LogprobsAreRawEvenWithProcessors) {
  SamplingParams p;
  p.temperature = 0.3f;
  p.logit_bias = {{2, 50.0f}};
  p.logprobs = 2;
  SequenceSampler s(p, 1, {}, std::nullopt, kVocab, nullptr);
  auto l = RandomLogits(6);
  const auto raw = l;
  auto r = s.Sample(l);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->token_id, 2);
  ASSERT_TRUE(r->logprobs.has_value());
  double lse = 0;
  for (float x : raw) lse += std::exp(static_cast<double>(x));
  lse = std::log(lse);
  EXPECT_NEAR(r->logprobs->logprob, raw[2] - lse, 1e-5);
  ASSERT_EQ(r->logprobs->top.size(), 2u);
  const int32_t best = static_cast<int32_t>(std::max_element(raw.begin(), raw.end()) - raw.begin());
  EXPECT_EQ(r->logprobs->top[0].token_id, best);
}

// A grammar that allows only even tokens and records what it was told.
class EvenOnly : public TokenConstraint {
 public:
  explicit EvenOnly(bool active, int reject_after = -1) : active_(active), reject_after_(reject_after) {}
  bool FillNextTokenBitmask(std::span<uint32_t> bitmask) override {
    if (!active_) return false;
    for (auto& w : bitmask) w = 0x55555555u;
    return true;
  }
  Status AcceptToken(int32_t token) override {
    accepted.push_back(token);
    if (reject_after_ >= 0 && static_cast<int>(accepted.size()) > reject_after_) {
      return InvalidArgumentError("not in the grammar");
    }
    return OkStatus();
  }
  std::vector<int32_t> accepted;

 private:
  bool active_;
  int reject_after_;
};

TEST(SequenceSampler, GrammarBitmaskRestrictsAndIsToldTokens) {
  SamplingParams p = Random();
  p.logprobs = 0;
  auto c = std::make_unique<EvenOnly>(true);
  EvenOnly* grammar = c.get();
  SequenceSampler s(p, 5, {}, std::nullopt, kVocab, std::move(c));
  std::vector<int32_t> tokens;
  for (int i = 0; i < 40; ++i) {
    auto l = RandomLogits(100 + static_cast<uint64_t>(i));
    const auto raw = l;
    auto r = s.Sample(l);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->token_id % 2, 0);
    // vLLM applies the grammar before computing logprobs: the softmax runs over even tokens.
    double lse = 0;
    for (size_t t = 0; t < raw.size(); t += 2) lse += std::exp(static_cast<double>(raw[t]));
    EXPECT_NEAR(r->logprobs->logprob, raw[static_cast<size_t>(r->token_id)] - std::log(lse), 1e-5);
    tokens.push_back(r->token_id);
  }
  EXPECT_EQ(grammar->accepted, tokens);
}

TEST(SequenceSampler, InactiveGrammarDoesNotRestrictAndRejectionIsAnError) {
  SequenceSampler free(Random(), 5, {}, std::nullopt, kVocab, std::make_unique<EvenOnly>(false));
  bool odd = false;
  for (int32_t t : Draw(free, 40)) odd |= (t % 2 == 1);
  EXPECT_TRUE(odd);
  SequenceSampler strict(Random(), 5, {}, std::nullopt, kVocab, std::make_unique<EvenOnly>(true, 1));
  auto l1 = RandomLogits(1), l2 = RandomLogits(2);
  EXPECT_TRUE(strict.Sample(l1).ok());
  auto r = strict.Sample(l2);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("not in the grammar"), std::string::npos);
}

TEST(SequenceSampler, EverythingMaskedIsAnErrorNotACrash) {
  SamplingParams p = Random();
  p.allowed_token_ids = {3};
  SequenceSampler s(p, 1, {}, std::nullopt, kVocab, nullptr);
  std::vector<float> l(kVocab, 0.0f);
  l[3] = kNegInf;
  EXPECT_FALSE(s.Sample(l).ok());
}

}  // namespace
}  // namespace gemmad::sample
