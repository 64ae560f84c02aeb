// Parity of KvCacheWrite + PagedAttention with the contiguous reference attention: several
// sequences in one batch (prefill chunks and decode rows), shuffled physical blocks, sliding
// windows with freed (-1) blocks below the window, GQA, fp32 and bf16 caches, and rows that read
// later keys of their bidirectional span (AttentionSequence::key_end).
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <span>
#include <vector>

#include "kernels/backend.h"
#include "kernels/ops.h"
#include "kernels/reference/attention.h"
#include "kernels/thread_pool.h"
#include "kernels/view_checks.h"
#include "parity_util.h"
#include "tensor/fp8.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::View;

struct SeqSpec {
  int64_t first;  // keys already cached
  int64_t count;  // new query rows
  // Bidirectional spans [begin, end) in key indices, ascending and disjoint, each ending inside
  // the step (end <= first + count): a row inside one also reads the span's later keys.
  std::vector<std::pair<int64_t, int64_t>> spans = {};
};

// key_end of each new row of `s` (empty when it has no spans: the causal default, null).
std::vector<int64_t> KeyEnds(const SeqSpec& s) {
  if (s.spans.empty()) return {};
  std::vector<int64_t> ends(static_cast<size_t>(s.count));
  for (int64_t t = 0; t < s.count; ++t) {
    const int64_t j = s.first + t;
    ends[t] = j + 1;
    for (const auto& [b, e] : s.spans) {
      if (j >= b && j < e) ends[t] = e;
    }
  }
  return ends;
}

// Every row is also recomputed alone (as a decode step would see it) and must match its batched
// result bit for bit. q_scale widens the score range (most softmax weights underflow at 50); the
// tolerance grows with it, as the scores' float rounding does.
// An FP8 cache may take KvScales (k_scale / v_scale: empty, one, or one per KV head); the keys the
// reference sees are then e4m3(x / s) · s.
void RunCase(const ExecContext& ctx, DType cache_dtype, int64_t window, int64_t block_size, int64_t heads,
             int64_t kv_heads, int64_t d, const std::vector<SeqSpec>& specs, uint64_t seed, float q_scale = 1.0f,
             const std::vector<float>& k_scale = {}, const std::vector<float>& v_scale = {}) {
  Rng rng(seed);
  const KvScales kv_scales{k_scale, v_scale};
  const int64_t row = kv_heads * d;
  int64_t total_blocks = 0;
  for (const auto& s : specs) total_blocks += (s.first + s.count + block_size - 1) / block_size;
  std::vector<int32_t> physical(static_cast<size_t>(total_blocks));
  std::iota(physical.begin(), physical.end(), 0);
  for (int64_t i = total_blocks - 1; i > 0; --i) std::swap(physical[i], physical[rng.Below(i + 1)]);
  const size_t elem = tensor::DTypeSize(cache_dtype);
  std::vector<uint8_t> kc(static_cast<size_t>(total_blocks * block_size * row) * elem + 2);
  std::vector<uint8_t> vc(kc.size());
  auto k_cache = View(kc.data() + 2, cache_dtype, {total_blocks, block_size, kv_heads, d});  // misaligned
  auto v_cache = View(vc.data() + 2, cache_dtype, {total_blocks, block_size, kv_heads, d});

  std::vector<std::vector<int32_t>> tables;
  std::vector<std::vector<int64_t>> key_ends;
  std::vector<std::vector<float>> keys, values;  // per sequence, all keys [T, kv_heads, d]
  std::vector<AttentionSequence> seqs;
  int64_t next_block = 0, num_rows = 0;
  for (const auto& s : specs) {
    const int64_t t_all = s.first + s.count;
    const int64_t nb = (t_all + block_size - 1) / block_size;
    const int64_t lo = window > 0 ? std::max<int64_t>(0, s.first - window + 1) : 0;
    std::vector<int32_t> table(static_cast<size_t>(nb));
    for (int64_t b = 0; b < nb; ++b) table[b] = (b + 1) * block_size <= lo ? -1 : physical[next_block + b];
    next_block += nb;
    std::vector<float> k(static_cast<size_t>(t_all * row)), v(k.size());
    for (auto& x : k) x = static_cast<float>(rng.Normal());
    for (auto& x : v) x = static_cast<float>(rng.Normal());
    if (cache_dtype == DType::kBF16) {
      for (auto& x : k) x = tensor::RoundToBf16(x);
      for (auto& x : v) x = tensor::RoundToBf16(x);
    } else if (cache_dtype == DType::kF8E4M3) {  // --kv-cache-dtype fp8
      for (size_t i = 0; i < k.size(); ++i) {
        const int64_t h = static_cast<int64_t>(i) % row / d;
        const float ks = internal::KvScaleOf(k_scale, h), vs = internal::KvScaleOf(v_scale, h);
        k[i] = tensor::RoundToE4M3(k[i] / ks) * ks;
        v[i] = tensor::RoundToE4M3(v[i] / vs) * vs;
      }
    }
    // Cached keys (those whose block is present) are written now, one slot per key.
    std::vector<int64_t> slots(static_cast<size_t>(t_all));
    for (int64_t j = 0; j < t_all; ++j) {
      const int32_t pb = table[j / block_size];
      slots[j] = (j < s.first && pb >= 0) ? pb * block_size + j % block_size : -1;
    }
    KvCacheWrite(ctx, View(k.data(), DType::kF32, {t_all, kv_heads, d}),
                 View(v.data(), DType::kF32, {t_all, kv_heads, d}), View(slots.data(), DType::kI64, {t_all}),
                 k_cache, v_cache, kv_scales);
    tables.push_back(std::move(table));
    keys.push_back(std::move(k));
    values.push_back(std::move(v));
    key_ends.push_back(KeyEnds(s));
    seqs.push_back({num_rows, s.count, s.first, nullptr, nb});
    num_rows += s.count;
  }
  // The new rows' keys are written as one flattened batch, as the model does.
  std::vector<float> new_k, new_v;
  std::vector<int64_t> new_slots;
  for (size_t i = 0; i < specs.size(); ++i) {
    seqs[i].block_table = tables[i].data();
    seqs[i].key_end = key_ends[i].empty() ? nullptr : key_ends[i].data();
    for (int64_t t = 0; t < specs[i].count; ++t) {
      const int64_t j = specs[i].first + t;
      new_k.insert(new_k.end(), keys[i].begin() + j * row, keys[i].begin() + (j + 1) * row);
      new_v.insert(new_v.end(), values[i].begin() + j * row, values[i].begin() + (j + 1) * row);
      new_slots.push_back(tables[i][j / block_size] * block_size + j % block_size);
    }
  }
  KvCacheWrite(ctx, View(new_k.data(), DType::kF32, {num_rows, kv_heads, d}),
               View(new_v.data(), DType::kF32, {num_rows, kv_heads, d}),
               View(new_slots.data(), DType::kI64, {num_rows}), k_cache, v_cache, kv_scales);

  auto q = testing::RandomFloats(rng, num_rows * heads * d);
  for (int64_t i = 0; i < q.size(); ++i) q[i] *= q_scale;
  testing::Misaligned<float> out(num_rows * heads * d);
  PagedAttention(ctx, View(q.data(), DType::kF32, {num_rows, heads, d}), k_cache, v_cache, seqs, window, 0.7f,
                 View(out.data(), DType::kF32, {num_rows, heads, d}), kv_scales);
  std::vector<float> alone(static_cast<size_t>(heads * d));
  for (const AttentionSequence& sq : seqs) {
    for (int64_t t = 0; t < sq.num_tokens; ++t) {
      const AttentionSequence one{0, 1, sq.first_kv_index + t, sq.block_table, sq.block_table_size,
                                  sq.key_end == nullptr ? nullptr : sq.key_end + t};
      const float* qrow = q.data() + (sq.token_begin + t) * heads * d;
      PagedAttention(ctx, View(const_cast<float*>(qrow), DType::kF32, {1, heads, d}), k_cache, v_cache,
                     std::span<const AttentionSequence>(&one, 1), window, 0.7f,
                     View(alone.data(), DType::kF32, {1, heads, d}), kv_scales);
      for (int64_t i = 0; i < heads * d; ++i) {
        ASSERT_EQ(alone[i], out.data()[(sq.token_begin + t) * heads * d + i]) << "row " << sq.token_begin + t << " alone";
      }
    }
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const int64_t t_all = specs[i].first + specs[i].count;
    std::vector<int64_t> q_index(static_cast<size_t>(specs[i].count));
    for (int64_t t = 0; t < specs[i].count; ++t) q_index[t] = specs[i].first + t;
    std::vector<float> want(static_cast<size_t>(specs[i].count * heads * d));
    reference::Attention(q.data() + seqs[i].token_begin * heads * d, specs[i].count, heads, keys[i].data(),
                         values[i].data(), t_all, kv_heads, d, q_index.data(), seqs[i].key_end, window, 0.7f,
                         want.data());
    testing::ExpectClose(out.data() + seqs[i].token_begin * heads * d, want.data(), specs[i].count * heads * d,
                         2e-5 * q_scale, 2e-5 * q_scale, "sequence " + std::to_string(i));
  }
}

TEST(KernelParity, PagedAttentionFullAndSliding) {
  ThreadPool pool(2);
  const std::vector<SeqSpec> batch = {{0, 13}, {21, 1}, {6, 5}, {40, 3}};
  for (ExecContext ctx : {ExecContext{}, ExecContext{&pool}}) {
    for (DType dt : {DType::kF32, DType::kBF16, DType::kF8E4M3}) {
      for (int64_t window : {0, 1, 4, 7}) {
        for (int64_t block_size : {1, 4, 16}) {
          SCOPED_TRACE(::testing::Message() << "window " << window << " block " << block_size);
          RunCase(ctx, dt, window, block_size, 4, 2, 16, batch, 10 + window);
          RunCase(ctx, dt, window, block_size, 6, 1, 33, batch, 20 + window);  // odd head dim
          RunCase(ctx, dt, window, block_size, 3, 3, 8, {{5, 1}}, 30 + window);
        }
      }
    }
  }
}

// Sequences longer than the kernel's key chunk and task: chunk edges, windows that start inside
// a chunk, tasks whose rows have different windows; every kernel table (the chunks run on its
// f32 Linear).
TEST(KernelParity, PagedAttentionLongSequencesEveryTable) {
  ThreadPool pool(2);
  const std::vector<SeqSpec> batch = {{0, 150}, {100, 1}, {70, 9}, {0, 1}, {129, 6}};
  testing::ForEachKernelTable([&](const CpuKernelTable&) {
    for (DType dt : {DType::kF32, DType::kBF16, DType::kF8E4M3}) {
      for (int64_t window : {0, 5, 64, 100}) {
        SCOPED_TRACE(::testing::Message() << "window " << window);
        RunCase(ExecContext{&pool}, dt, window, 16, 8, 1, 40, batch, 40 + window);
        RunCase(ExecContext{}, dt, window, 5, 4, 2, 17, batch, 50 + window);
      }
    }
  });
}

// Contexts of several 256-key segments: a decode row alone on two threads runs its segments as
// tasks of their own and merges them afterwards; in a batch (enough tasks) one task runs them in
// order. Both must give the same bits, and match the reference.
TEST(KernelParity, PagedAttentionSegmentsOnThreads) {
  ThreadPool pool(2);
  const std::vector<SeqSpec> batch = {{0, 30}, {600, 1}, {255, 2}, {1030, 1}, {511, 4}};
  for (ExecContext ctx : {ExecContext{}, ExecContext{&pool}}) {
    for (DType dt : {DType::kF32, DType::kBF16}) {
      for (int64_t window : {0, 300}) {
        SCOPED_TRACE(::testing::Message() << "window " << window);
        RunCase(ctx, dt, window, 16, 8, 1, 40, batch, 100 + window);
        RunCase(ctx, dt, window, 5, 4, 2, 17, batch, 110 + window);
      }
    }
  }
}

// An FP8 cache with a checkpoint's static scales (compressed-tensors kv_cache_scheme): per
// tensor and per KV head, small (values far above 1 stored) and large (values near e4m3's
// subnormals), on every kernel table, batched and alone, against the reference on e4m3(x/s)·s.
TEST(KernelParity, PagedAttentionFp8WithKvScales) {
  ThreadPool pool(2);
  const std::vector<SeqSpec> batch = {{0, 70}, {21, 1}, {300, 2}, {6, 5}};
  testing::ForEachKernelTable([&](const CpuKernelTable&) {
    for (ExecContext ctx : {ExecContext{}, ExecContext{&pool}}) {
      for (int64_t window : {0, 7, 100}) {
        SCOPED_TRACE(::testing::Message() << "window " << window);
        RunCase(ctx, DType::kF8E4M3, window, 16, 4, 2, 16, batch, 120 + window, 1.0f, {0.013f, 0.031f}, {0.02f, 3.5f});
        RunCase(ctx, DType::kF8E4M3, window, 5, 6, 1, 33, batch, 130 + window, 1.0f, {0.0117f}, {0.0093f});
        RunCase(ctx, DType::kF8E4M3, window, 4, 3, 3, 8, batch, 140 + window, 1.0f, {}, {0.5f, 0.25f, 2.0f});
      }
    }
  });
}

// KvCacheWrite with scales stores e4m3(x / s) (x / s rounded to nearest even, saturated at ±448),
// per KV head, and leaves the K and V scales apart.
TEST(KernelParity, KvCacheWriteFp8DividesByItsScales) {
  const std::vector<float> k = {1.0f, -0.3f, 100.0f, 0.001f}, v = {-2.0f, 7.5f, -1000.0f, 0.02f};
  const std::vector<float> ks = {0.5f, 0.01f}, vs = {2.0f};
  for (ExecContext ctx : {ExecContext{}, ExecContext{nullptr, &ReferenceBackend()}}) {
    std::vector<uint8_t> kc(4), vc(4);
    std::vector<int64_t> slots = {0};
    KvCacheWrite(ctx, View(const_cast<float*>(k.data()), DType::kF32, {1, 2, 2}),
                 View(const_cast<float*>(v.data()), DType::kF32, {1, 2, 2}), View(slots.data(), DType::kI64, {1}),
                 View(kc.data(), DType::kF8E4M3, {1, 1, 2, 2}), View(vc.data(), DType::kF8E4M3, {1, 1, 2, 2}),
                 KvScales{ks, vs});
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(kc[i], tensor::FloatToE4M3(k[i] / ks[i / 2])) << i;
      EXPECT_EQ(vc[i], tensor::FloatToE4M3(v[i] / vs[0])) << i;
    }
    EXPECT_EQ(tensor::E4M3ToFloat(kc[2]), 448.0f);   // 100 / 0.01 saturates
    EXPECT_EQ(tensor::E4M3ToFloat(vc[2]), -448.0f);  // -1000 / 2 saturates
    EXPECT_EQ(tensor::E4M3ToFloat(kc[1]), -0.625f);  // -0.3 / 0.5 = -0.6 → -1.010₂ · 2⁻¹
  }
}

// Scores spread over hundreds of units: most softmax weights fall below float's normal range
// and are taken as zero; the result still matches the reference.
TEST(KernelParity, PagedAttentionWideScoreRange) {
  for (int64_t window : {0, 30}) {
    RunCase(ExecContext{}, DType::kF32, window, 16, 4, 1, 64, {{0, 90}, {40, 2}}, 60 + window, 50.0f);
  }
}

// Rows inside bidirectional spans (key_end): spans longer than the window and than the kernel's
// 64-key chunk, a step that starts inside a span (its earlier keys cached, some below the window
// freed), adjacent spans, a span ending on the step's last row, a one-token span, and sequences
// without spans (key_end null) in the same batch.
TEST(KernelParity, PagedAttentionBidirectionalSpans) {
  ThreadPool pool(2);
  const std::vector<SeqSpec> batch = {{0, 90, {{3, 80}}},
                                      {10, 20, {{5, 17}, {18, 25}, {26, 30}}},
                                      {40, 1},
                                      {30, 12, {{33, 34}}},
                                      {7, 9, {{12, 16}}},
                                      {0, 5}};
  for (ExecContext ctx : {ExecContext{}, ExecContext{&pool}}) {
    for (DType dt : {DType::kF32, DType::kBF16, DType::kF8E4M3}) {
      for (int64_t window : {0, 3, 8, 100}) {
        for (int64_t block_size : {4, 16}) {
          SCOPED_TRACE(::testing::Message() << "window " << window << " block " << block_size);
          RunCase(ctx, dt, window, block_size, 4, 2, 16, batch, 70 + window);
          RunCase(ctx, dt, window, block_size, 3, 1, 33, batch, 80 + window);
        }
      }
    }
  }
  testing::ForEachKernelTable([&](const CpuKernelTable&) {
    RunCase(ExecContext{&pool}, DType::kF32, 8, 16, 8, 1, 40, {{0, 150, {{2, 140}}}, {100, 40, {{90, 139}}}}, 90);
  });
}

// The scalar reference's mask, exactly: with q = 0 every visible key has the same weight, so the
// output is the mean of the visible keys' values; values (j, j^2) pin down the visible range.
// A row inside a span [b, e) sees [max(qi - W + 1, 0), e - 1]: later keys of its span at any
// distance, past keys (its span's too) only within the window.
TEST(KernelParity, ReferenceAttentionSpanMask) {
  const int64_t n = 20;
  std::vector<float> q(static_cast<size_t>(n), 0.0f), k(static_cast<size_t>(n), 1.0f), v(static_cast<size_t>(2 * n));
  for (int64_t j = 0; j < n; ++j) {
    v[2 * j] = static_cast<float>(j);
    v[2 * j + 1] = static_cast<float>(j * j);
  }
  std::vector<int64_t> q_index(static_cast<size_t>(n)), key_end(static_cast<size_t>(n));
  for (int64_t t = 0; t < n; ++t) {
    q_index[t] = t;
    key_end[t] = (t >= 4 && t < 17) ? 17 : t + 1;  // one span [4, 17)
  }
  for (int64_t window : {0, 3, 8}) {
    std::vector<float> out(static_cast<size_t>(2 * n));  // [n, 2]: both value channels
    for (int64_t ch = 0; ch < 2; ++ch) {  // head_dim 1: one run per value channel
      std::vector<float> vc(static_cast<size_t>(n)), oc(static_cast<size_t>(n));
      for (int64_t j = 0; j < n; ++j) vc[j] = v[2 * j + ch];
      reference::Attention(q.data(), n, 1, k.data(), vc.data(), n, 1, 1, q_index.data(), key_end.data(), window, 1.0f,
                           oc.data());
      for (int64_t t = 0; t < n; ++t) out[2 * t + ch] = oc[t];
    }
    for (int64_t t = 0; t < n; ++t) {
      const int64_t lo = window > 0 ? std::max<int64_t>(0, t - window + 1) : 0, hi = key_end[t] - 1;
      double m1 = 0, m2 = 0;
      for (int64_t j = lo; j <= hi; ++j) {
        m1 += static_cast<double>(j) / static_cast<double>(hi - lo + 1);
        m2 += static_cast<double>(j * j) / static_cast<double>(hi - lo + 1);
      }
      EXPECT_NEAR(out[2 * t], m1, 1e-4) << "window " << window << " row " << t;
      EXPECT_NEAR(out[2 * t + 1], m2, 1e-3) << "window " << window << " row " << t;
    }
  }
}

TEST(KernelParity, KvCacheWriteRoundsBf16ToNearestEven) {
  std::vector<float> k = {1.00390625f, -3.0f}, v = {1.01171875f, 0.5f};  // ties between bf16 values
  std::vector<uint16_t> kc(2), vc(2);
  std::vector<int64_t> slots = {0};
  KvCacheWrite({}, View(k.data(), DType::kF32, {1, 1, 2}), View(v.data(), DType::kF32, {1, 1, 2}),
               View(slots.data(), DType::kI64, {1}), View(kc.data(), DType::kBF16, {1, 1, 1, 2}),
               View(vc.data(), DType::kBF16, {1, 1, 1, 2}));
  EXPECT_EQ(tensor::Bf16ToFloat(kc[0]), 1.0f);
  EXPECT_EQ(tensor::Bf16ToFloat(kc[1]), -3.0f);
  EXPECT_EQ(tensor::Bf16ToFloat(vc[0]), 1.015625f);
}

}  // namespace
}  // namespace gemmad::kernels
