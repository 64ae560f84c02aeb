// Parity of the FP8 Linear (kF8R weights, tensor/quant_blocks.h) with its scalar reference, for
// every CPU kernel table: odd row lengths (masked and scalar tails), misaligned buffers, subnormal
// and extreme codes, batch and row-range invariance, and the Linear op end to end (per-token E4M3
// activations included) on the CPU and the reference backend.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/ops.h"
#include "kernels/reference/quant.h"
#include "kernels/stream_params.h"
#include "parity_util.h"
#include "tensor/fp8.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;

// A kF8R matrix with random non-NaN codes (every 7th row all subnormal or ±448) and row scales,
// one byte past an aligned allocation.
testing::Misaligned<uint8_t> RandomF8R(Rng& rng, int64_t out, int64_t in) {
  const size_t stride = tensor::RowBytes(DType::kF8R, in);
  testing::Misaligned<uint8_t> w(static_cast<int64_t>(stride) * out);
  for (int64_t o = 0; o < out; ++o) {
    uint8_t* row = w.data() + static_cast<size_t>(o) * stride;
    const float d = 1e-3f * static_cast<float>(1 + rng.Next() % 100);
    std::memcpy(row, &d, 4);
    for (int64_t i = 0; i < in; ++i) {
      uint8_t c = static_cast<uint8_t>(rng.Next());
      if (o % 7 == 3) c = static_cast<uint8_t>((c & 0x87));  // exponent 0: subnormals
      if (o % 7 == 5) c = static_cast<uint8_t>((c & 0x80) | 0x7E);  // ±448
      if ((c & 0x7F) == 0x7F) c ^= 1;  // no NaN codes
      row[4 + i] = c;
    }
  }
  return w;
}

// Every table's FP8 Linear, and the avx512 table's fp32-widening kernel too where that table runs
// the BF16 one (CPUs with AVX512_BF16 and VBMI), so both AVX-512 kernels are checked here.
template <typename F>
void ForEachF8Kernel(F body) {
  bool avx512_plain_seen = false;
  testing::ForEachKernelTable([&](const CpuKernelTable& t) {
    body(std::string(t.name), t.linear_f8r);
#if defined(__x86_64__)  // the AVX-512 kernels exist only in x86-64 builds
    if (t.linear_f8r == &LinearF8RAvx512) avx512_plain_seen = true;
    if (t.linear_f8r == &LinearF8RAvx512Bf16 && !avx512_plain_seen) {
      avx512_plain_seen = true;
      body(std::string(t.name) + " (fp32 widening)", &LinearF8RAvx512);
    }
#endif
  });
  (void)avx512_plain_seen;
}

TEST(Fp8Parity, QuantizeActsMatchesTheDefinition) {
  Rng rng(11);
  for (int64_t n : {1, 3}) {
    for (int64_t in : {1, 17, 64}) {
      auto x = testing::RandomFloats(rng, n * in, 3.0);
      std::vector<float> xq(static_cast<size_t>(n * in)), s(static_cast<size_t>(n));
      QuantizeActsF8(x.data(), n, in, xq.data(), s.data());
      for (int64_t t = 0; t < n; ++t) {
        float amax = 0.0f;
        for (int64_t i = 0; i < in; ++i) amax = std::fmax(amax, std::fabs(x[t * in + i]));
        ASSERT_EQ(s[t], std::fmax(amax / 448.0f, 1.0f / (448.0f * 512.0f)));
        for (int64_t i = 0; i < in; ++i) {
          ASSERT_EQ(xq[t * in + i], tensor::RoundToE4M3(x[t * in + i] / s[t]));
          ASSERT_LE(std::fabs(xq[t * in + i]), 448.0f);
        }
      }
    }
  }
  std::vector<float> zeros(8, 0.0f), xq(8), s(1);
  QuantizeActsF8(zeros.data(), 1, 8, xq.data(), s.data());  // an all-zero token: the floor, zeros
  EXPECT_EQ(s[0], 1.0f / (448.0f * 512.0f));
  for (float v : xq) EXPECT_EQ(v, 0.0f);
}

TEST(Fp8Parity, LinearOddSizesMisaligned) {
  Rng rng(12);
  for (int64_t in : {1, 7, 8, 15, 16, 17, 33, 63, 64, 65, 100, 256}) {
    for (int64_t out : {1, 3, 8, 17}) {
      const auto w = RandomF8R(rng, out, in);
      for (int64_t n : {1, 2, 3, 4, 5, 9, 13}) {
        auto x = testing::RandomFloats(rng, n * in, 2.0);
        std::vector<float> want(static_cast<size_t>(n * out)), got(want.size());
        reference::LinearF8R(x.data(), n, in, w.data(), out, want.data());
        testing::Misaligned<float> xq(n * in);
        std::vector<float> s(static_cast<size_t>(n));
        QuantizeActsF8(x.data(), n, in, xq.data(), s.data());
        // The magnitude each output sums (for the fp32-order tolerance).
        std::vector<double> mag(want.size(), 0.0);
        for (int64_t t = 0; t < n; ++t) {
          for (int64_t o = 0; o < out; ++o) {
            for (int64_t i = 0; i < in; ++i) {
              mag[t * out + o] += std::fabs(xq[t * in + i] * reference::Dequantized(w.data(), DType::kF8R, out, in, o, i));
            }
            mag[t * out + o] *= s[t];
          }
        }
        ForEachF8Kernel([&](const std::string& name, LinearF8Fn f8) {
          f8(xq.data(), s.data(), n, in, w.data(), 0, out, got.data(), out);
          for (int64_t i = 0; i < n * out; ++i) {
            ASSERT_NEAR(got[i], want[i], 2e-6 * mag[i] + 1e-30) << name << " in=" << in << " out=" << out << " n=" << n;
          }
        });
      }
    }
  }
}

// Every code widens exactly, in each of a kernel's paths (16, 8 and scalar-tail positions, a lone
// token and a batch): with x one-hot at element i, row o's output is its code's value times d · s,
// the bits of E4M3ToFloat(code) · d · s (every code but the two NaNs, which checkpoints do not hold).
TEST(Fp8Parity, EveryCodeWidensExactly) {
  const int64_t in = 27, out = 256;  // elements 0-15 a 16-code step, 16-23 an 8-code one, 24-26 the tail
  const size_t stride = tensor::RowBytes(DType::kF8R, in);
  std::vector<uint8_t> w(stride * out);
  for (int64_t o = 0; o < out; ++o) {
    const float d = 1.0f + static_cast<float>(o % 5) * 0.25f;
    std::memcpy(w.data() + o * stride, &d, 4);
    for (int64_t i = 0; i < in; ++i) w[o * stride + 4 + i] = static_cast<uint8_t>(o);
  }
  for (int64_t n : {1, 2}) {
    for (int64_t i : {0, 5, 15, 16, 23, 24, 26}) {
      std::vector<float> xq(static_cast<size_t>(n * in), 0.0f), s(static_cast<size_t>(n), 0.5f);
      for (int64_t t = 0; t < n; ++t) xq[t * in + i] = 1.0f;
      ForEachF8Kernel([&](const std::string& name, LinearF8Fn f8) {
        std::vector<float> y(static_cast<size_t>(n * out));
        f8(xq.data(), s.data(), n, in, w.data(), 0, out, y.data(), out);
        for (int64_t o = 0; o < out; ++o) {
          if ((o & 0x7F) == 0x7F) continue;
          float d;
          std::memcpy(&d, w.data() + o * stride, 4);
          const float v = tensor::E4M3ToFloat(static_cast<uint8_t>(o));
          for (int64_t t = 0; t < n; ++t) {
            ASSERT_EQ(y[t * out + o], v * d * s[t]) << name << " code " << o << " at " << i << " n=" << n;
          }
        }
      });
    }
  }
}

// Long rows on a table with eight long-row streams (AMD Zen's row): a lone token reads eight rows
// side by side (LongRowStreams in linear_fp8_avx512bf16.cc), and every (token, row) result is the
// same bits as with four streams and as token 0 of a batch.
TEST(Fp8Parity, LongRowsOnEightStreamsGiveTheSameBits) {
  Rng rng(14);
  const int64_t in = 6144 + 37, out = 8 * 3 + 5;
  const auto w = RandomF8R(rng, out, in);
  const int64_t n = 5;
  auto x = testing::RandomFloats(rng, n * in, 2.0);
  std::vector<float> xq(static_cast<size_t>(n * in)), s(static_cast<size_t>(n));
  QuantizeActsF8(x.data(), n, in, xq.data(), s.data());
  std::vector<float> want(static_cast<size_t>(n * out));
  reference::LinearF8R(x.data(), n, in, w.data(), out, want.data());
  const StreamParams saved = ActiveStreamParams();
  ForEachF8Kernel([&](const std::string& name, LinearF8Fn f8) {
    std::vector<float> four(static_cast<size_t>(out)), eight(four.size()), batch(static_cast<size_t>(n * out));
    StreamParams p = saved;
    p.long_row_bytes = 8192;
    p.long_row_streams = 4;
    SetStreamParams(p);
    f8(xq.data(), s.data(), 1, in, w.data(), 0, out, four.data(), out);
    p.long_row_streams = 8;
    SetStreamParams(p);
    f8(xq.data(), s.data(), 1, in, w.data(), 0, out, eight.data(), out);
    f8(xq.data(), s.data(), n, in, w.data(), 0, out, batch.data(), out);
    SetStreamParams(saved);
    for (int64_t o = 0; o < out; ++o) {
      ASSERT_EQ(std::memcmp(&four[o], &eight[o], sizeof(float)), 0) << name << " row " << o;
      ASSERT_EQ(std::memcmp(&eight[o], &batch[o], sizeof(float)), 0) << name << " row " << o;
      ASSERT_NEAR(eight[o], want[o], 1e-3 * (std::fabs(want[o]) + 1.0)) << name << " row " << o;
    }
  });
}

TEST(Fp8Parity, LinearIsBatchAndRangeInvariant) {
  Rng rng(13);
  const int64_t in = 100, out = 21;
  const auto w = RandomF8R(rng, out, in);
  ForEachF8Kernel([&](const std::string& name, LinearF8Fn f8) {
    for (int64_t n : {2, 4, 5, 8, 9, 13, 17, 70}) {
      auto x = testing::RandomFloats(rng, n * in, 2.0);
      std::vector<float> xq(static_cast<size_t>(n * in)), s(static_cast<size_t>(n));
      QuantizeActsF8(x.data(), n, in, xq.data(), s.data());
      std::vector<float> batched(static_cast<size_t>(n * out)), alone(static_cast<size_t>(out));
      f8(xq.data(), s.data(), n, in, w.data(), 0, out, batched.data(), out);
      for (int64_t k = 0; k < n; ++k) {
        f8(xq.data() + k * in, s.data() + k, 1, in, w.data(), 0, out, alone.data(), out);
        for (int64_t o = 0; o < out; ++o) ASSERT_EQ(batched[k * out + o], alone[o]) << name << " n=" << n;
      }
      std::vector<float> part(static_cast<size_t>(n * out), -1.0f);
      f8(xq.data(), s.data(), n, in, w.data(), 3, 17, part.data(), out);
      for (int64_t k = 0; k < n; ++k) {
        for (int64_t o = 0; o < out; ++o) {
          ASSERT_EQ(part[k * out + o], (o >= 3 && o < 17) ? batched[k * out + o] : -1.0f) << name;
        }
      }
    }
  });
}

TEST(Fp8Parity, LinearOpOnBothBackends) {
  Rng rng(14);
  const int64_t n = 5, in = 72, out = 19;
  auto w = RandomF8R(rng, out, in);
  auto x = testing::RandomFloats(rng, n * in, 2.0);
  std::vector<float> want(static_cast<size_t>(n * out)), got(want.size()), ref(want.size());
  reference::LinearF8R(x.data(), n, in, w.data(), out, want.data());
  tensor::TensorView xv{x.data(), DType::kF32, tensor::Shape{n, in}};
  tensor::TensorView wv{w.data(), DType::kF8R, tensor::Shape{out, in}};
  tensor::TensorView yv{got.data(), DType::kF32, tensor::Shape{n, out}};
  Linear({}, xv, wv, yv);
  tensor::TensorView rv{ref.data(), DType::kF32, tensor::Shape{n, out}};
  Linear({nullptr, FindBackend("reference")}, xv, wv, rv);
  for (int64_t i = 0; i < n * out; ++i) {
    EXPECT_NEAR(got[i], want[i], 1e-4 * (std::fabs(want[i]) + 1.0)) << i;
    EXPECT_EQ(ref[i], want[i]) << i;
  }
}

}  // namespace
}  // namespace gemmad::kernels
