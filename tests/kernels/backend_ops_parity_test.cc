// The reference backend against the CPU backend, op by op, through ops.h with a context naming
// each backend: dense ops over f32 / bf16 / Q8_R / Q4_0 weights, weight quantization (the same
// bytes), the element-wise ops, the embedding gather, KV writes (the same bits, f32 and bf16
// caches), paged attention over shuffled blocks, and the MoE routing and experts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <vector>

#include "kernels/backend.h"
#include "kernels/ops.h"
#include "kernels/reference/quant.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::View;

class ReferenceBackendParity : public ::testing::Test {
 protected:
  ThreadPool pool_{2};
  ExecContext cpu_{&pool_, &CpuBackend()};
  ExecContext ref_{nullptr, &ReferenceBackend()};
  Rng rng_{21};

  // The weight `w` [rows, in] f32 in `dtype` (quantized with the reference quantizer).
  std::vector<uint8_t> Weights(const std::vector<float>& w, int64_t rows, int64_t in, DType dtype) {
    if (tensor::IsBlockQuantized(dtype)) return reference::QuantizeRows(w.data(), rows, in, dtype);
    std::vector<uint8_t> out(w.size() * tensor::DTypeSize(dtype));
    for (size_t i = 0; i < w.size(); ++i) {
      if (dtype == DType::kBF16) {
        reinterpret_cast<uint16_t*>(out.data())[i] = tensor::FloatToBf16(w[i]);
      } else {
        reinterpret_cast<float*>(out.data())[i] = w[i];
      }
    }
    return out;
  }
  std::vector<float> Floats(int64_t n, double scale = 1.0) {
    std::vector<float> v(static_cast<size_t>(n));
    for (auto& x : v) x = static_cast<float>(rng_.Normal() * scale);
    return v;
  }
};

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, double atol, double rtol,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  testing::ExpectClose(got.data(), want.data(), static_cast<int64_t>(got.size()), atol, rtol, what);
}

TEST_F(ReferenceBackendParity, LinearAndLinearManyEveryWeightDtype) {
  const int64_t n = 5, in = 64;
  const auto x = Floats(n * in);
  for (DType dt : {DType::kF32, DType::kBF16, DType::kQ8R, DType::kQ4_0, DType::kQ4_0x16}) {
    SCOPED_TRACE(std::string(tensor::DTypeName(dt)));
    // Q4_0x16 runs on the CPU backend only where a table has its kernel (AVX-512 VNNI).
    if (dt == DType::kQ4_0x16 && CpuKernels().linear_q4_0x16 == nullptr) continue;
    const int64_t out = dt == DType::kQ4_0x16 ? 48 : 19;  // whole groups of 16 rows
    const auto wb = Weights(Floats(out * in, 0.2), out, in, dt);
    std::vector<float> y_cpu(n * out), y_ref(n * out), y2(n * out);
    const auto xv = View(x.data(), DType::kF32, {n, in});
    const auto wv = View(wb.data(), dt, {out, in});
    Linear(cpu_, xv, wv, View(y_cpu.data(), DType::kF32, {n, out}));
    Linear(ref_, xv, wv, View(y_ref.data(), DType::kF32, {n, out}));
    ExpectNear(y_ref, y_cpu, 1e-4, 1e-4, "Linear");
    const tensor::TensorView ws[2] = {wv, wv};
    const tensor::TensorView ys[2] = {View(y2.data(), DType::kF32, {n, out}), View(y_cpu.data(), DType::kF32, {n, out})};
    LinearMany(ref_, xv, ws, ys);
    EXPECT_EQ(y2, y_ref);
  }
}

TEST_F(ReferenceBackendParity, QuantizeWeightsGivesTheSameBytes) {
  const int64_t rows = 7, in = 96;  // an odd row count: Q4_0's lone last row
  const auto w = Floats(rows * in);
  std::vector<uint16_t> wb(w.size());
  for (size_t i = 0; i < w.size(); ++i) wb[i] = tensor::FloatToBf16(w[i]);
  for (DType dt : {DType::kQ8R, DType::kQ4_0}) {
    for (DType src : {DType::kF32, DType::kBF16}) {
      const void* p = src == DType::kF32 ? static_cast<const void*>(w.data()) : wb.data();
      std::vector<uint8_t> a(tensor::RowBytes(dt, in) * rows), b(a.size());
      QuantizeWeights(cpu_, View(p, src, {rows, in}), View(a.data(), dt, {rows, in}));
      QuantizeWeights(ref_, View(p, src, {rows, in}), View(b.data(), dt, {rows, in}));
      EXPECT_EQ(a, b) << tensor::DTypeName(dt) << " from " << tensor::DTypeName(src);
    }
  }
}

TEST_F(ReferenceBackendParity, NormRopeAndElementwise) {
  const int64_t n = 3, heads = 4, d = 18;
  const auto x0 = Floats(n * heads * d, 2.0);
  const auto w = Floats(d);
  std::vector<int32_t> pos = {0, 7, 300};
  std::vector<float> inv(d / 2);
  for (int64_t i = 0; i < d / 2; ++i) inv[i] = i == d / 2 - 1 ? 0.0f : std::pow(10000.0f, -2.0f * i / d);
  auto run = [&](const ExecContext& ctx) {
    std::vector<float> x = x0, y(x.size()), z(x.size());
    const auto rows = View(x.data(), DType::kF32, {n * heads, d});
    RmsNorm(ctx, rows, View(w.data(), DType::kF32, {d}), rows, 1e-6f);
    RopeNeox(ctx, View(x.data(), DType::kF32, {n, heads, d}), View(pos.data(), DType::kI32, {n}),
             View(inv.data(), DType::kF32, {d / 2}));
    const auto xv = View(x.data(), DType::kF32, {n * heads, d});
    const auto yv = View(y.data(), DType::kF32, {n * heads, d});
    const auto zv = View(z.data(), DType::kF32, {n * heads, d});
    Copy(ctx, xv, yv);
    Scale(ctx, yv, 0.75f);
    Add(ctx, xv, yv, zv);
    GeluTanhMul(ctx, xv, zv, zv);
    SoftCap(ctx, zv, 3.0f);
    Copy(ctx, zv, yv);
    Softmax(ctx, yv);
    x.insert(x.end(), z.begin(), z.end());
    x.insert(x.end(), y.begin(), y.end());
    return x;
  };
  ExpectNear(run(ref_), run(cpu_), 2e-5, 2e-5, "norm, rope, element-wise");
}

TEST_F(ReferenceBackendParity, FakeQuantInt8GivesTheSameBits) {
  auto a = Floats(100000, 3.0);  // past the CPU op's one-thread size
  a[7] = 0.125f;                 // a tie at 0.25: rounds to even (0)
  auto b = a;
  FakeQuantInt8(ref_, View(a.data(), DType::kF32, {100000}), 0.25f);
  FakeQuantInt8(cpu_, View(b.data(), DType::kF32, {100000}), 0.25f);
  EXPECT_EQ(a[7], 0.0f);
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

TEST_F(ReferenceBackendParity, EmbeddingGatherEveryTableDtype) {
  const int64_t rows = 10, m = 64;
  const auto table = Floats(rows * m);
  std::vector<int32_t> ids = {3, 0, 9, 3};
  for (DType dt : {DType::kF32, DType::kBF16, DType::kQ8R, DType::kQ4_0}) {
    const auto tb = Weights(table, rows, m, dt);
    std::vector<float> a(4 * m), b(4 * m);
    EmbeddingGather(cpu_, View(tb.data(), dt, {rows, m}), View(ids.data(), DType::kI32, {4}), 1.5f,
                    View(a.data(), DType::kF32, {4, m}));
    EmbeddingGather(ref_, View(tb.data(), dt, {rows, m}), View(ids.data(), DType::kI32, {4}), 1.5f,
                    View(b.data(), DType::kF32, {4, m}));
    ExpectNear(b, a, 1e-6, 1e-6, std::string(tensor::DTypeName(dt)));
  }
}

TEST_F(ReferenceBackendParity, KvCacheWriteAndPagedAttention) {
  const int64_t bs = 4, blocks = 6, nkv = 2, nH = 4, d = 8;
  for (DType cache_dt : {DType::kF32, DType::kBF16, DType::kF8E4M3}) {
    SCOPED_TRACE(std::string(tensor::DTypeName(cache_dt)));
    // Two sequences: 9 keys (3 new rows) and 5 keys (1 new row), on shuffled blocks; the first
    // sequence's first block freed below a sliding window of 3.
    std::vector<int32_t> t0 = {-1, 4, 1}, t1 = {5, 2};
    const int64_t keys0 = 9, keys1 = 5;
    std::vector<int64_t> slots;
    for (int64_t j = 0; j < keys0; ++j) slots.push_back(j < bs ? -1 : t0[j / bs] * bs + j % bs);
    for (int64_t j = 0; j < keys1; ++j) slots.push_back(t1[j / bs] * bs + j % bs);
    const int64_t nk = static_cast<int64_t>(slots.size());
    const auto k = Floats(nk * nkv * d), v = Floats(nk * nkv * d);
    std::vector<std::vector<uint8_t>> caches;
    for (const ExecContext* ctx : {&cpu_, &ref_}) {
      std::vector<uint8_t> kc(blocks * bs * nkv * d * tensor::DTypeSize(cache_dt)), vc(kc.size());
      KvCacheWrite(*ctx, View(k.data(), DType::kF32, {nk, nkv, d}), View(v.data(), DType::kF32, {nk, nkv, d}),
                   View(slots.data(), DType::kI64, {nk}), View(kc.data(), cache_dt, {blocks, bs, nkv, d}),
                   View(vc.data(), cache_dt, {blocks, bs, nkv, d}));
      caches.push_back(std::move(kc));
      caches.push_back(std::move(vc));
    }
    EXPECT_EQ(caches[0], caches[2]);
    EXPECT_EQ(caches[1], caches[3]);
    const auto q = Floats(4 * nH * d);
    // Causal, then with the first two rows of sequence 0 inside a bidirectional span ending at key 9.
    const std::vector<int64_t> key_end = {keys0, keys0, keys0};
    for (const int64_t* ends : {static_cast<const int64_t*>(nullptr), key_end.data()}) {
      const AttentionSequence seqs[2] = {{0, 3, keys0 - 3, t0.data(), 3, ends}, {3, 1, keys1 - 1, t1.data(), 2}};
      std::vector<float> outs[2];
      for (int i = 0; i < 2; ++i) {
        outs[i].resize(q.size());
        PagedAttention(i == 0 ? cpu_ : ref_, View(q.data(), DType::kF32, {4, nH, d}),
                       View(caches[0].data(), cache_dt, {blocks, bs, nkv, d}),
                       View(caches[1].data(), cache_dt, {blocks, bs, nkv, d}), seqs, /*window=*/3, 0.5f,
                       View(outs[i].data(), DType::kF32, {4, nH, d}));
      }
      ExpectNear(outs[1], outs[0], 2e-5, 2e-5, ends == nullptr ? "attention" : "attention with key_end");
    }
  }
}

TEST_F(ReferenceBackendParity, MoeRouteAndExperts) {
  const int64_t n = 5, E = 4, K = 2, H = 32, Ie = 32;
  const auto logits = Floats(n * E);
  const auto scale = Floats(E);
  std::vector<float> rw[2] = {std::vector<float>(n * K), std::vector<float>(n * K)};
  std::vector<int32_t> ri[2] = {std::vector<int32_t>(n * K), std::vector<int32_t>(n * K)};
  for (int i = 0; i < 2; ++i) {
    MoeRoute(i == 0 ? cpu_ : ref_, View(logits.data(), DType::kF32, {n, E}), View(scale.data(), DType::kF32, {E}),
             View(rw[i].data(), DType::kF32, {n, K}), View(ri[i].data(), DType::kI32, {n, K}));
  }
  EXPECT_EQ(ri[0], ri[1]);
  ExpectNear(rw[1], rw[0], 1e-6, 1e-5, "route weights");
  const auto x = Floats(n * H);
  const auto gu = Floats(E * 2 * Ie * H, 0.2), dn = Floats(E * H * Ie, 0.2);
  for (DType dt : {DType::kF32, DType::kBF16, DType::kQ8R, DType::kQ4_0, DType::kF8R}) {
    const auto gub = Weights(gu, E * 2 * Ie, H, dt), dnb = Weights(dn, E * H, Ie, dt);
    std::vector<float> out[2] = {std::vector<float>(n * H), std::vector<float>(n * H)};
    for (int i = 0; i < 2; ++i) {
      MoeExperts(i == 0 ? cpu_ : ref_, View(x.data(), DType::kF32, {n, H}), View(gub.data(), dt, {E, 2 * Ie, H}),
                 View(dnb.data(), dt, {E, H, Ie}), View(rw[0].data(), DType::kF32, {n, K}),
                 View(ri[0].data(), DType::kI32, {n, K}), View(out[i].data(), DType::kF32, {n, H}));
    }
    ExpectNear(out[1], out[0], 1e-4, 1e-4, std::string(tensor::DTypeName(dt)));
  }
}

}  // namespace
}  // namespace gemmad::kernels
