#include "sample/logits_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <vector>

#include "base/rng.h"

namespace gemmad::sample {
namespace {

std::vector<float> LogitsOf(const std::vector<double>& probs) {
  std::vector<float> l;
  for (double p : probs) l.push_back(p > 0 ? static_cast<float>(std::log(p)) : kNegInf);
  return l;
}

// Draws `n` samples and checks each token's frequency against `expected` (probabilities) with
// a 5-sigma binomial bound; tokens with expected 0 must never appear.
void ExpectDistribution(const std::vector<float>& logits, float temperature, int32_t top_k, float top_p,
                        float min_p, const std::vector<double>& expected, uint64_t seed = 1) {
  Rng rng(seed);
  FilterScratch scratch;
  const int n = 40000;
  std::vector<int> counts(logits.size(), 0);
  for (int i = 0; i < n; ++i) {
    int32_t t = SampleFiltered(logits, temperature, top_k, top_p, min_p, rng.Uniform(), &scratch);
    ASSERT_GE(t, 0);
    ++counts[static_cast<size_t>(t)];
  }
  for (size_t t = 0; t < logits.size(); ++t) {
    const double p = expected[t];
    if (p == 0.0) {
      EXPECT_EQ(counts[t], 0) << "token " << t;
      continue;
    }
    const double sigma = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(counts[t], n * p, 5 * sigma + 1) << "token " << t;
  }
}

TEST(SampleFiltered, PlainSamplingFollowsSoftmax) {
  ExpectDistribution(LogitsOf({0.5, 0.3, 0.1, 0.1}), 1.0f, 0, 1.0f, 0.0f, {0.5, 0.3, 0.1, 0.1});
}

TEST(SampleFiltered, TemperatureSharpens) {
  // T = 0.5 squares the probabilities: 0.25, 0.09, 0.01, 0.01 (sum 0.36).
  ExpectDistribution(LogitsOf({0.5, 0.3, 0.1, 0.1}), 0.5f, 0, 1.0f, 0.0f,
                     {0.25 / 0.36, 0.09 / 0.36, 0.01 / 0.36, 0.01 / 0.36});
}

TEST(SampleFiltered, TopKKeepsTheKLargestAndTies) {
  ExpectDistribution(LogitsOf({0.1, 0.5, 0.3, 0.1}), 1.0f, 2, 1.0f, 0.0f, {0, 0.625, 0.375, 0});
  // Ties with the k-th value are kept (vLLM masks only logits below the k-th largest).
  ExpectDistribution({1.0f, 1.0f, 1.0f, 0.0f}, 1.0f, 2, 1.0f, 0.0f, {1 / 3.0, 1 / 3.0, 1 / 3.0, 0});
}

TEST(SampleFiltered, TopPKeepsTheSmallestNucleus) {
  // 0.5 < 0.6 so the next token (0.3) joins; then 0.8 >= 0.6 stops.
  ExpectDistribution(LogitsOf({0.1, 0.5, 0.1, 0.3}), 1.0f, 0, 0.6f, 0.0f, {0, 0.625, 0, 0.375});
  ExpectDistribution(LogitsOf({0.1, 0.5, 0.1, 0.3}), 1.0f, 0, 0.5f, 0.0f, {0, 1.0, 0, 0});
  // top_k then top_p over the renormalised top-k.
  ExpectDistribution(LogitsOf({0.05, 0.45, 0.2, 0.3}), 1.0f, 3, 0.55f, 0.0f, {0, 0.6, 0, 0.4});
}

TEST(SampleFiltered, MinPDropsTokensBelowAFractionOfTheMax) {
  ExpectDistribution(LogitsOf({0.5, 0.3, 0.1, 0.1}), 1.0f, 0, 1.0f, 0.25f, {0.625, 0.375, 0, 0});
}

TEST(SampleFiltered, LargeVocabTopP) {
  // 1000 tokens, geometric probabilities: check the nucleus boundary with chunked sorting.
  std::vector<double> p(1000);
  double sum = 0;
  for (size_t i = 0; i < p.size(); ++i) sum += (p[i] = std::pow(0.995, static_cast<double>(i)));
  for (auto& x : p) x /= sum;
  std::vector<double> expected(p.size(), 0.0);
  double acc = 0, kept = 0;
  size_t k = 0;
  for (; k < p.size() && acc < 0.9; ++k) acc += p[k];
  for (size_t i = 0; i < k; ++i) kept += p[i];
  for (size_t i = 0; i < k; ++i) expected[i] = p[i] / kept;
  Rng rng(3);
  FilterScratch scratch;
  auto logits = LogitsOf(p);
  for (int i = 0; i < 20000; ++i) {
    int32_t t = SampleFiltered(logits, 1.0f, 0, 0.9f, 0.0f, rng.Uniform(), &scratch);
    ASSERT_LT(static_cast<size_t>(t), k);
  }
}

TEST(SampleFiltered, NothingFiniteReturnsMinusOne) {
  FilterScratch scratch;
  std::vector<float> l(4, kNegInf);
  EXPECT_EQ(SampleFiltered(l, 1.0f, 0, 1.0f, 0.0f, 0.5, &scratch), -1);
  EXPECT_EQ(ArgMax(l), -1);
}

TEST(ArgMax, LowestIdWinsTies) { EXPECT_EQ(ArgMax(std::vector<float>{0.0f, 2.0f, 2.0f, 1.0f}), 1); }

TEST(Penalties, MatchTheReferenceFormula) {
  Rng rng(5);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> logits(40);
    for (auto& x : logits) x = static_cast<float>(rng.Uniform(-3, 3));
    std::vector<int32_t> prompt, output;
    for (int i = 0; i < 10; ++i) prompt.push_back(static_cast<int32_t>(rng.Below(40)));
    for (int i = 0; i < 15; ++i) output.push_back(static_cast<int32_t>(rng.Below(40)));
    const float rep = static_cast<float>(rng.Uniform(0.5, 2.0));
    const float freq = static_cast<float>(rng.Uniform(-2, 2));
    const float pres = static_cast<float>(rng.Uniform(-2, 2));
    // Reference: vLLM's masks over the whole vocabulary.
    std::vector<float> expected = logits;
    std::vector<int> out_count(40, 0);
    std::vector<bool> in_prompt(40, false);
    for (int32_t t : prompt) in_prompt[static_cast<size_t>(t)] = true;
    for (int32_t t : output) ++out_count[static_cast<size_t>(t)];
    for (size_t v = 0; v < 40; ++v) {
      if (in_prompt[v] || out_count[v] > 0) expected[v] = expected[v] > 0 ? expected[v] / rep : expected[v] * rep;
      expected[v] -= freq * static_cast<float>(out_count[v]);
      expected[v] -= pres * (out_count[v] > 0 ? 1.0f : 0.0f);
    }
    std::vector<int32_t> unique = prompt;
    std::sort(unique.begin(), unique.end());
    unique.erase(std::unique(unique.begin(), unique.end()), unique.end());
    std::unordered_map<int32_t, int32_t> counts;
    for (int32_t t : output) ++counts[t];
    ApplyPenalties(logits, unique, counts, rep, freq, pres);
    for (size_t v = 0; v < 40; ++v) EXPECT_NEAR(logits[v], expected[v], 1e-5) << v;
  }
}

TEST(Filters, AllowedTokensBadWordsBitmask) {
  std::vector<float> l(8, 1.0f);
  ApplyAllowedTokens(l, std::vector<int32_t>{2, 5});
  for (size_t i = 0; i < 8; ++i) EXPECT_EQ(std::isinf(l[i]), i != 2 && i != 5) << i;

  std::vector<float> b(8, 1.0f);
  std::vector<std::vector<int32_t>> words = {{3}, {4, 5, 6}, {7, 1}};
  ApplyBadWords(b, words, std::vector<int32_t>{0, 4, 5});
  EXPECT_TRUE(std::isinf(b[3]));   // one-token word: always
  EXPECT_TRUE(std::isinf(b[6]));   // output ends with 4 5
  EXPECT_FALSE(std::isinf(b[1]));  // output does not end with 7

  std::vector<float> m(40, 0.5f);
  std::vector<uint32_t> mask = {0x5u, 0x80u};  // tokens 0, 2 and 39
  ApplyBitmask(m, mask);
  for (size_t i = 0; i < 40; ++i) EXPECT_EQ(std::isinf(m[i]), !(i == 0 || i == 2 || i == 39)) << i;
}

TEST(GatherLogprobs, LogSoftmaxRankAndTop) {
  std::vector<float> l = {1.0f, 3.0f, 3.0f, kNegInf, 0.0f};
  const double lse = std::log(std::exp(1.0) + 2 * std::exp(3.0) + 1.0);
  TokenLogprobs lp = GatherLogprobs(l, 0, 3);
  EXPECT_NEAR(lp.logprob, 1.0 - lse, 1e-6);
  EXPECT_EQ(lp.rank, 3);  // tokens 1, 2 and itself are >= it
  ASSERT_EQ(lp.top.size(), 3u);
  EXPECT_EQ(lp.top[0].token_id, 1);
  EXPECT_EQ(lp.top[1].token_id, 2);
  EXPECT_EQ(lp.top[2].token_id, 0);
  TokenLogprobs masked = GatherLogprobs(l, 3, 0);
  EXPECT_TRUE(std::isinf(masked.logprob));
  EXPECT_EQ(masked.rank, 5);
  EXPECT_EQ(GatherLogprobs(l, 1, 0).rank, 2);  // ties count
}

}  // namespace
}  // namespace gemmad::sample
