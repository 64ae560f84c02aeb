// Parity of the kI8BR Linear (int8 rows whose weights are bf16(q · s), tensor/i8b_rows.h) with a
// double-precision sum over the rows' own elements, for every CPU kernel table: row lengths that
// are and are not multiples of the vector widths, misaligned buffers, batch and row-range
// invariance, the element rounding against tensor::RoundToBf16 (ties included), the Linear and
// LinearStaticInt8 ops on the CPU and reference backends, and DequantizeRow.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/backend.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/ops.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"
#include "tensor/half.h"
#include "tensor/i8b_rows.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;

// A kI8BR matrix: random int8 weights (every 4th row all of -128 and 127), a bf16 row scale each
// (row 5 of every 6 a scale whose products tie: 1 + 2^-8 times a power of two); one byte past an
// aligned allocation.
testing::Misaligned<uint8_t> RandomI8B(Rng& rng, int64_t out, int64_t in) {
  const size_t stride = tensor::RowBytes(DType::kI8BR, in);
  testing::Misaligned<uint8_t> w(static_cast<int64_t>(stride) * out);
  std::vector<int8_t> q(static_cast<size_t>(in));
  for (int64_t o = 0; o < out; ++o) {
    for (auto& v : q) {
      v = static_cast<int8_t>(o % 4 == 3 ? (rng.Next() % 2 ? 127 : -128) : static_cast<int>(rng.Next() % 256) - 128);
    }
    const auto s = static_cast<float>(static_cast<double>(rng.Next() % 20001 + 1) / 1e6);
    const float scale = o % 6 == 5 ? (1.0f + 1.0f / 256.0f) / 1024.0f : tensor::RoundToBf16(s);
    tensor::WriteI8BRow(scale, q.data(), in, w.data() + static_cast<size_t>(o) * stride);
  }
  return w;
}

double Element(const uint8_t* w, int64_t in, int64_t o, int64_t i) {
  return tensor::I8BRowElement(w + static_cast<size_t>(o) * tensor::RowBytes(DType::kI8BR, in), i);
}

TEST(I8BRows, ElementsAreBf16OfTheProducts) {
  const float s = (1.0f + 1.0f / 256.0f) / 1024.0f;  // q · s has bits below bf16's: q = 3 ties
  std::vector<uint8_t> row(tensor::RowBytes(DType::kI8BR, 256));
  std::vector<int8_t> q(256);
  for (int i = 0; i < 256; ++i) q[static_cast<size_t>(i)] = static_cast<int8_t>(i - 128);
  tensor::WriteI8BRow(s, q.data(), 256, row.data());
  for (int i = 0; i < 256; ++i) {
    const float want = tensor::Bf16ToFloat(tensor::FloatToBf16(static_cast<float>(i - 128) * s));
    ASSERT_EQ(tensor::I8BRowElement(row.data(), i), want) << i;
  }
  EXPECT_EQ(tensor::RowBytes(DType::kI8BR, 1536), 4u + 1536u);
  EXPECT_EQ(tensor::BlockElements(DType::kI8BR), 1);
  EXPECT_EQ(tensor::DTypeName(DType::kI8BR), "I8B_R");
}

TEST(I8BParity, LinearSizesMisaligned) {
  Rng rng(2);
  for (int64_t in : {1, 7, 16, 23, 64, 100, 256, 1536}) {
    for (int64_t out : {1, 3, 8, 17}) {
      const auto w = RandomI8B(rng, out, in);
      for (int64_t n : {1, 2, 3, 4, 5, 9}) {
        auto x = testing::RandomFloats(rng, n * in, 2.0);
        std::vector<double> want(static_cast<size_t>(n * out)), mag(want.size());
        for (int64_t t = 0; t < n; ++t) {
          for (int64_t o = 0; o < out; ++o) {
            for (int64_t i = 0; i < in; ++i) {
              const double p = static_cast<double>(x[t * in + i]) * Element(w.data(), in, o, i);
              want[static_cast<size_t>(t * out + o)] += p;
              mag[static_cast<size_t>(t * out + o)] += std::fabs(p);
            }
          }
        }
        testing::ForEachKernelTable([&](const CpuKernelTable& table) {
          std::vector<float> got(want.size());
          table.linear_i8br(x.data(), n, in, w.data(), 0, out, got.data(), out);
          for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_NEAR(got[i], want[i], 2e-6 * mag[i] + 1e-30)
                << table.name << " in=" << in << " out=" << out << " n=" << n;
          }
        });
      }
    }
  }
}

TEST(I8BParity, LinearIsBatchAndRangeInvariant) {
  Rng rng(3);
  for (int64_t in : {96, 100}) {
    const int64_t out = 21;
    const auto w = RandomI8B(rng, out, in);
    testing::ForEachKernelTable([&](const CpuKernelTable& table) {
      for (int64_t n : {2, 4, 5, 8, 9, 13, 70}) {
        auto x = testing::RandomFloats(rng, n * in, 2.0);
        std::vector<float> batched(static_cast<size_t>(n * out)), alone(static_cast<size_t>(out));
        table.linear_i8br(x.data(), n, in, w.data(), 0, out, batched.data(), out);
        for (int64_t k = 0; k < n; ++k) {
          table.linear_i8br(x.data() + k * in, 1, in, w.data(), 0, out, alone.data(), out);
          for (int64_t o = 0; o < out; ++o) ASSERT_EQ(batched[k * out + o], alone[o]) << table.name << " n=" << n;
        }
        std::vector<float> part(static_cast<size_t>(n * out), -1.0f);
        table.linear_i8br(x.data(), n, in, w.data(), 3, 17, part.data(), out);
        for (int64_t k = 0; k < n; ++k) {
          for (int64_t o = 0; o < out; ++o) {
            ASSERT_EQ(part[k * out + o], (o >= 3 && o < 17) ? batched[k * out + o] : -1.0f) << table.name;
          }
        }
      }
    });
  }
}

// Linear (CPU and reference backends, two threads), LinearStaticInt8 (its Linear-on-k·s path for
// these rows) and DequantizeRow.
TEST(I8BParity, LinearOpsOnBothBackends) {
  Rng rng(4);
  const int64_t n = 5, in = 1536, out = 37;
  auto w = RandomI8B(rng, out, in);
  auto x = testing::RandomFloats(rng, n * in, 2.0);
  tensor::TensorView xv{x.data(), DType::kF32, tensor::Shape{n, in}};
  tensor::TensorView wv{w.data(), DType::kI8BR, tensor::Shape{out, in}};
  for (int64_t o = 0; o < out; ++o) {
    std::vector<float> row(static_cast<size_t>(in));
    cpu::DequantizeRow(wv, o, row.data());
    for (int64_t i = 0; i < in; ++i) ASSERT_EQ(row[static_cast<size_t>(i)], Element(w.data(), in, o, i));
  }
  ThreadPool pool(2);
  std::vector<float> got(static_cast<size_t>(n * out)), ref(got.size()), st(got.size()), st_ref(got.size());
  Linear({&pool}, xv, wv, tensor::TensorView{got.data(), DType::kF32, tensor::Shape{n, out}});
  Linear({nullptr, FindBackend("reference")}, xv, wv,
         tensor::TensorView{ref.data(), DType::kF32, tensor::Shape{n, out}});
  const float s = 0.0125f;
  LinearStaticInt8({&pool}, xv, s, wv, tensor::TensorView{st.data(), DType::kF32, tensor::Shape{n, out}});
  LinearStaticInt8({nullptr, FindBackend("reference")}, xv, s, wv,
                   tensor::TensorView{st_ref.data(), DType::kF32, tensor::Shape{n, out}});
  for (int64_t i = 0; i < n * out; ++i) {
    double want = 0.0, want_q = 0.0, mag = 0.0, mag_q = 0.0;
    for (int64_t k = 0; k < in; ++k) {
      const double e = Element(w.data(), in, i % out, k), xi = x[(i / out) * in + k];
      const float kq = std::clamp(std::nearbyint(static_cast<float>(xi) / s), -128.0f, 127.0f);
      const double xq = static_cast<double>(kq) * s;
      want += xi * e;
      mag += std::fabs(xi * e);
      want_q += xq * e;
      mag_q += std::fabs(xq * e);
    }
    ASSERT_NEAR(got[i], want, 2e-6 * mag) << i;
    ASSERT_NEAR(ref[i], want, 2e-6 * mag) << i;
    ASSERT_NEAR(st[i], want_q, 2e-6 * mag_q) << i;
    ASSERT_NEAR(st_ref[i], want_q, 2e-6 * mag_q) << i;
  }
}

}  // namespace
}  // namespace gemmad::kernels
