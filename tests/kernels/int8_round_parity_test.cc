// Parity of the static int8 activation rounding (registry.h QuantizeInt8Fn / FakeQuantInt8Fn, the
// FakeQuantInt8 op) with the scalar formula tensor::RoundClampInt8, bit for bit, on every CPU kernel
// table: ties at every half, the clamp's edges, zeros of both signs, subnormals, infinities and
// NaN, every length around the vector widths, misaligned buffers, in place.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/ops.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"
#include "tensor/int8_round.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::View;

uint32_t Bits(float v) {
  uint32_t b;
  std::memcpy(&b, &v, sizeof(b));
  return b;
}

// Values x with x / s on every kind of edge: exact halves (ties both ways), just past them, the
// clamp bounds and beyond, signed zeros, subnormals, infinities and NaN; then random ones.
std::vector<float> EdgeValues(Rng& rng, float s, int64_t n) {
  std::vector<float> v;
  for (float h = -130.5f; h <= 130.5f; h += 0.5f) v.push_back(h * s);
  for (float e : {-128.5f, -128.49f, -127.5f, 126.5f, 127.49f, 127.5f, 2.5f, -2.5f, 0.5f, -0.5f, 1e9f, -1e9f}) {
    v.push_back(e * s);
    v.push_back(std::nextafter(e * s, 0.0f));
  }
  for (float e : {0.0f, -0.0f, 1e-40f, -1e-40f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    v.push_back(e);
  }
  while (static_cast<int64_t>(v.size()) < n) v.push_back(static_cast<float>(rng.Normal() * 60.0 * s));
  v.resize(static_cast<size_t>(n));
  return v;
}

TEST(KernelParity, Int8RoundingEveryTableBitExact) {
  testing::ForEachKernelTable([](const CpuKernelTable& t) {
    Rng rng(5);
    for (float s : {1.0f, 0.0625f, 0.0173f, 3.7f}) {
      for (int64_t n : {0, 1, 7, 8, 9, 15, 16, 17, 31, 33, 640, 4099}) {
        const std::vector<float> v = EdgeValues(rng, s, n);
        testing::Misaligned<float> x(n), y(n), inplace(n);
        testing::Misaligned<int8_t> k(n);
        std::memcpy(x.data(), v.data(), v.size() * sizeof(float));
        std::memcpy(inplace.data(), v.data(), v.size() * sizeof(float));
        const int64_t sum = t.quantize_int8(x.data(), n, s, k.data());
        t.fake_quant_int8(x.data(), n, s, y.data());
        t.fake_quant_int8(inplace.data(), n, s, inplace.data());
        int64_t want_sum = 0;
        for (int64_t i = 0; i < n; ++i) {
          const float r = tensor::RoundClampInt8(v[static_cast<size_t>(i)] / s);
          const int8_t want_k = std::isnan(r) ? int8_t{0} : static_cast<int8_t>(r);
          want_sum += want_k;
          ASSERT_EQ(k[i], want_k) << t.name << " s=" << s << " n=" << n << " x=" << v[static_cast<size_t>(i)];
          ASSERT_EQ(Bits(y[i]), Bits(r * s))
              << t.name << " s=" << s << " n=" << n << " x=" << v[static_cast<size_t>(i)];
          ASSERT_EQ(Bits(inplace[i]), Bits(r * s)) << t.name << " in place, i=" << i;
        }
        EXPECT_EQ(sum, want_sum) << t.name << " s=" << s << " n=" << n;
      }
    }
  });
}

// The op, with and without a pool, against the formula (the pool splits rows past 64K elements).
TEST(KernelParity, FakeQuantInt8OpEveryTable) {
  ThreadPool pool(3);
  testing::ForEachKernelTable([&](const CpuKernelTable& t) {
    Rng rng(6);
    for (int64_t n : {5, 70000}) {
      const std::vector<float> v = EdgeValues(rng, 0.02f, n);
      for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        std::vector<float> x = v;
        FakeQuantInt8(ExecContext{p}, View(x.data(), DType::kF32, {n}), 0.02f);
        for (int64_t i = 0; i < n; ++i) {
          const float want = tensor::RoundClampInt8(v[static_cast<size_t>(i)] / 0.02f) * 0.02f;
          ASSERT_EQ(Bits(x[static_cast<size_t>(i)]), Bits(want)) << t.name << " n=" << n << " i=" << i;
        }
      }
    }
  });
}

}  // namespace
}  // namespace gemmad::kernels
