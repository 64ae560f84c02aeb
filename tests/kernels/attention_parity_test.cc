// Parity of KvCacheWrite + PagedAttention with the contiguous reference attention: several
// sequences in one batch (prefill chunks and decode rows), shuffled physical blocks, sliding
// windows with freed (-1) blocks below the window, GQA, fp32 and bf16 caches.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <span>
#include <vector>

#include "kernels/ops.h"
#include "kernels/reference/attention.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::View;

struct SeqSpec {
  int64_t first;  // keys already cached
  int64_t count;  // new query rows
};

// Every row is also recomputed alone (as a decode step would see it) and must match its batched
// result bit for bit. q_scale widens the score range (most softmax weights underflow at 50); the
// tolerance grows with it, as the scores' float rounding does.
void RunCase(const ExecContext& ctx, DType cache_dtype, int64_t window, int64_t block_size, int64_t heads,
             int64_t kv_heads, int64_t d, const std::vector<SeqSpec>& specs, uint64_t seed, float q_scale = 1.0f) {
  Rng rng(seed);
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
    }
    // Cached keys (those whose block is present) are written now, one slot per key.
    std::vector<int64_t> slots(static_cast<size_t>(t_all));
    for (int64_t j = 0; j < t_all; ++j) {
      const int32_t pb = table[j / block_size];
      slots[j] = (j < s.first && pb >= 0) ? pb * block_size + j % block_size : -1;
    }
    KvCacheWrite(ctx, View(k.data(), DType::kF32, {t_all, kv_heads, d}),
                 View(v.data(), DType::kF32, {t_all, kv_heads, d}), View(slots.data(), DType::kI64, {t_all}),
                 k_cache, v_cache);
    tables.push_back(std::move(table));
    keys.push_back(std::move(k));
    values.push_back(std::move(v));
    seqs.push_back({num_rows, s.count, s.first, nullptr, nb});
    num_rows += s.count;
  }
  // The new rows' keys are written as one flattened batch, as the model does.
  std::vector<float> new_k, new_v;
  std::vector<int64_t> new_slots;
  for (size_t i = 0; i < specs.size(); ++i) {
    seqs[i].block_table = tables[i].data();
    for (int64_t t = 0; t < specs[i].count; ++t) {
      const int64_t j = specs[i].first + t;
      new_k.insert(new_k.end(), keys[i].begin() + j * row, keys[i].begin() + (j + 1) * row);
      new_v.insert(new_v.end(), values[i].begin() + j * row, values[i].begin() + (j + 1) * row);
      new_slots.push_back(tables[i][j / block_size] * block_size + j % block_size);
    }
  }
  KvCacheWrite(ctx, View(new_k.data(), DType::kF32, {num_rows, kv_heads, d}),
               View(new_v.data(), DType::kF32, {num_rows, kv_heads, d}),
               View(new_slots.data(), DType::kI64, {num_rows}), k_cache, v_cache);

  auto q = testing::RandomFloats(rng, num_rows * heads * d);
  for (int64_t i = 0; i < q.size(); ++i) q[i] *= q_scale;
  testing::Misaligned<float> out(num_rows * heads * d);
  PagedAttention(ctx, View(q.data(), DType::kF32, {num_rows, heads, d}), k_cache, v_cache, seqs, window, 0.7f,
                 View(out.data(), DType::kF32, {num_rows, heads, d}));
  std::vector<float> alone(static_cast<size_t>(heads * d));
  for (const AttentionSequence& sq : seqs) {
    for (int64_t t = 0; t < sq.num_tokens; ++t) {
      const AttentionSequence one{0, 1, sq.first_kv_index + t, sq.block_table, sq.block_table_size};
      const float* qrow = q.data() + (sq.token_begin + t) * heads * d;
      PagedAttention(ctx, View(const_cast<float*>(qrow), DType::kF32, {1, heads, d}), k_cache, v_cache,
                     std::span<const AttentionSequence>(&one, 1), window, 0.7f,
                     View(alone.data(), DType::kF32, {1, heads, d}));
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
                         values[i].data(), t_all, kv_heads, d, q_index.data(), window, 0.7f, want.data());
    testing::ExpectClose(out.data() + seqs[i].token_begin * heads * d, want.data(), specs[i].count * heads * d,
                         2e-5 * q_scale, 2e-5 * q_scale, "sequence " + std::to_string(i));
  }
}

TEST(KernelParity, PagedAttentionFullAndSliding) {
  ThreadPool pool(2);
  const std::vector<SeqSpec> batch = {{0, 13}, {21, 1}, {6, 5}, {40, 3}};
  for (ExecContext ctx : {ExecContext{}, ExecContext{&pool}}) {
    for (DType dt : {DType::kF32, DType::kBF16}) {
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
    for (DType dt : {DType::kF32, DType::kBF16}) {
      for (int64_t window : {0, 5, 64, 100}) {
        SCOPED_TRACE(::testing::Message() << "window " << window);
        RunCase(ExecContext{&pool}, dt, window, 16, 8, 1, 40, batch, 40 + window);
        RunCase(ExecContext{}, dt, window, 5, 4, 2, 17, batch, 50 + window);
      }
    }
  });
}

// Scores spread over hundreds of units: most softmax weights fall below float's normal range
// and are taken as zero; the result still matches the reference.
TEST(KernelParity, PagedAttentionWideScoreRange) {
  for (int64_t window : {0, 30}) {
    RunCase(ExecContext{}, DType::kF32, window, 16, 4, 1, 64, {{0, 90}, {40, 2}}, 60 + window, 50.0f);
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
