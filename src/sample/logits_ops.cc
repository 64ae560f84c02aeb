// Logit transforms and the filtered categorical draw (vLLM v1 sampler semantics).
#include "sample/logits_ops.h"

#include <algorithm>
#include <cmath>

#include "kernels/ops.h"

namespace gemmad::sample {
namespace {

inline bool Finite(float x) { return x > kNegInf && !std::isnan(x); }

constexpr size_t kSampleBlock = 1024;  // logits per block of the draw's running sum

// The largest logit, -inf when none is finite (NaN and -inf never compare greater), with eight
// independent running maxima so that the compares do not wait on each other.
float MaxLogit(std::span<const float> logits) {
  float m[8];
  std::fill(m, m + 8, kNegInf);
  const size_t n = logits.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) m[k] = logits[i + k] > m[k] ? logits[i + k] : m[k];
  }
  for (; i < n; ++i) m[0] = logits[i] > m[0] ? logits[i] : m[0];
  float mx = kNegInf;
  for (float v : m) mx = v > mx ? v : mx;
  return mx;
}

}  // namespace

double LogSumExp(std::span<const float> logits) {
  const float mx = MaxLogit(logits);
  if (!Finite(mx)) return -std::numeric_limits<double>::infinity();
  double sum = 0.0;
  for (float x : logits) {
    if (Finite(x)) sum += std::exp(x - mx);
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
    if (x >= mine) ++rank;  // NaN compares false
  }
  out.rank = std::max(rank, 1);
  const int32_t vocab = static_cast<int32_t>(logits.size());
  const int32_t k = std::clamp(num_top, 0, vocab);
  if (k > 0) {
    auto value = [&](int32_t t) {
      float x = logits[static_cast<size_t>(t)];
      return std::isnan(x) ? kNegInf : x;
    };
    // "a ranks before b": larger logit, then smaller id.
    auto before = [&](int32_t a, int32_t b) {
      const float la = value(a), lb = value(b);
      return la != lb ? la > lb : a < b;
    };
    std::vector<int32_t> ids;
    if (k <= 64) {
      // One pass with a k-element heap whose top is the worst kept token.
      ids.reserve(static_cast<size_t>(k) + 1);
      for (int32_t t = 0; t < vocab; ++t) {
        if (static_cast<int32_t>(ids.size()) < k) {
          ids.push_back(t);
          std::push_heap(ids.begin(), ids.end(), before);
        } else if (before(t, ids.front())) {
          std::pop_heap(ids.begin(), ids.end(), before);
          ids.back() = t;
          std::push_heap(ids.begin(), ids.end(), before);
        }
      }
      std::sort(ids.begin(), ids.end(), before);
    } else {
      ids.resize(static_cast<size_t>(vocab));
      for (int32_t i = 0; i < vocab; ++i) ids[static_cast<size_t>(i)] = i;
      std::partial_sort(ids.begin(), ids.begin() + k, ids.end(), before);
      ids.resize(static_cast<size_t>(k));
    }
    out.top.reserve(ids.size());
    for (int32_t t : ids) out.top.push_back({t, lp(t)});
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
                       float min_p, double uniform, FilterScratch* scratch, const kernels::ExecContext& exec) {
  auto& cand = scratch->cand;  // first (logit, id), then (probability / max probability, id)
  cand.clear();
  const float mx = MaxLogit(logits);
  if (!Finite(mx)) return -1;
  const double t = static_cast<double>(temperature);
  // min_p: prob >= min_p * max prob  <=>  logit >= max + T * ln(min_p).
  const double floor = min_p > 0.0f ? mx + t * std::log(static_cast<double>(min_p)) : -1e300;
  if (top_k <= 0 && top_p >= 1.0f) {  // temperature (and min_p) only: no candidate list needed
    // The weights through the backend's ExpShifted op, then the filter; the mass is summed
    // per block (four interleaved sums each, so the adds do not wait on one another), and the
    // draw skips whole blocks before it scans one.
    const size_t n = logits.size(), num_blocks = (n + kSampleBlock - 1) / kSampleBlock;
    auto& r = scratch->values;
    r.resize(n);
    const tensor::Shape shape{static_cast<int64_t>(n)};
    kernels::ExpShifted(exec, tensor::TensorView{const_cast<float*>(logits.data()), tensor::DType::kF32, shape}, mx,
                        static_cast<float>(1.0 / t), tensor::TensorView{r.data(), tensor::DType::kF32, shape});
    auto& blocks = scratch->block_sums;
    blocks.assign(num_blocks, 0.0);
    double total = 0.0;
    int32_t last = -1;
    for (size_t bi = 0; bi < num_blocks; ++bi) {
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      const size_t b = bi * kSampleBlock, e = std::min(n, b + kSampleBlock);
      size_t i = b;
      const auto keep = [&](size_t j) {  // the filtered weight of logit j
        if (!Finite(logits[j]) || static_cast<double>(logits[j]) < floor) r[j] = 0.0f;
        return static_cast<double>(r[j]);
      };
      for (; i + 4 <= e; i += 4) {
        s0 += keep(i);
        s1 += keep(i + 1);
        s2 += keep(i + 2);
        s3 += keep(i + 3);
      }
      for (; i < e; ++i) s0 += keep(i);
      for (size_t j = e; j > b; --j) {
        if (r[j - 1] > 0.0f) {
          last = static_cast<int32_t>(j - 1);
          break;
        }
      }
      blocks[bi] = (s0 + s1) + (s2 + s3);
      total += blocks[bi];
    }
    const double target = uniform * total;
    double acc = 0.0;
    for (size_t bi = 0; bi < num_blocks; ++bi) {
      if (acc + blocks[bi] <= target) {
        acc += blocks[bi];
        continue;
      }
      for (size_t i = bi * kSampleBlock, e = std::min(n, i + kSampleBlock); i < e; ++i) {
        if (r[i] <= 0.0f) continue;
        acc += r[i];
        if (acc > target) return static_cast<int32_t>(i);
      }
    }
    return last;  // rounding left the running sum at or below the target: the last token with mass
  }
  for (size_t i = 0; i < logits.size(); ++i) {
    if (Finite(logits[i]) && static_cast<double>(logits[i]) >= floor) cand.emplace_back(logits[i], static_cast<int32_t>(i));
  }
  if (top_k > 0 && static_cast<size_t>(top_k) < cand.size()) {
    auto& v = scratch->values;
    v.clear();
    for (const auto& c : cand) v.push_back(static_cast<float>(c.first));
    std::nth_element(v.begin(), v.begin() + (top_k - 1), v.end(), std::greater<float>());
    const double kth = v[static_cast<size_t>(top_k - 1)];
    std::erase_if(cand, [&](const auto& c) { return c.first < kth; });  // ties with the k-th stay
  }
  for (auto& c : cand) c.first = std::exp(static_cast<float>((c.first - mx) / t));
  if (top_p < 1.0f) {
    double total = 0.0;
    for (const auto& c : cand) total += c.first;
    // Tokens below (1 - p) * total / n together hold less than (1 - p) of the mass, so vLLM's
    // ascending-cumsum rule masks all of them: drop them before sorting.
    const double tiny = (1.0 - static_cast<double>(top_p)) * total / static_cast<double>(cand.size());
    std::erase_if(cand, [&](const auto& c) { return c.first < tiny; });
    const double limit = static_cast<double>(top_p) * total;
    std::sort(cand.begin(), cand.end(),
              [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
    // Keep the most likely tokens while the mass before them is below p.
    size_t keep = cand.size();
    double before = 0.0;
    for (size_t j = 0; j < cand.size(); ++j) {
      if (before >= limit && j > 0) {
        keep = j;
        break;
      }
      before += cand[j].first;
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
