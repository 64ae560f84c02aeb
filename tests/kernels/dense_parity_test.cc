// Parity of the dense ops (Linear, RMSNorm, RoPE, element-wise, embedding) with the scalar
// references, for every CPU kernel table, with and without a thread pool.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/ops.h"
#include "kernels/reference/activation.h"
#include "kernels/reference/embedding.h"
#include "kernels/reference/linear.h"
#include "kernels/reference/rms_norm.h"
#include "kernels/reference/rope.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::ExpectClose;
using testing::View;

TEST(KernelRegistry, AutoChoiceIsTheBestSupportedTable) {
  auto tables = SupportedCpuKernelTables();
  ASSERT_FALSE(tables.empty());
  EXPECT_EQ(tables.front()->name, "generic");
  std::vector<std::string_view> want = {"generic"};
#if defined(__x86_64__)
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if (avx2) want.push_back("avx2");
  if (avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq")) {
    want.push_back("avx512");
  }
#elif defined(__aarch64__)
  want.push_back("neon");
#endif
  std::vector<std::string_view> got;
  for (const auto* t : tables) got.push_back(t->name);
  EXPECT_EQ(got, want);
  if (std::getenv("GEMMAD_CPU_ISA") == nullptr) {
    EXPECT_EQ(&CpuKernels(), tables.back());
  }
}

// Every entry of every compiled table is filled (aggregate initialisation would leave a
// forgotten trailing entry null without a diagnostic).
TEST(KernelRegistry, EveryTableIsComplete) {
  for (const CpuKernelTable* t : SupportedCpuKernelTables()) {
    SCOPED_TRACE(std::string(t->name));
    EXPECT_NE(t->supported, nullptr);
    EXPECT_NE(t->linear_f32, nullptr);
    EXPECT_NE(t->linear_bf16, nullptr);
    EXPECT_NE(t->softcap, nullptr);
    EXPECT_NE(t->quantize_int8, nullptr);
    EXPECT_NE(t->fake_quant_int8, nullptr);
    EXPECT_NE(t->quantize_acts, nullptr);
    EXPECT_NE(t->linear_q8r, nullptr);
    EXPECT_NE(t->linear_q4_0, nullptr);
    EXPECT_NE(t->linear_ggml_q8_0, nullptr);
    EXPECT_NE(t->linear_ggml_q5_0, nullptr);
    EXPECT_NE(t->linear_ggml_q4_k, nullptr);
    EXPECT_NE(t->linear_ggml_q6_k, nullptr);
    EXPECT_NE(t->linear_f8r, nullptr);
    EXPECT_NE(t->linear_lut4r, nullptr);
    EXPECT_NE(t->linear_lut2r, nullptr);
    EXPECT_NE(t->linear_i8br, nullptr);
    // The int8-activation table-row kernels: on every x86 table but the generic one (AVX-512 VNNI, AVX2).
    const bool int_lut = t->name == "avx512" || t->name == "avx2";
    EXPECT_EQ(t->linear_lut4r_int != nullptr, int_lut);
    EXPECT_EQ(t->linear_lut2r_int != nullptr, int_lut);
    // The row-per-lane int4 kernel: on every x86 table but the generic one (AVX-512 VNNI, AVX2).
    EXPECT_EQ(t->linear_q4_0x16 != nullptr, t->name == "avx512" || t->name == "avx2");
    EXPECT_NE(t->quantize_row_q8r, nullptr);
    EXPECT_NE(t->quantize_row_q4_0, nullptr);
    EXPECT_NE(t->gelu_tanh_mul, nullptr);
    EXPECT_NE(t->exp_shifted, nullptr);
    EXPECT_NE(t->gemm_f32, nullptr);
  }
  static_assert(sizeof(CpuKernelTable) == sizeof(std::string_view) + 25 * sizeof(void*),
                "a new CpuKernelTable entry needs a line above");
}

TEST(KernelParity, LinearF32AndBf16OddSizesMisaligned) {
  ThreadPool pool(2);
  Rng rng(1);
  testing::ForEachKernelTable([&](const CpuKernelTable&) {
    for (ExecContext ctx : {ExecContext{}, ExecContext{&pool}}) {
      for (int64_t n : {1, 3, 4, 6, 9, 13}) {
        for (int64_t in : {1, 7, 8, 17, 32, 67}) {
          for (int64_t out : {1, 5, 33}) {
            auto x = testing::RandomFloats(rng, n * in);
            auto wf = testing::RandomFloats(rng, out * in);
            std::vector<float> wb_f;
            auto wb = testing::RandomBf16(rng, out * in, &wb_f);
            testing::Misaligned<float> y(n * out);
            std::vector<float> want(static_cast<size_t>(n * out));
            const double tol = 1e-5 * std::sqrt(static_cast<double>(in));
            Linear(ctx, View(x.data(), DType::kF32, {n, in}), View(wf.data(), DType::kF32, {out, in}),
                   View(y.data(), DType::kF32, {n, out}));
            reference::LinearF32(x.data(), n, in, wf.data(), out, want.data());
            ExpectClose(y.data(), want.data(), n * out, tol, 1e-5, "f32");
            Linear(ctx, View(x.data(), DType::kF32, {n, in}), View(wb.data(), DType::kBF16, {out, in}),
                   View(y.data(), DType::kF32, {n, out}));
            reference::LinearF32(x.data(), n, in, wb_f.data(), out, want.data());
            ExpectClose(y.data(), want.data(), n * out, tol, 1e-5, "bf16");
            reference::LinearBf16(x.data(), n, in, wb.data(), out, want.data());
            ExpectClose(y.data(), want.data(), n * out, tol, 1e-5, "bf16 ref");
          }
        }
      }
    }
  });
}

TEST(KernelParity, RmsNormWeightedBf16WeightlessPerHead) {
  ThreadPool pool(2);
  Rng rng(2);
  for (ExecContext ctx : {ExecContext{}, ExecContext{&pool}}) {
    for (int64_t rows : {1, 3, 40}) {
      for (int64_t n : {1, 5, 16, 67}) {
        auto x = testing::RandomFloats(rng, rows * n, 3.0);
        auto w = testing::RandomFloats(rng, n);
        std::vector<float> wb_f;
        auto wb = testing::RandomBf16(rng, n, &wb_f);
        testing::Misaligned<float> y(rows * n);
        std::vector<float> want(static_cast<size_t>(rows * n));
        auto xv = View(x.data(), DType::kF32, {rows, n});
        auto yv = View(y.data(), DType::kF32, {rows, n});
        RmsNorm(ctx, xv, View(w.data(), DType::kF32, {n}), yv, 1e-6f);
        reference::RmsNorm(x.data(), w.data(), want.data(), rows, n, 1e-6f);
        ExpectClose(y.data(), want.data(), rows * n, 1e-6, 1e-5, "f32 weight");
        RmsNorm(ctx, xv, View(wb.data(), DType::kBF16, {n}), yv, 1e-6f);
        reference::RmsNorm(x.data(), wb_f.data(), want.data(), rows, n, 1e-6f);
        ExpectClose(y.data(), want.data(), rows * n, 1e-6, 1e-5, "bf16 weight");
        RmsNorm(ctx, xv, tensor::TensorView{}, yv, 1e-6f);
        reference::RmsNorm(x.data(), nullptr, want.data(), rows, n, 1e-6f);
        ExpectClose(y.data(), want.data(), rows * n, 1e-6, 1e-5, "weightless");
        RmsNorm(ctx, xv, tensor::TensorView{}, xv, 1e-6f);  // in place
        ExpectClose(x.data(), want.data(), rows * n, 1e-6, 1e-5, "in place");
      }
    }
  }
}

TEST(KernelParity, RopeDefaultAndProportional) {
  ThreadPool pool(2);
  Rng rng(3);
  for (ExecContext ctx : {ExecContext{}, ExecContext{&pool}}) {
    for (int64_t d : {2, 16, 32, 66}) {
      for (bool proportional : {false, true}) {
        const int64_t n = 11, heads = 3, half = d / 2;
        auto x = testing::RandomFloats(rng, n * heads * d);
        testing::Misaligned<float> f(half);
        testing::Misaligned<int32_t> pos(n);
        for (int64_t i = 0; i < half; ++i) {
          const bool rotates = !proportional || i < std::max<int64_t>(1, half / 4);
          f[i] = rotates ? 1.0f / std::pow(10000.0f, static_cast<float>(2 * i) / static_cast<float>(d)) : 0.0f;
        }
        for (int64_t t = 0; t < n; ++t) pos[t] = static_cast<int32_t>(t * 37 + 3);
        std::vector<float> want(x.data(), x.data() + n * heads * d);
        RopeNeox(ctx, View(x.data(), DType::kF32, {n, heads, d}), View(pos.data(), DType::kI32, {n}),
                 View(f.data(), DType::kF32, {half}));
        reference::RopeNeox(want.data(), n, heads, d, pos.data(), f.data());
        ExpectClose(x.data(), want.data(), n * heads * d, 2e-5, 1e-5, "rope");
      }
    }
  }
}

TEST(KernelParity, RopeZeroFrequencyLanesPassThrough) {
  const int64_t d = 8;
  std::vector<float> x = {1, 2, 3, 4, 5, 6, 7, 8}, f = {1.0f, 0.0f, 0.0f, 0.0f};
  std::vector<int32_t> pos = {5};
  RopeNeox({}, View(x.data(), DType::kF32, {1, 1, d}), View(pos.data(), DType::kI32, {1}),
           View(f.data(), DType::kF32, {4}));
  EXPECT_FLOAT_EQ(x[1], 2);
  EXPECT_FLOAT_EQ(x[3], 4);
  EXPECT_FLOAT_EQ(x[5], 6);
  EXPECT_FLOAT_EQ(x[7], 8);
  EXPECT_NEAR(x[0], 1 * std::cos(5.0) - 5 * std::sin(5.0), 1e-5);  // pairs (0, 4): rotate-half
  EXPECT_NEAR(x[4], 5 * std::cos(5.0) + 1 * std::sin(5.0), 1e-5);
}

TEST(KernelParity, ElementwiseOps) {
  ThreadPool pool(2);
  Rng rng(4);
  for (ExecContext ctx : {ExecContext{}, ExecContext{&pool}}) {
    for (int64_t n : {1, 7, 9000}) {
      auto g = testing::RandomFloats(rng, n, 3.0);
      auto u = testing::RandomFloats(rng, n);
      testing::Misaligned<float> o(n);
      std::vector<float> want(static_cast<size_t>(n));
      GeluTanhMul(ctx, View(g.data(), DType::kF32, {n}), View(u.data(), DType::kF32, {n}),
                  View(o.data(), DType::kF32, {n}));
      reference::GeluTanhMul(g.data(), u.data(), want.data(), n);
      ExpectClose(o.data(), want.data(), n, 1e-6, 1e-5, "geglu");

      std::vector<float> capped(g.data(), g.data() + n);
      for (float& v : capped) v *= 20.0f;
      std::vector<float> capped_want = capped;
      SoftCap(ctx, View(capped.data(), DType::kF32, {n}), 5.0f);
      reference::SoftCap(capped_want.data(), n, 5.0f);
      ExpectClose(capped.data(), capped_want.data(), n, 1e-5, 1e-5, "softcap");
      for (float v : capped) ASSERT_LE(std::fabs(v), 5.0f);

      Add(ctx, View(g.data(), DType::kF32, {n}), View(u.data(), DType::kF32, {n}), View(o.data(), DType::kF32, {n}));
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(o[i], g[i] + u[i]);
      Scale(ctx, View(o.data(), DType::kF32, {n}), 0.5f);
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(o[i], (g[i] + u[i]) * 0.5f);
    }
    for (int64_t cols : {1, 5, 300}) {
      const int64_t rows = 7;
      auto x = testing::RandomFloats(rng, rows * cols, 10.0);
      std::vector<float> want(x.data(), x.data() + rows * cols);
      Softmax(ctx, View(x.data(), DType::kF32, {rows, cols}));
      reference::Softmax(want.data(), rows, cols);
      ExpectClose(x.data(), want.data(), rows * cols, 1e-7, 1e-5, "softmax");
    }
  }
}

TEST(KernelParity, EmbeddingGatherF32AndBf16) {
  Rng rng(5);
  const int64_t rows = 37, m = 13, n = 9;
  auto tf = testing::RandomFloats(rng, rows * m);
  std::vector<float> tb_f;
  auto tb = testing::RandomBf16(rng, rows * m, &tb_f);
  testing::Misaligned<int32_t> ids(n);
  for (int64_t t = 0; t < n; ++t) ids[t] = static_cast<int32_t>(rng.Below(rows));
  ids[0] = 0;
  ids[1] = static_cast<int32_t>(rows - 1);
  testing::Misaligned<float> out(n * m);
  std::vector<float> want(static_cast<size_t>(n * m));
  EmbeddingGather({}, View(tf.data(), DType::kF32, {rows, m}), View(ids.data(), DType::kI32, {n}), 8.0f,
                  View(out.data(), DType::kF32, {n, m}));
  reference::EmbeddingGatherF32(tf.data(), m, ids.data(), n, 8.0f, want.data());
  ExpectClose(out.data(), want.data(), n * m, 0, 0, "f32");
  EmbeddingGather({}, View(tb.data(), DType::kBF16, {rows, m}), View(ids.data(), DType::kI32, {n}), 2.828125f,
                  View(out.data(), DType::kF32, {n, m}));
  reference::EmbeddingGatherBf16(tb.data(), m, ids.data(), n, 2.828125f, want.data());
  ExpectClose(out.data(), want.data(), n * m, 0, 0, "bf16");
}

}  // namespace
}  // namespace gemmad::kernels

namespace gemmad::kernels {
namespace {

// Every kernel table's softcap against std::tanh over the ranges logits take: around zero (the
// polynomial branch), the branch point 0.625·cap, saturation, odd lengths and misaligned starts.
// GeGLU through every table's vector tanh: both tanh branches and the clamp, tails of every
// length, against the double-precision reference.
TEST(KernelParity, GeluTanhMulEveryTable) {
  testing::ForEachKernelTable([](const CpuKernelTable& t) {
    Rng rng(12);
    for (int64_t n : {1, 3, 8, 15, 16, 17, 4099}) {
      testing::Misaligned<float> g(n), u(n), o(n);
      std::vector<float> want(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const double scale = (i % 4 == 0) ? 1e-3 : (i % 4 == 1) ? 0.7 : (i % 4 == 2) ? 3.0 : 12.0;
        g[i] = static_cast<float>(scale * (2.0 * rng.Uniform() - 1.0));
        u[i] = static_cast<float>(2.0 * rng.Uniform() - 1.0);
      }
      if (n > 2) {
        g[1] = -30.0f;  // 1 + tanh rounds to 0: exactly zero out, however large the up value
        u[1] = 1e6f;
      }
      reference::GeluTanhMul(g.data(), u.data(), want.data(), n);
      t.gelu_tanh_mul(g.data(), u.data(), o.data(), n);
      if (n > 2) {
        ASSERT_EQ(o[1], 0.0f) << t.name;
      }
      for (int64_t i = 0; i < n; ++i) {
        ASSERT_NEAR(o[i], want[i], 2e-7 * (1.0 + std::fabs(g[i])) + 2e-6 * std::fabs(want[i]))
            << t.name << " n=" << n << " g=" << g[i];
      }
    }
  });
}

// Every table's exp_shifted against double-precision exp of the same float argument
// (x - shift) · scale: arguments from 0 down past the floor, -inf, the floor itself, tails of
// every length, misaligned starts, and in place.
TEST(KernelParity, ExpShiftedEveryTable) {
  testing::ForEachKernelTable([](const CpuKernelTable& t) {
    Rng rng(13);
    for (const auto& [shift, scale] : {std::pair{0.0f, 1.0f}, std::pair{12.5f, 1.0f / 0.7f}, std::pair{-3.0f, 2.0f}}) {
      for (int64_t n : {1, 3, 4, 7, 8, 15, 16, 17, 4099}) {
        testing::Misaligned<float> x(n), o(n);
        for (int64_t i = 0; i < n; ++i) x[i] = shift + static_cast<float>(-95.0 * rng.Uniform()) / scale;
        if (n > 3) {
          x[0] = shift;  // argument 0: exactly 1
          x[1] = -INFINITY;
          x[2] = shift + kExpShiftedFloor / scale;
          x[3] = shift - 1e-3f;
        }
        std::vector<float> in(x.data(), x.data() + n);
        t.exp_shifted(x.data(), n, shift, scale, o.data());
        for (int64_t i = 0; i < n; ++i) {
          const float y = (in[static_cast<size_t>(i)] - shift) * scale;
          if (y < kExpShiftedFloor) {
            ASSERT_EQ(o[i], 0.0f) << t.name << " y=" << y;
            continue;
          }
          const double want = std::exp(static_cast<double>(y));
          ASSERT_NEAR(o[i], want, 3.6e-7 * want) << t.name << " n=" << n << " y=" << y;
        }
        if (n > 3) {
          ASSERT_EQ(o[0], 1.0f) << t.name;
        }
        t.exp_shifted(x.data(), n, shift, scale, x.data());  // in place
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(x[i], o[i]) << t.name << " in place, i=" << i;
      }
    }
  });
}

TEST(KernelParity, SoftCapEveryTable) {
  testing::ForEachKernelTable([](const CpuKernelTable& t) {
    Rng rng(11);
    for (float cap : {30.0f, 5.0f}) {
      for (int64_t n : {1, 7, 8, 9, 33, 4099}) {
        testing::Misaligned<float> x(n);
        std::vector<double> want(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
          const double scale = (i % 4 == 0) ? 1e-3 : (i % 4 == 1) ? 1.0 : (i % 4 == 2) ? cap : 20.0 * cap;
          x[i] = static_cast<float>(scale * (2.0 * rng.Uniform() - 1.0));
          if (i == 3) x[i] = 0.625f * cap;
          if (i == 5) x[i] = -0.625f * cap * (1.0f - 1e-6f);
          want[static_cast<size_t>(i)] = std::tanh(static_cast<double>(x[i]) / cap) * cap;
        }
        t.softcap(x.data(), n, cap);
        for (int64_t i = 0; i < n; ++i) {
          const double w = want[static_cast<size_t>(i)];
          ASSERT_NEAR(x[i], w, 3e-7 * cap + 2e-6 * std::fabs(w)) << t.name << " n=" << n << " i=" << i;
          ASSERT_LE(std::fabs(x[i]), cap);
        }
      }
    }
  });
}

}  // namespace
}  // namespace gemmad::kernels

namespace gemmad::kernels {
namespace {

// A call with more tokens than one pass of the avx512 bf16 kernel holds (its permuted
// activations are bounded at 16 MiB per thread: 524 tokens of 8000 elements) gives every token the
// values it gets alone.
TEST(KernelParity, LinearBf16ManyTokensMatchAlone) {
  Rng rng(22);
  const int64_t n = 600, in = 8000, out = 7;
  std::vector<float> wb_f;
  auto wb = testing::RandomBf16(rng, out * in, &wb_f);
  auto x = testing::RandomFloats(rng, n * in);
  testing::ForEachKernelTable([&](const CpuKernelTable& t) {
    std::vector<float> batched(static_cast<size_t>(n * out)), alone(static_cast<size_t>(out));
    t.linear_bf16(x.data(), n, in, wb.data(), 0, out, batched.data(), out);
    for (int64_t k : {int64_t{0}, int64_t{523}, int64_t{524}, int64_t{599}}) {
      t.linear_bf16(x.data() + k * in, 1, in, wb.data(), 0, out, alone.data(), out);
      for (int64_t o = 0; o < out; ++o) ASSERT_EQ(batched[k * out + o], alone[o]) << t.name << " token " << k;
    }
  });
}

// A token's output row does not depend on which other tokens share the call (the serving engine
// batches different requests together; greedy outputs must equal their sequential results):
// every table gives bit-identical rows for a token alone and inside batches of 2..9, over rows
// that fall into every tile shape and leftover.
TEST(KernelParity, LinearIsBatchInvariant) {
  Rng rng(21);
  testing::ForEachKernelTable([&](const CpuKernelTable& t) {
    // Row lengths around the bf16 tiles' 32-element pairs (a last block of <= 16 and of > 16) and
    // past one 512-element slice of the batched tiles (chains carried between slices).
    for (int64_t in : {7, 57, 64, 67, 1100}) {
      const int64_t out = 37;
      auto wf = testing::RandomFloats(rng, out * in);
      std::vector<float> wb_f;
      auto wb = testing::RandomBf16(rng, out * in, &wb_f);
      for (int64_t n : {2, 3, 4, 5, 8, 9}) {
        auto x = testing::RandomFloats(rng, n * in);
        std::vector<float> batched(static_cast<size_t>(n * out)), alone(static_cast<size_t>(out));
        t.linear_f32(x.data(), n, in, wf.data(), 0, out, batched.data(), out);
        for (int64_t k = 0; k < n; ++k) {
          t.linear_f32(x.data() + k * in, 1, in, wf.data(), 0, out, alone.data(), out);
          for (int64_t o = 0; o < out; ++o) ASSERT_EQ(batched[k * out + o], alone[o]) << t.name << " f32 n=" << n;
        }
        t.linear_bf16(x.data(), n, in, wb.data(), 0, out, batched.data(), out);
        for (int64_t k = 0; k < n; ++k) {
          t.linear_bf16(x.data() + k * in, 1, in, wb.data(), 0, out, alone.data(), out);
          for (int64_t o = 0; o < out; ++o) ASSERT_EQ(batched[k * out + o], alone[o]) << t.name << " bf16 n=" << n;
        }
        // A sub-range of rows (how the thread pool splits the work) gives the same values.
        std::vector<float> part(static_cast<size_t>(n * out), -1.0f);
        t.linear_bf16(x.data(), n, in, wb.data(), 3, 17, part.data(), out);  // rows 3..16 only
        for (int64_t k = 0; k < n; ++k) {
          for (int64_t o = 0; o < out; ++o) {
            ASSERT_EQ(part[k * out + o], (o >= 3 && o < 17) ? batched[k * out + o] : -1.0f) << t.name << " range";
          }
        }
      }
    }
  });
}

}  // namespace
}  // namespace gemmad::kernels

namespace gemmad::kernels {
namespace {

// LinearMany (q/k/v, gate/up in one job) equals one Linear call per matrix bit for bit, for every
// table, with mixed dtypes (f32, bf16, Q8_R, Q4_0 with odd row counts) and pool sizes.
// Batches large enough for every level of the batched tiles' blocking: element slices with a
// partial last one (in = 1100), more rows than one L2 row block and more tokens than one token
// block, rows in tiles and leftovers. Parity with the reference, and bit-identical rows for a
// token alone and for a sub-range of rows.
TEST(KernelParity, LinearLargeBatchesAcrossSlicesAndBlocks) {
  Rng rng(23);
  const int64_t n = 200, in = 1100, out = 130;
  testing::ForEachKernelTable([&](const CpuKernelTable& t) {
    auto xm = testing::RandomFloats(rng, n * in);  // misaligned, like every input here
    const float* x = xm.data();
    auto wf = testing::RandomFloats(rng, out * in);
    std::vector<float> wb_f;
    auto wb = testing::RandomBf16(rng, out * in, &wb_f);
    std::vector<float> y(static_cast<size_t>(n * out)), want(y.size()), alone(static_cast<size_t>(out));
    const double tol = 1e-5 * std::sqrt(static_cast<double>(in));
    for (bool bf16 : {false, true}) {
      SCOPED_TRACE(bf16 ? "bf16" : "f32");
      auto run = [&](const float* xs, int64_t rows, int64_t b, int64_t e, float* dst) {
        if (bf16) {
          t.linear_bf16(xs, rows, in, wb.data(), b, e, dst, out);
        } else {
          t.linear_f32(xs, rows, in, wf.data(), b, e, dst, out);
        }
      };
      run(xm.data(), n, 0, out, y.data());
      reference::LinearF32(x, n, in, bf16 ? wb_f.data() : wf.data(), out, want.data());
      ExpectClose(y.data(), want.data(), n * out, tol, 1e-5, "large batch");
      for (int64_t k : {0, 3, 175, 176, 199}) {
        run(xm.data() + k * in, 1, 0, out, alone.data());
        for (int64_t o = 0; o < out; ++o) ASSERT_EQ(y[k * out + o], alone[o]) << "token " << k << " row " << o;
      }
      std::vector<float> part(y.size(), -1.0f);
      run(xm.data(), n, 5, 121, part.data());
      for (int64_t i = 0; i < n * out; ++i) {
        const int64_t o = i % out;
        ASSERT_EQ(part[i], (o >= 5 && o < 121) ? y[i] : -1.0f) << "element " << i;
      }
    }
  });
}

TEST(KernelParity, LinearManyEqualsSeparateLinears) {
  Rng rng(31);
  ThreadPool pool(2);
  const int64_t in = 96;
  const std::vector<int64_t> rows = {37, 8, 101, 5};
  const std::vector<DType> dtypes = {DType::kBF16, DType::kQ4_0, DType::kQ8R, DType::kF32};
  std::vector<std::vector<float>> wf(rows.size());
  std::vector<std::vector<uint8_t>> storage(rows.size());
  std::vector<tensor::TensorView> ws;
  for (size_t m = 0; m < rows.size(); ++m) {
    wf[m].resize(static_cast<size_t>(rows[m] * in));
    for (float& v : wf[m]) v = static_cast<float>(rng.Normal() * 0.05);
    const TensorView src = View(wf[m].data(), DType::kF32, {rows[m], in});
    if (dtypes[m] == DType::kF32) {
      ws.push_back(src);
      continue;
    }
    storage[m].resize(tensor::RowBytes(dtypes[m], in) * static_cast<size_t>(rows[m]));
    if (dtypes[m] == DType::kBF16) {
      auto* h = reinterpret_cast<uint16_t*>(storage[m].data());
      for (size_t i = 0; i < wf[m].size(); ++i) h[i] = tensor::FloatToBf16(wf[m][i]);
    } else {
      QuantizeWeights(ExecContext{}, src, View(storage[m].data(), dtypes[m], {rows[m], in}));
    }
    ws.push_back(View(storage[m].data(), dtypes[m], {rows[m], in}));
  }
  testing::ForEachKernelTable([&](const CpuKernelTable& t) {
    for (int64_t n : {1, 5}) {
      auto x = testing::RandomFloats(rng, n * in);
      const TensorView xv = View(x.data(), DType::kF32, {n, in});
      for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        std::vector<std::vector<float>> many(rows.size()), one(rows.size());
        std::vector<TensorView> ys;
        for (size_t m = 0; m < rows.size(); ++m) {
          many[m].assign(static_cast<size_t>(n * rows[m]), -1.0f);
          one[m].assign(static_cast<size_t>(n * rows[m]), -2.0f);
          ys.push_back(View(many[m].data(), DType::kF32, {n, rows[m]}));
          Linear(ExecContext{p}, xv, ws[m], View(one[m].data(), DType::kF32, {n, rows[m]}));
        }
        LinearMany(ExecContext{p}, xv, ws, ys);
        for (size_t m = 0; m < rows.size(); ++m) ASSERT_EQ(many[m], one[m]) << t.name << " matrix " << m << " n=" << n;
      }
    }
  });
}

}  // namespace
}  // namespace gemmad::kernels
