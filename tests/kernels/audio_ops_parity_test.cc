// Parity of the audio tower's ops (ops.h §audio tower) between the CPU backend (every kernel table,
// with and without a pool) and the scalar reference backend: Silu, Relu, Glu over wide argument
// ranges (the vector exp's floor included), LayerNorm, Im2Col (odd sizes, padding, strides),
// CausalDepthwiseConv1d (T shorter than the kernel too) and ChunkedAttention (the released chunking
// constants, the tiny ones, future keys, T not a multiple of the chunk, one frame, a window with no
// allowed key), LinearGemm with [out, in] and prepacked weights and PackGemmWeights (row and
// column tails, k across panels, row blocks). Small hand-checked cases pin the semantics of Glu,
// Im2Col, the causal conv and the packed layout.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "kernels/backend.h"
#include "kernels/ops.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::View;

std::vector<float> Vec(const testing::Misaligned<float>& m) { return {m.data(), m.data() + m.size()}; }

// Runs `op(ctx)` on the reference backend and on the CPU backend (each table, no pool and a pool),
// comparing the floats it returns.
template <typename Op>
void ExpectBackendsAgree(Op op, double atol, double rtol) {
  const ExecContext ref{nullptr, &ReferenceBackend()};
  const std::vector<float> want = op(ref);
  ThreadPool pool(3);
  testing::ForEachKernelTable([&](const CpuKernelTable&) {
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      const std::vector<float> got = op(ExecContext{p, &CpuBackend()});
      ASSERT_EQ(got.size(), want.size());
      testing::ExpectClose(got.data(), want.data(), static_cast<int64_t>(got.size()), atol, rtol, "cpu vs reference");
    }
  });
}

TEST(AudioOpsParity, ElementwiseAndNorms) {
  Rng rng(5);
  for (int64_t rows : {1, 3, 37}) {
    for (int64_t w : {1, 7, 300}) {
      SCOPED_TRACE(::testing::Message() << rows << "x" << w);
      auto x = Vec(testing::RandomFloats(rng, rows * 2 * w, 30.0));  // reaches the exp floor (|x| > 87)
      auto lw = Vec(testing::RandomFloats(rng, w));
      ExpectBackendsAgree(
          [&](const ExecContext& ctx) {
            const int64_t n = rows * 2 * w;
            std::vector<float> s(n), r(n), g(rows * w), ln(rows * w);
            Silu(ctx, View(x.data(), DType::kF32, {n}), View(s.data(), DType::kF32, {n}));
            Relu(ctx, View(x.data(), DType::kF32, {n}), View(r.data(), DType::kF32, {n}));
            Glu(ctx, View(x.data(), DType::kF32, {rows, 2 * w}), View(g.data(), DType::kF32, {rows, w}));
            LayerNorm(ctx, View(x.data(), DType::kF32, {rows, w}), View(lw.data(), DType::kF32, {w}),
                      View(ln.data(), DType::kF32, {rows, w}), 1e-6f);
            for (auto* v : {&r, &g, &ln}) s.insert(s.end(), v->begin(), v->end());
            return s;
          },
          1e-5, 2e-5);
    }
  }
}

TEST(AudioOpsParity, GluKeepsTheFirstHalfGatedByTheSecond) {
  std::vector<float> x = {2.0f, -1.0f, 0.0f, 100.0f}, out(2);
  Glu({}, View(x.data(), DType::kF32, {1, 4}), View(out.data(), DType::kF32, {1, 2}));
  EXPECT_FLOAT_EQ(out[0], 1.0f);   // 2 · sigmoid(0)
  EXPECT_FLOAT_EQ(out[1], -1.0f);  // −1 · sigmoid(100)
}

TEST(AudioOpsParity, Im2Col) {
  // A 3x2 one-channel image, kernel 3, stride 2, pad 1 -> 2x1 outputs of 9 taps.
  std::vector<float> x = {1, 2, 3, 4, 5, 6}, out(18);
  Im2Col({}, View(x.data(), DType::kF32, {3, 2, 1}), 3, 2, 1, View(out.data(), DType::kF32, {2, 1, 9}));
  EXPECT_EQ(out, (std::vector<float>{0, 0, 0, 0, 1, 2, 0, 3, 4, /**/ 0, 3, 4, 0, 5, 6, 0, 0, 0}));
  Rng rng(9);
  for (const auto& shape : {std::array{7, 16, 1, 3, 2, 1}, {8, 8, 5, 3, 2, 1}, {5, 9, 3, 2, 1, 0}, {1, 4, 2, 3, 2, 1}}) {
    // Plain variables, not a structured binding: the lambda below captures them (clang 14).
    const int h = shape[0], w = shape[1], c = shape[2], k = shape[3], s = shape[4], p = shape[5];
    auto in = Vec(testing::RandomFloats(rng, h * w * c));
    const int64_t ho = (h + 2 * p - k) / s + 1, wo = (w + 2 * p - k) / s + 1;
    ExpectBackendsAgree(
        [&](const ExecContext& ctx) {
          std::vector<float> o(ho * wo * k * k * c);
          Im2Col(ctx, View(in.data(), DType::kF32, {h, w, c}), k, s, p, View(o.data(), DType::kF32, {ho, wo, k * k * c}));
          return o;
        },
        0, 0);
  }
}

TEST(AudioOpsParity, CausalDepthwiseConv1d) {
  std::vector<float> x = {1, 10, 2, 20, 3, 30}, w = {1, 2, 3, 0, 0, 1}, out(6);  // T 3, D 2, K 3
  CausalDepthwiseConv1d({}, View(x.data(), DType::kF32, {3, 2}), View(w.data(), DType::kF32, {2, 3}),
                        View(out.data(), DType::kF32, {3, 2}));
  EXPECT_EQ(out, (std::vector<float>{3, 10, 3 * 2 + 2 * 1, 20, 3 * 3 + 2 * 2 + 1, 30}));
  Rng rng(11);
  for (const auto& shape : {std::array{1, 4, 5}, {3, 7, 5}, {50, 33, 5}, {20, 16, 1}}) {
    const int t = shape[0], d = shape[1], k = shape[2];
    auto in = Vec(testing::RandomFloats(rng, t * d)), taps = Vec(testing::RandomFloats(rng, d * k));
    ExpectBackendsAgree(
        [&](const ExecContext& ctx) {
          std::vector<float> o(t * d);
          CausalDepthwiseConv1d(ctx, View(in.data(), DType::kF32, {t, d}), View(taps.data(), DType::kF32, {d, k}),
                                View(o.data(), DType::kF32, {t, d}));
          return o;
        },
        1e-5, 1e-5);
  }
}

TEST(AudioOpsParity, LinearGemm) {
  struct Case {
    int64_t n, in, out;
  };
  // Few rows or outputs (Linear for an [out, in] w; the packed path for a prepacked one), tile
  // tails in rows and columns, k across panels, few column panels with many rows (tile groups),
  // rows across the 768-row blocks, one input.
  const Case cases[] = {{1, 9, 128}, {15, 33, 70}, {16, 9, 128}, {37, 300, 97}, {250, 1024, 96}, {100, 1152, 32},
                        {800, 40, 65}, {300, 513, 64}, {5, 1, 40}};
  Rng rng(17);
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "n " << c.n << " in " << c.in << " out " << c.out);
    auto x = Vec(testing::RandomFloats(rng, c.n * c.in)), w = Vec(testing::RandomFloats(rng, c.out * c.in, 0.1));
    const int64_t panels = (c.out + 31) / 32;
    const double tol = 2e-6 * std::sqrt(static_cast<double>(c.in) + 1);
    ExpectBackendsAgree(
        [&](const ExecContext& ctx) {
          std::vector<float> y(c.n * c.out, 777.0f), yp(c.n * c.out, 777.0f), packed(panels * c.in * 32, 777.0f);
          const auto wv = View(w.data(), DType::kF32, {c.out, c.in});
          LinearGemm(ctx, View(x.data(), DType::kF32, {c.n, c.in}), wv, View(y.data(), DType::kF32, {c.n, c.out}));
          PackGemmWeights(ctx, wv, View(packed.data(), DType::kF32, {panels, c.in, 32}));
          LinearGemm(ctx, View(x.data(), DType::kF32, {c.n, c.in}), View(packed.data(), DType::kF32, {panels, c.in, 32}),
                     View(yp.data(), DType::kF32, {c.n, c.out}));
          y.insert(y.end(), yp.begin(), yp.end());
          y.insert(y.end(), packed.begin(), packed.end());  // exact: a permutation with zero padding
          return y;
        },
        tol, 1e-5);
  }
  // The packed layout: element (r, k) of w at [r / 32, k, r % 32], zeros past the last row.
  std::vector<float> w2 = {1, 2, 3, 4, 5, 6}, packed(2 * 32, -1.0f);  // w: [3, 2]
  PackGemmWeights({}, View(w2.data(), DType::kF32, {3, 2}), View(packed.data(), DType::kF32, {1, 2, 32}));
  EXPECT_EQ(std::vector<float>(packed.begin(), packed.begin() + 4), (std::vector<float>{1, 3, 5, 0}));
  EXPECT_EQ(std::vector<float>(packed.begin() + 32, packed.begin() + 36), (std::vector<float>{2, 4, 6, 0}));
}

TEST(AudioOpsParity, ChunkedAttention) {
  struct Case {
    int64_t t, heads, d, chunk, past, future;
    float cap;
  };
  const Case cases[] = {{250, 2, 16, 12, 12, 0, 50.0f}, {37, 4, 8, 4, 4, 0, 5.0f}, {1, 1, 8, 12, 12, 0, 50.0f},
                        {29, 2, 8, 5, 3, 2, 5.0f},      {13, 2, 4, 4, 0, 0, 5.0f},  {40, 3, 12, 6, 9, 1, 2.0f}};
  Rng rng(13);
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "T " << c.t << " C " << c.chunk << " P " << c.past << " R " << c.future);
    const int64_t n = c.t * c.heads * c.d, l = (c.chunk + c.past + c.future) / 2 + 1;
    auto q = Vec(testing::RandomFloats(rng, n, 2.0)), k = Vec(testing::RandomFloats(rng, n, 2.0));
    auto v = Vec(testing::RandomFloats(rng, n)), rel = Vec(testing::RandomFloats(rng, l * c.heads * c.d));
    auto qs = Vec(testing::RandomFloats(rng, c.d));
    const ChunkedAttentionParams p{c.chunk, c.past, c.future, 1.894646f, c.cap, -1e9f};
    ExpectBackendsAgree(
        [&](const ExecContext& ctx) {
          std::vector<float> o(n);
          const tensor::Shape s{c.t, c.heads, c.d};
          ChunkedAttention(ctx, View(q.data(), DType::kF32, s), View(qs.data(), DType::kF32, {c.d}),
                           View(k.data(), DType::kF32, s), View(v.data(), DType::kF32, s),
                           View(rel.data(), DType::kF32, {l, c.heads, c.d}), p, View(o.data(), DType::kF32, s));
          return o;
        },
        2e-5, 2e-5);
  }
}

}  // namespace
}  // namespace gemmad::kernels
