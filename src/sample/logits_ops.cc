// Logit transforms and the filtered categorical draw (vLLM v1 sampler semantics).
#include "sample/logits_ops.h"

#include <algorithm>
#include <cmath>

namespace gemmad::sample {
namespace {

inline bool Finite(float x) { return x > kNegInf && !std::isnan(x); }

}  // namespace

double LogSumExp(std::span<const float> logits) {
  float mx = kNegInf;
  for (float x : logits) {
    if (Finite(x) && x > mx) mx = x;
  }
  if (!Finite(mx)) return -std::numeric_limits<double>::infinity();
  double sum = 0.0;
  for (float x : logits) {
    if (Finite(x)) sum += std::exp(static_cast<double>(x) - mx);
  }
  return mx + std::log(sum);
}

TokenLogprobs GatherLogprobs(std::span<const float> logits, int32_t token, int32_t num_top) {
  const double lse = LogSumExp(logits);
  auto lp = [&](int32_t t) {
    float x = logits[static_cast<size_t>(t)];
    return Finite(x) ? static_cast<float>(x - lse) : kNegInf;
  };
  TokenLogprobs out;
  out.token_id = token;
  out.logprob = lp(token);
  const float mine = logits[static_cast<size_t>(token)];
  int32_t rank = 0;
  for (float x : logits) {
    if (x >= mine || (!Finite(mine) && !std::isnan(x))) ++rank;
  }
  out.rank = std::max(rank, 1);
  const int32_t vocab = static_cast<int32_t>(logits.size());
  const int32_t k = std::clamp(num_top, 0, vocab);
  if (k > 0) {
    std::vector<int32_t> ids(static_cast<size_t>(vocab));
    for (int32_t i = 0; i < vocab; ++i) ids[static_cast<size_t>(i)] = i;
    auto better = [&](int32_t a, int32_t b) {
      float la = logits[static_cast<size_t>(a)], lb = logits[static_cast<size_t>(b)];
      if (std::isnan(la)) la = kNegInf;
      if (std::isnan(lb)) lb = kNegInf;
      return la != lb ? la > lb : a < b;
    };
    std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), better);
    out.top.reserve(static_cast<size_t>(k));
    for (int32_t i = 0; i < k; ++i) out.top.push_back({ids[static_cast<size_t>(i)], lp(ids[static_cast<size_t>(i)])});
  }
  return out;
}

void ApplyBitmask(std::span<float> logits, std::span<const uint32_t> bitmask) {
  for (size_t t = 0; t < logits.size(); ++t) {
    if (!((bitmask[t / 32] >> (t % 32)) & 1u)) logits[t] = kNegInf;
  }
}

void ApplyAllowedTokens(std::span<float> logits, std::span<const int32_t> allowed) {
  if (allowed.empty()) return;
  std::vector<float> keep(allowed.size());
  for (size_t i = 0; i < allowed.size(); ++i) keep[i] = logits[static_cast<size_t>(allowed[i])];
  std::fill(logits.begin(), logits.end(), kNegInf);
  for (size_t i = 0; i < allowed.size(); ++i) logits[static_cast<size_t>(allowed[i])] = keep[i];
}

void ApplyBadWords(std::span<float> logits, const std::vector<std::vector<int32_t>>& bad_words,
                   std::span<const int32_t> output_tokens) {
  for (const auto& word : bad_words) {
    if (word.empty()) continue;
    const size_t prefix = word.size() - 1;
    if (prefix > output_tokens.size()) continue;
    if (std::equal(word.begin(), word.end() - 1, output_tokens.end() - static_cast<ptrdiff_t>(prefix))) {
      logits[static_cast<size_t>(word.back())] = kNegInf;
    }
  }
}

void ApplyPenalties(std::span<float> logits, std::span<const int32_t> prompt_unique,
                    const std::unordered_map<int32_t, int32_t>& output_counts, float repetition,
                    float frequency, float presence) {
  auto repeat = [&](int32_t t) {
    float& x = logits[static_cast<size_t>(t)];
    x = x > 0 ? x / repetition : x * repetition;
  };
  if (repetition != 1.0f) {
    for (int32_t t : prompt_unique) repeat(t);
    for (const auto& [t, count] : output_counts) {
      if (!std::binary_search(prompt_unique.begin(), prompt_unique.end(), t)) repeat(t);
    }
  }
  if (frequency != 0.0f || presence != 0.0f) {
    for (const auto& [t, count] : output_counts) {
      logits[static_cast<size_t>(t)] -= frequency * static_cast<float>(count) + (count > 0 ? presence : 0.0f);
    }
  }
}

int32_t ArgMax(std::span<const float> logits) {
  int32_t best = -1;
  float best_value = kNegInf;
  for (size_t i = 0; i < logits.size(); ++i) {
    if (Finite(logits[i]) && (best < 0 || logits[i] > best_value)) {
      best = static_cast<int32_t>(i);
      best_value = logits[i];
    }
  }
  return best;
}

int32_t SampleFiltered(std::span<const float> logits, float temperature, int32_t top_k, float top_p,
                       float min_p, double uniform, FilterScratch* scratch) {
  auto& cand = scratch->cand;
  cand.clear();
  float mx = kNegInf;
  for (float x : logits) {
    if (Finite(x) && x > mx) mx = x;
  }
  if (!Finite(mx)) return -1;
  const double inv_t = 1.0 / static_cast<double>(temperature);
  for (size_t i = 0; i < logits.size(); ++i) {
    if (!Finite(logits[i])) continue;
    const double r = std::exp((static_cast<double>(logits[i]) - mx) * inv_t);  // prob / max prob
    if (min_p > 0.0f && r < static_cast<double>(min_p)) continue;
    cand.emplace_back(r, static_cast<int32_t>(i));
  }
  if (top_k > 0 && static_cast<size_t>(top_k) < cand.size()) {
    auto& v = scratch->values;
    v.clear();
    for (const auto& c : cand) v.push_back(logits[static_cast<size_t>(c.second)]);
    std::nth_element(v.begin(), v.begin() + (top_k - 1), v.end(), std::greater<float>());
    const float kth = v[static_cast<size_t>(top_k - 1)];
    std::erase_if(cand, [&](const auto& c) { return logits[static_cast<size_t>(c.second)] < kth; });
  }
  if (top_p < 1.0f) {
    double total = 0.0;
    for (const auto& c : cand) total += c.first;
    const double limit = static_cast<double>(top_p) * total;
    auto desc = [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; };
    // Sort most likely first, in growing chunks: the nucleus is usually small.
    size_t sorted = 0, keep = cand.size();
    double before = 0.0;
    while (sorted < cand.size() && keep == cand.size()) {
      size_t upto = std::min(cand.size(), std::max<size_t>(256, sorted * 4));
      std::partial_sort(cand.begin() + static_cast<ptrdiff_t>(sorted), cand.begin() + static_cast<ptrdiff_t>(upto),
                        cand.end(), desc);
      for (size_t j = sorted; j < upto; ++j) {
        if (before >= limit && j > 0) {
          keep = j;
          break;
        }
        before += cand[j].first;
      }
      sorted = upto;
    }
    cand.resize(keep);
  }
  double total = 0.0;
  for (const auto& c : cand) total += c.first;
  const double target = uniform * total;
  double acc = 0.0;
  for (const auto& c : cand) {
    acc += c.first;
    if (acc > target) return c.second;
  }
  return cand.back().second;
}

}  // namespace gemmad::sample
