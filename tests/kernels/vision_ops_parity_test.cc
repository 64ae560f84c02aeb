// Parity of the vision encoder's ops with their scalar references: the registry's GemmF32 on every
// table (odd sizes, strided operands, k across blocks, nothing outside C written), DenseAttention (bidirectional,
// unmasked, GQA, odd head dims, rows that are not a multiple of the task size, wide score ranges)
// against reference::Attention with every key visible, on every CPU kernel table, with and without
// a pool; Clamp (NaN kept, infinite bounds) and Mul; and the reference backend against the CPU
// backend through ops.h.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "kernels/backend.h"
#include "kernels/ops.h"
#include "kernels/reference/attention.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::View;

TEST(GemmF32Parity, EveryTableMatchesADoubleReference) {
  struct Case {
    int64_t m, n, k;
  };
  const Case cases[] = {{1, 1, 1}, {7, 33, 5}, {8, 32, 256}, {13, 65, 300}, {32, 17, 64}, {9, 100, 513}, {3, 20, 0}};
  testing::ForEachKernelTable([&](const CpuKernelTable& t) {
    for (const Case& c : cases) {
      SCOPED_TRACE(::testing::Message() << "m " << c.m << " n " << c.n << " k " << c.k);
      Rng rng(static_cast<uint64_t>(c.m * 1000 + c.n * 10 + c.k));
      const int64_t lda = c.k + 3, ldb = c.n + 5, ldc = c.n + 2;
      auto a = testing::RandomFloats(rng, c.m * lda + 1), b = testing::RandomFloats(rng, c.k * ldb + 1);
      testing::Misaligned<float> out(c.m * ldc);
      for (int64_t i = 0; i < out.size(); ++i) out[i] = 777.0f;  // padding must stay
      t.gemm_f32(a.data(), lda, b.data(), ldb, out.data(), ldc, c.m, c.n, c.k);
      for (int64_t i = 0; i < c.m; ++i) {
        for (int64_t j = 0; j < ldc; ++j) {
          if (j >= c.n) {
            ASSERT_EQ(out[i * ldc + j], 777.0f) << "wrote outside C at " << i << ", " << j;
            continue;
          }
          double want = 0;
          for (int64_t kk = 0; kk < c.k; ++kk) want += static_cast<double>(a[i * lda + kk]) * b[kk * ldb + j];
          ASSERT_NEAR(out[i * ldc + j], want, 1e-5 * (1 + std::sqrt(static_cast<double>(c.k))) * 4) << i << ", " << j;
        }
      }
    }
  });
}

struct AttnCase {
  int64_t n, m, heads, kv_heads, d;
  float scale, spread;  // spread scales q (the score range grows with it)
};

std::vector<float> Reference(const AttnCase& c, const std::vector<float>& q, const std::vector<float>& k,
                             const std::vector<float>& v) {
  std::vector<float> out(q.size());
  const std::vector<int64_t> q_index(static_cast<size_t>(c.n), c.m - 1);
  reference::Attention(q.data(), c.n, c.heads, k.data(), v.data(), c.m, c.kv_heads, c.d, q_index.data(), /*key_end=*/nullptr,
                       /*window=*/0, c.scale, out.data());
  return out;
}

const AttnCase kCases[] = {
    {37, 37, 3, 3, 16, 1.0f, 1.0f},     // self-attention, head_dim of one vector
    {5, 70, 4, 2, 18, 0.25f, 1.0f},     // fewer rows than a task, GQA, masked tail lanes
    {65, 33, 2, 1, 64, 1.0f, 3.0f},     // a partial last task, wide scores (most weights tiny)
    {100, 100, 1, 1, 72, 1.0f, 0.5f},   // the large tower's head_dim
    {1, 1, 2, 2, 8, 1.0f, 1.0f},        // one key: the output is v
};

TEST(DenseAttentionParity, MatchesTheReferenceOnEveryTable) {
  ThreadPool pool(3);
  testing::ForEachKernelTable([&](const CpuKernelTable&) {
    for (const AttnCase& c : kCases) {
      SCOPED_TRACE(::testing::Message() << "n " << c.n << " m " << c.m << " H " << c.heads << "/" << c.kv_heads
                                        << " d " << c.d);
      Rng rng(static_cast<uint64_t>(c.n * 131 + c.m * 7 + c.d));
      auto qm = testing::RandomFloats(rng, c.n * c.heads * c.d, c.spread);
      auto km = testing::RandomFloats(rng, c.m * c.kv_heads * c.d);
      auto vm = testing::RandomFloats(rng, c.m * c.kv_heads * c.d);
      std::vector<float> q(qm.data(), qm.data() + qm.size()), k(km.data(), km.data() + km.size());
      std::vector<float> v(vm.data(), vm.data() + vm.size());
      const std::vector<float> want = Reference(c, q, k, v);
      for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        testing::Misaligned<float> out(c.n * c.heads * c.d);
        DenseAttention(ExecContext{p}, View(qm.data(), DType::kF32, {c.n, c.heads, c.d}),
                       View(km.data(), DType::kF32, {c.m, c.kv_heads, c.d}),
                       View(vm.data(), DType::kF32, {c.m, c.kv_heads, c.d}), c.scale,
                       View(out.data(), DType::kF32, {c.n, c.heads, c.d}));
        testing::ExpectClose(out.data(), want.data(), out.size(), 2e-5, 2e-5, p ? "pool" : "inline");
      }
    }
  });
}

TEST(DenseAttentionParity, OneKeyReturnsItsValueAndSoftmaxIsShiftInvariant) {
  // With a single key every query's output is that key's value, however large the scores.
  std::vector<float> q = {1e3f, -2e3f, 5.0f, 1.0f}, k = {3.0f, 1.0f, -1.0f, 2.0f}, v = {0.5f, -1.5f, 2.0f, 7.0f};
  std::vector<float> out(4);
  DenseAttention({}, View(q.data(), DType::kF32, {1, 1, 4}), View(k.data(), DType::kF32, {1, 1, 4}),
                 View(v.data(), DType::kF32, {1, 1, 4}), 1.0f, View(out.data(), DType::kF32, {1, 1, 4}));
  EXPECT_EQ(out, v);
  // Two keys with scores 1000 apart: all weight on the larger (no overflow to inf / NaN).
  std::vector<float> q2 = {1.0f, 0.0f}, k2 = {1000.0f, 0.0f, 0.0f, 0.0f}, v2 = {1.0f, 2.0f, 3.0f, 4.0f}, o2(2);
  DenseAttention({}, View(q2.data(), DType::kF32, {1, 1, 2}), View(k2.data(), DType::kF32, {2, 1, 2}),
                 View(v2.data(), DType::kF32, {2, 1, 2}), 1.0f, View(o2.data(), DType::kF32, {1, 1, 2}));
  EXPECT_EQ(o2, (std::vector<float>{1.0f, 2.0f}));
}

TEST(ClampAndMul, ElementRules) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<float> x = {-3.0f, -1.0f, 0.25f, 1.0f, 9.0f, -inf, inf, nan};
  std::vector<float> out(x.size());
  Clamp({}, View(x.data(), DType::kF32, {8}), -1.0f, 1.0f, View(out.data(), DType::kF32, {8}));
  EXPECT_EQ(std::vector<float>(out.begin(), out.begin() + 7),
            (std::vector<float>{-1.0f, -1.0f, 0.25f, 1.0f, 1.0f, -1.0f, 1.0f}));
  EXPECT_TRUE(std::isnan(out[7]));
  // Infinite bounds clamp nothing; in place.
  std::vector<float> y = x;
  Clamp({}, View(y.data(), DType::kF32, {8}), -inf, inf, View(y.data(), DType::kF32, {8}));
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ(y[i], x[i]);
  std::vector<float> a = {1.5f, -2.0f, 0.0f}, b = {2.0f, 3.0f, -7.0f}, p(3);
  Mul({}, View(a.data(), DType::kF32, {3}), View(b.data(), DType::kF32, {3}), View(p.data(), DType::kF32, {3}));
  EXPECT_EQ(p, (std::vector<float>{3.0f, -6.0f, -0.0f}));
}

TEST(VisionOpsBackendParity, ReferenceBackendMatchesCpu) {
  ThreadPool pool(2);
  const ExecContext cpu{&pool, &CpuBackend()}, ref{nullptr, &ReferenceBackend()};
  Rng rng(77);
  const int64_t n = 9000;  // several ParallelFor chunks
  auto a = testing::RandomFloats(rng, n, 2.0), b = testing::RandomFloats(rng, n);
  auto run = [&](const ExecContext& ctx) {
    std::vector<float> m(n), c(n);
    Mul(ctx, View(a.data(), DType::kF32, {n}), View(b.data(), DType::kF32, {n}), View(m.data(), DType::kF32, {n}));
    Clamp(ctx, View(m.data(), DType::kF32, {n}), -0.75f, 1.25f, View(c.data(), DType::kF32, {n}));
    m.insert(m.end(), c.begin(), c.end());
    return m;
  };
  EXPECT_EQ(run(ref), run(cpu));
  const AttnCase c{70, 70, 4, 2, 16, 1.0f, 1.0f};
  auto q = testing::RandomFloats(rng, c.n * c.heads * c.d), k = testing::RandomFloats(rng, c.m * c.kv_heads * c.d);
  auto v = testing::RandomFloats(rng, c.m * c.kv_heads * c.d);
  std::vector<float> o_cpu(static_cast<size_t>(c.n * c.heads * c.d)), o_ref(o_cpu.size());
  for (auto [ctx, o] : {std::pair{&cpu, &o_cpu}, std::pair{&ref, &o_ref}}) {
    DenseAttention(*ctx, View(q.data(), DType::kF32, {c.n, c.heads, c.d}),
                   View(k.data(), DType::kF32, {c.m, c.kv_heads, c.d}), View(v.data(), DType::kF32, {c.m, c.kv_heads, c.d}),
                   c.scale, View(o->data(), DType::kF32, {c.n, c.heads, c.d}));
  }
  testing::ExpectClose(o_cpu.data(), o_ref.data(), static_cast<int64_t>(o_cpu.size()), 2e-5, 2e-5, "backends");
}

}  // namespace
}  // namespace gemmad::kernels
