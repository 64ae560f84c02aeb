// Parity of the quantized formats (tensor/quant_blocks.h) with the scalar references, for every
// CPU kernel table: activation quantization (bit-identical), load-time weight quantization
// (byte-identical, any pool), the Q8_R / Q4_0 Linear kernels over odd sizes and misaligned
// buffers, batch invariance, and the ops that read quantized tables (Linear, EmbeddingGather,
// MoeExperts).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/ops.h"
#include "kernels/reference/quant.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"
#include "tensor/quant_blocks.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::OddBytes;
using testing::View;

constexpr DType kFormats[] = {DType::kQ8R, DType::kQ4_0};

// Random activations with a zero block and a block with one huge value, so the scale edge
// cases (d = 0, a lone outlier) are covered.
testing::Misaligned<float> Activations(Rng& rng, int64_t n, int64_t in) {
  auto x = testing::RandomFloats(rng, n * in, 3.0);
  if (x.size() >= 64) {
    for (int64_t j = 0; j < x.size() && j < 32; ++j) x[j] = 0.0f;
    x[40] = 1e4f;
  }
  return x;
}

TEST(QuantParity, QuantizeActsIsBitIdenticalInEveryTable) {
  Rng rng(1);
  for (int64_t n : {1, 3, 5}) {
    for (int64_t in : {32, 96, 160}) {
      auto x = Activations(rng, n, in);
      testing::Misaligned<int8_t> q_ref(n * in), q(n * in);
      testing::Misaligned<float> d_ref(n * in / 32), d(n * in / 32);
      reference::QuantizeActs(x.data(), n, in, q_ref.data(), d_ref.data());
      testing::ForEachKernelTable([&](const CpuKernelTable& t) {
        t.quantize_acts(x.data(), n, in, q.data(), d.data());
        for (int64_t i = 0; i < n * in; ++i) ASSERT_EQ(q[i], q_ref[i]) << "n=" << n << " in=" << in << " i=" << i;
        for (int64_t i = 0; i < n * in / 32; ++i) ASSERT_EQ(d[i], d_ref[i]) << "block " << i;
      });
    }
  }
}

TEST(QuantParity, QuantizeWeightsIsByteIdenticalWithAnyPool) {
  Rng rng(2);
  ThreadPool pool(2);
  for (DType fmt : kFormats) {
    for (int64_t in : {32, 96, 1536}) {
      for (int64_t rows : {36, 37}) {
      std::vector<float> wf;  // the bf16 values as floats: both sources must give the same bytes
      auto wb = testing::RandomBf16(rng, rows * in, &wf, 0.05);
      for (int64_t i = 0; i < in; ++i) wf[i] = 0.0f, wb[i] = 0;  // an all-zero row (scale 0)
      // A block whose extremes tie in magnitude with opposite signs (the first one sets the sign).
      wf[in + 3] = -0.5f, wf[in + 9] = 0.5f;
      wb[in + 3] = tensor::FloatToBf16(-0.5f), wb[in + 9] = tensor::FloatToBf16(0.5f);
      const std::vector<uint8_t> want = reference::QuantizeRows(wf.data(), rows, in, fmt);
      testing::ForEachKernelTable([&](const CpuKernelTable&) {
      for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        ExecContext ctx{p};
        std::vector<uint8_t> got(want.size());
        QuantizeWeights(ctx, View(wf.data(), DType::kF32, {rows, in}), View(got.data(), fmt, {rows, in}));
        ASSERT_EQ(got, want) << tensor::DTypeName(fmt) << " f32 in=" << in;
        std::fill(got.begin(), got.end(), 0);
        QuantizeWeights(ctx, View(wb.data(), DType::kBF16, {rows, in}), View(got.data(), fmt, {rows, in}));
        ASSERT_EQ(got, want) << tensor::DTypeName(fmt) << " bf16 in=" << in;
      }
      });
      // Round trip: Q8_R within half a step of its row (max|w| / 127); Q4_0 within one step of
      // its block (max|w| / 8: the level opposite the block's extreme is clipped to 7), plus the
      // f16 rounding of the scale.
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t i = 0; i < in; ++i) {
          const int64_t lo = fmt == DType::kQ8R ? 0 : i / 32 * 32, hi = fmt == DType::kQ8R ? in : lo + 32;
          double amax = 0.0;
          for (int64_t j = lo; j < hi; ++j) amax = std::fmax(amax, std::fabs(wf[r * in + j]));
          const double bound = fmt == DType::kQ8R ? 0.5 * amax / 127.0 : amax / 8.0;
          const double deq = reference::Dequantized(want.data(), fmt, rows, in, r, i);
          ASSERT_LE(std::fabs(deq - wf[r * in + i]), bound * 1.002 + 1e-9) << "row " << r << " i " << i;
        }
      }
      }
    }
  }
}

// Tolerance for one output: fp32 rounding of a sum of `in` terms, relative to Σ|terms|.
std::vector<double> Magnitudes(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, DType fmt,
                               int64_t out) {
  std::vector<double> m(static_cast<size_t>(n * out));
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t o = 0; o < out; ++o) {
      double s = 0.0;
      for (int64_t i = 0; i < in; ++i) {
        s += std::fabs(d[t * (in / 32) + i / 32] * q[t * in + i] * reference::Dequantized(w, fmt, out, in, o, i));
      }
      m[t * out + o] = s;
    }
  }
  return m;
}

TEST(QuantParity, LinearQuantOddSizesMisaligned) {
  Rng rng(3);
  for (DType fmt : kFormats) {
    for (int64_t in : {32, 96, 224}) {
      for (int64_t out : {1, 2, 3, 5, 8, 17, 36, 37}) {
        auto wf = testing::RandomFloats(rng, out * in, 0.05);
        const auto w = OddBytes(reference::QuantizeRows(wf.data(), out, in, fmt));
        for (int64_t n : {1, 2, 3, 4, 5, 7, 9, 16}) {
          auto x = Activations(rng, n, in);
          testing::Misaligned<int8_t> q(n * in);
          testing::Misaligned<float> d(n * in / 32);
          reference::QuantizeActs(x.data(), n, in, q.data(), d.data());
          std::vector<float> want(static_cast<size_t>(n * out)), got(want.size());
          reference::LinearQuant(q.data(), d.data(), n, in, w.data(), fmt, out, want.data());
          const auto mag = Magnitudes(q.data(), d.data(), n, in, w.data(), fmt, out);
          testing::ForEachKernelTable([&](const CpuKernelTable& t) {
            const LinearQuantFn fn = fmt == DType::kQ8R ? t.linear_q8r : t.linear_q4_0;
            fn(q.data(), d.data(), n, in, w.data(), out, 0, out, got.data(), out);
            for (int64_t i = 0; i < n * out; ++i) {
              ASSERT_NEAR(got[i], want[i], 1e-5 * mag[i] + 1e-30)
                  << tensor::DTypeName(fmt) << " in=" << in << " out=" << out << " n=" << n << " i=" << i;
            }
          });
        }
      }
    }
  }
}

#if defined(__aarch64__)
// The NEON Q4_0 kernel takes the portable kernel's integer sums and float expression: equal bit
// for bit, odd row counts (the lone last row) included.
TEST(QuantParity, NeonQ4_0EqualsPortableBitForBit) {
  Rng rng(11);
  for (int64_t out : {1, 6, 37}) {
    const int64_t in = 224, n = 5;
    auto wf = testing::RandomFloats(rng, out * in, 0.05);
    const auto w = OddBytes(reference::QuantizeRows(wf.data(), out, in, DType::kQ4_0));
    auto x = Activations(rng, n, in);
    testing::Misaligned<int8_t> q(n * in);
    testing::Misaligned<float> d(n * in / 32);
    reference::QuantizeActs(x.data(), n, in, q.data(), d.data());
    std::vector<float> a(static_cast<size_t>(n * out)), b(a.size());
    LinearQ4_0Neon(q.data(), d.data(), n, in, w.data(), out, 0, out, a.data(), out);
    LinearQ4_0Generic(q.data(), d.data(), n, in, w.data(), out, 0, out, b.data(), out);
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(std::memcmp(&a[i], &b[i], 4), 0) << "out=" << out << " i=" << i;
  }
}
#endif

// Quantizes n tokens of x, runs fn on all of them at once and on each alone; every (token, row)
// output must be bit-identical. Returns the batched outputs [n][out].
std::vector<float> ExpectBatchEqualsAlone(const CpuKernelTable& t, LinearQuantFn fn, const float* x, int64_t n,
                                          int64_t in, const uint8_t* w, int64_t out,
                                          std::vector<int8_t>* q, std::vector<float>* d) {
  q->assign(static_cast<size_t>(n * in), 0);
  d->assign(static_cast<size_t>(n * in / 32), 0.0f);
  t.quantize_acts(x, n, in, q->data(), d->data());
  std::vector<float> batched(static_cast<size_t>(n * out)), alone(static_cast<size_t>(out));
  fn(q->data(), d->data(), n, in, w, out, 0, out, batched.data(), out);
  for (int64_t k = 0; k < n; ++k) {
    fn(q->data() + k * in, d->data() + k * in / 32, 1, in, w, out, 0, out, alone.data(), out);
    for (int64_t o = 0; o < out; ++o) {
      EXPECT_EQ(batched[k * out + o], alone[o]) << t.name << " n=" << n << " token " << k;
      if (batched[k * out + o] != alone[o]) return batched;
    }
  }
  return batched;
}

TEST(QuantParity, LinearQuantIsBatchInvariant) {
  Rng rng(4);
  for (DType fmt : kFormats) {
    const int64_t in = 96, out = 37;
    auto wf = testing::RandomFloats(rng, out * in, 0.05);
    const auto w = OddBytes(reference::QuantizeRows(wf.data(), out, in, fmt));
    testing::ForEachKernelTable([&](const CpuKernelTable& t) {
      const LinearQuantFn fn = fmt == DType::kQ8R ? t.linear_q8r : t.linear_q4_0;
      for (int64_t n : {2, 3, 4, 5, 6, 7, 8, 9, 16, 17}) {
        auto x = Activations(rng, n, in);
        std::vector<int8_t> q;
        std::vector<float> d;
        const auto batched = ExpectBatchEqualsAlone(t, fn, x.data(), n, in, w.data(), out, &q, &d);
        std::vector<float> part(static_cast<size_t>(n * out), -1.0f);
        fn(q.data(), d.data(), n, in, w.data(), out, 3, 17, part.data(), out);  // starts mid-pair
        for (int64_t k = 0; k < n; ++k) {
          for (int64_t o = 0; o < out; ++o) {
            ASSERT_EQ(part[k * out + o], (o >= 3 && o < 17) ? batched[k * out + o] : -1.0f) << t.name << " range";
          }
        }
      }
    });
  }
}

// A batch whose prepared token side passes the kernels' per-call bound (8 MiB: about 226 int8 and
// 170 int4 tokens at in = 12,320) runs in passes of tokens; every result still equals the
// one-token kernel's.
TEST(QuantParity, LongBatchesRunInPassesWithTheSameResults) {
  Rng rng(11);
  const int64_t in = 32 * 385, out = 7, n = 229;
  for (DType fmt : kFormats) {
    auto wf = testing::RandomFloats(rng, out * in, 0.05);
    const auto w = OddBytes(reference::QuantizeRows(wf.data(), out, in, fmt));
    auto x = Activations(rng, n, in);
    testing::ForEachKernelTable([&](const CpuKernelTable& t) {
      const LinearQuantFn fn = fmt == DType::kQ8R ? t.linear_q8r : t.linear_q4_0;
      std::vector<int8_t> q;
      std::vector<float> d;
      ExpectBatchEqualsAlone(t, fn, x.data(), n, in, w.data(), out, &q, &d);
    });
  }
}

// The public ops: Linear and EmbeddingGather on quantized views, with and without a pool; and
// the quantized result stays close to the fp32 Linear (a bound, not a parity: it measures the
// quantization itself).
TEST(QuantParity, OpsReadQuantizedWeights) {
  Rng rng(5);
  ThreadPool pool(2);
  const int64_t n = 6, in = 128, out = 300;
  auto wf = testing::RandomFloats(rng, out * in, 0.05);
  auto x = testing::RandomFloats(rng, n * in);
  std::vector<float> exact(static_cast<size_t>(n * out));
  Linear(ExecContext{}, View(x.data(), DType::kF32, {n, in}), View(wf.data(), DType::kF32, {out, in}),
         View(exact.data(), DType::kF32, {n, out}));
  for (DType fmt : kFormats) {
    std::vector<uint8_t> wq(tensor::RowBytes(fmt, in) * out);
    QuantizeWeights(ExecContext{&pool}, View(wf.data(), DType::kF32, {out, in}), View(wq.data(), fmt, {out, in}));
    std::vector<int8_t> q(static_cast<size_t>(n * in));
    std::vector<float> d(static_cast<size_t>(n * in / 32)), want(static_cast<size_t>(n * out));
    reference::QuantizeActs(x.data(), n, in, q.data(), d.data());
    reference::LinearQuant(q.data(), d.data(), n, in, wq.data(), fmt, out, want.data());
    double err = 0.0, ref = 0.0;
    for (size_t i = 0; i < exact.size(); ++i) {
      err += (want[i] - exact[i]) * (want[i] - exact[i]);
      ref += exact[i] * exact[i];
    }
    EXPECT_LT(std::sqrt(err / ref), fmt == DType::kQ8R ? 0.02 : 0.15) << tensor::DTypeName(fmt);
    testing::ForEachKernelTable([&](const CpuKernelTable& t) {
      for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        std::vector<float> got(want.size());
        Linear(ExecContext{p}, View(x.data(), DType::kF32, {n, in}), View(wq.data(), fmt, {out, in}),
               View(got.data(), DType::kF32, {n, out}));
        for (size_t i = 0; i < got.size(); ++i) ASSERT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(want[i]))) << t.name;
      }
      const std::vector<int32_t> ids = {7, 0, 299, 7};
      std::vector<float> rows(ids.size() * in);
      EmbeddingGather(ExecContext{&pool}, View(wq.data(), fmt, {out, in}),
                      View(ids.data(), DType::kI32, {static_cast<int64_t>(ids.size())}), 2.5f,
                      View(rows.data(), DType::kF32, {static_cast<int64_t>(ids.size()), in}));
      for (size_t k = 0; k < ids.size(); ++k) {
        for (int64_t i = 0; i < in; ++i) {
          ASSERT_FLOAT_EQ(rows[k * in + i],
                          static_cast<float>(reference::Dequantized(wq.data(), fmt, out, in, ids[k], i)) * 2.5f);
        }
      }
    });
  }
}

// MoeExperts with quantized expert stacks [E, rows, in] equals the same op on the dequantized
// fp32 stacks up to the activation quantization (a loose bound), for every table: Q8_R, Q4_0 and
// kF8R (FP8 checkpoints' experts, with per-token E4M3 activations).
TEST(QuantParity, MoeExpertsReadQuantizedStacks) {
  Rng rng(6);
  const int64_t E = 4, H = 64, Ie = 32, n = 5, K = 2;
  auto gu = testing::RandomFloats(rng, E * 2 * Ie * H, 0.1);
  auto dn = testing::RandomFloats(rng, E * H * Ie, 0.1);
  auto x = testing::RandomFloats(rng, n * H);
  std::vector<float> rw = {0.6f, 0.4f, 0.7f, 0.3f, 0.5f, 0.5f, 0.9f, 0.1f, 0.2f, 0.8f};
  std::vector<int32_t> ri = {0, 1, 1, 2, 3, 0, 2, 3, 1, 3};
  for (DType fmt : {DType::kQ8R, DType::kQ4_0, DType::kF8R}) {
    const auto gq = reference::QuantizeRows(gu.data(), E * 2 * Ie, H, fmt);
    const auto dq = reference::QuantizeRows(dn.data(), E * H, Ie, fmt);
    std::vector<float> gdeq(static_cast<size_t>(E * 2 * Ie * H)), ddeq(static_cast<size_t>(E * H * Ie));
    for (int64_t r = 0; r < E * 2 * Ie; ++r) {
      for (int64_t i = 0; i < H; ++i) gdeq[r * H + i] = static_cast<float>(reference::Dequantized(gq.data(), fmt, E * 2 * Ie, H, r, i));
    }
    for (int64_t r = 0; r < E * H; ++r) {
      for (int64_t i = 0; i < Ie; ++i) ddeq[r * Ie + i] = static_cast<float>(reference::Dequantized(dq.data(), fmt, E * H, Ie, r, i));
    }
    std::vector<float> want(static_cast<size_t>(n * H)), got(want.size());
    MoeExperts(ExecContext{}, View(x.data(), DType::kF32, {n, H}), View(gdeq.data(), DType::kF32, {E, 2 * Ie, H}),
               View(ddeq.data(), DType::kF32, {E, H, Ie}), View(rw.data(), DType::kF32, {n, K}),
               View(ri.data(), DType::kI32, {n, K}), View(want.data(), DType::kF32, {n, H}));
    testing::ForEachKernelTable([&](const CpuKernelTable&) {
      MoeExperts(ExecContext{}, View(x.data(), DType::kF32, {n, H}), View(gq.data(), fmt, {E, 2 * Ie, H}),
                 View(dq.data(), fmt, {E, H, Ie}), View(rw.data(), DType::kF32, {n, K}),
                 View(ri.data(), DType::kI32, {n, K}), View(got.data(), DType::kF32, {n, H}));
      double err = 0.0, ref = 0.0;
      for (size_t i = 0; i < got.size(); ++i) {
        err += (got[i] - want[i]) * (got[i] - want[i]);
        ref += want[i] * want[i];
      }
      // Measured 0.012 (Q8_R, Q4_0: int8 activations) and 0.045 (F8_R: E4M3 activations, 3 mantissa bits, into
      // both Linears); the reference backend's own FP8 MoeExperts: backend_ops_parity_test.cc.
      EXPECT_LT(std::sqrt(err / ref), fmt == DType::kF8R ? 0.07 : 0.03) << tensor::DTypeName(fmt);
    });
  }
}

}  // namespace
}  // namespace gemmad::kernels
