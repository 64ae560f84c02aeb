// Parity of the Linear kernels for the ggml block types GGUF files store (kGgmlQ8_0, kGgmlQ5_0,
// kGgmlQ4_K, kGgmlQ6_K; kernels/registry.h) with the scalar reference (exact dequantization,
// double accumulation), for every CPU kernel table, over odd sizes, batch sizes and misaligned
// buffers; and the ops that read them (Linear over several threads, EmbeddingGather).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/ops.h"
#include "kernels/reference/quant.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"
#include "tensor/half.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::OddBytes;
using testing::View;

constexpr DType kTypes[] = {DType::kGgmlQ8_0, DType::kGgmlQ5_0, DType::kGgmlQ4_K, DType::kGgmlQ6_K};

LinearQuantFn KernelFor(const CpuKernelTable& t, DType type) {
  switch (type) {
    case DType::kGgmlQ8_0: return t.linear_ggml_q8_0;
    case DType::kGgmlQ5_0: return t.linear_ggml_q5_0;
    case DType::kGgmlQ4_K: return t.linear_ggml_q4_k;
    default: return t.linear_ggml_q6_k;
  }
}

void PutF16(uint8_t* p, float v) {
  const uint16_t h = tensor::FloatToF16(v);
  std::memcpy(p, &h, 2);
}

// Random blocks: random payload bytes, finite f16 scales of both signs (one block per matrix with
// scale 0), so every bit of the packed values is exercised.
std::vector<uint8_t> RandomRows(Rng& rng, DType type, int64_t rows, int64_t in) {
  const size_t row_bytes = tensor::RowBytes(type, in);
  std::vector<uint8_t> w(row_bytes * static_cast<size_t>(rows));
  for (auto& b : w) b = static_cast<uint8_t>(rng.Next());
  const int64_t be = tensor::BlockElements(type);
  const size_t block_bytes = row_bytes / static_cast<size_t>(in / be);
  auto scale = [&](double mag) { return static_cast<float>((static_cast<double>(rng.Next() % 2001) / 1000.0 - 1.0) * mag); };
  for (size_t at = 0; at < w.size(); at += block_bytes) {
    uint8_t* blk = w.data() + at;
    switch (type) {
      case DType::kGgmlQ8_0: case DType::kGgmlQ5_0: PutF16(blk, scale(0.05)); break;
      case DType::kGgmlQ4_K: PutF16(blk, scale(0.01)); PutF16(blk + 2, scale(0.01)); break;
      default: PutF16(blk + 208, scale(0.001)); break;
    }
  }
  if (type == DType::kGgmlQ6_K) {
    PutF16(w.data() + 208, 0.0f);
  } else {
    PutF16(w.data(), 0.0f);
  }
  return w;
}

std::vector<double> Magnitudes(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, DType type,
                               int64_t out) {
  std::vector<double> m(static_cast<size_t>(n * out));
  for (int64_t o = 0; o < out; ++o) {
    const std::vector<double> row = reference::DequantizedRow(w, type, out, in, o);
    for (int64_t t = 0; t < n; ++t) {
      double s = 0.0;
      for (int64_t i = 0; i < in; ++i) s += std::fabs(d[t * (in / 32) + i / 32] * q[t * in + i] * row[i]);
      m[t * out + o] = s;
    }
  }
  return m;
}

TEST(GgmlLinearParity, EveryTableOddSizesMisaligned) {
  Rng rng(7);
  for (DType type : kTypes) {
    const bool k = tensor::BlockElements(type) == 256;
    for (int64_t in : k ? std::vector<int64_t>{256, 768} : std::vector<int64_t>{32, 96, 160, 256}) {
      for (int64_t out : {1, 2, 3, 17, 37}) {
        const auto w = OddBytes(RandomRows(rng, type, out, in));
        for (int64_t n : {1, 2, 3, 4, 5, 16}) {
          auto x = testing::RandomFloats(rng, n * in, 3.0);
          testing::Misaligned<int8_t> q(n * in);
          testing::Misaligned<float> d(n * in / 32);
          reference::QuantizeActs(x.data(), n, in, q.data(), d.data());
          std::vector<float> want(static_cast<size_t>(n * out)), got(want.size());
          reference::LinearQuant(q.data(), d.data(), n, in, w.data(), type, out, want.data());
          const auto mag = Magnitudes(q.data(), d.data(), n, in, w.data(), type, out);
          testing::ForEachKernelTable([&](const CpuKernelTable& t) {
            std::fill(got.begin(), got.end(), -1.0f);
            KernelFor(t, type)(q.data(), d.data(), n, in, w.data(), out, 0, out, got.data(), out);
            for (int64_t i = 0; i < n * out; ++i) {
              ASSERT_NEAR(got[i], want[i], 1e-5 * mag[i] + 1e-30) << t.name << " " << tensor::DTypeName(type)
                                                                   << " in=" << in << " out=" << out << " n=" << n
                                                                   << " i=" << i;
            }
            // A sub-range of rows writes only those rows.
            if (out >= 3) {
              std::vector<float> part(got.size(), -7.0f);
              KernelFor(t, type)(q.data(), d.data(), n, in, w.data(), out, 1, out - 1, part.data(), out);
              for (int64_t tt = 0; tt < n; ++tt) {
                ASSERT_EQ(part[tt * out], -7.0f);
                ASSERT_EQ(part[tt * out + out - 1], -7.0f);
                ASSERT_EQ(part[tt * out + 1], got[tt * out + 1]);
              }
            }
          });
        }
      }
    }
  }
}

// Q8_0 and Q5_0 (32-element blocks; the fast kernels' tiles take four rows and four tokens at a
// time): a token's outputs are bit-identical alone and in any batch, over any row range, and the
// extreme values (Q8_0 bytes -128 and 127, Q5_0 values -16 and 15, activations ±127) meet no
// int16 saturation.
TEST(GgmlLinearParity, Q8_0AndQ5_0BatchInvariantAndExtremes) {
  Rng rng(9);
  for (DType type : {DType::kGgmlQ8_0, DType::kGgmlQ5_0}) {
    const int64_t in = 160, out = 23;  // five blocks: two full chunks of two and a lone block
    auto w = RandomRows(rng, type, out, in);
    const size_t block_bytes = type == DType::kGgmlQ8_0 ? 34 : 22;
    // Rows 5 and 6: every value at one extreme (Q8_0 -128 / 127; Q5_0 -16 / 15).
    for (int64_t o : {5, 6}) {
      for (int64_t b = 0; b < in / 32; ++b) {
        uint8_t* blk = w.data() + tensor::RowBytes(type, in) * o + block_bytes * b;
        PutF16(blk, 0.03f);
        const bool low = o == 5;
        std::memset(blk + 2, type == DType::kGgmlQ8_0 ? (low ? 0x80 : 0x7F) : (low ? 0x00 : 0xFF),
                    block_bytes - 2);
      }
    }
    const auto wm = OddBytes(w);
    testing::ForEachKernelTable([&](const CpuKernelTable& t) {
      for (int64_t n : {2, 4, 5, 8, 9}) {
        auto x = testing::RandomFloats(rng, n * in, 1.0);
        for (int64_t i = 0; i < in; ++i) x[i] = i % 3 == 0 ? -1.0f : 1.0f;  // token 0: q = ±127 everywhere
        std::vector<int8_t> q(static_cast<size_t>(n * in));
        std::vector<float> d(static_cast<size_t>(n * in / 32));
        t.quantize_acts(x.data(), n, in, q.data(), d.data());
        std::vector<float> want(static_cast<size_t>(n * out)), batched(want.size()), alone(static_cast<size_t>(out));
        reference::LinearQuant(q.data(), d.data(), n, in, wm.data(), type, out, want.data());
        const auto mag = Magnitudes(q.data(), d.data(), n, in, wm.data(), type, out);
        KernelFor(t, type)(q.data(), d.data(), n, in, wm.data(), out, 0, out, batched.data(), out);
        for (int64_t i = 0; i < n * out; ++i) {
          ASSERT_NEAR(batched[i], want[i], 1e-5 * mag[i] + 1e-30) << t.name << " " << tensor::DTypeName(type) << " " << i;
        }
        for (int64_t k = 0; k < n; ++k) {
          KernelFor(t, type)(q.data() + k * in, d.data() + k * in / 32, 1, in, wm.data(), out, 0, out, alone.data(), out);
          for (int64_t o = 0; o < out; ++o) ASSERT_EQ(batched[k * out + o], alone[o]) << t.name << " n=" << n;
        }
        std::vector<float> part(static_cast<size_t>(n * out), -1.0f);
        KernelFor(t, type)(q.data(), d.data(), n, in, wm.data(), out, 3, 18, part.data(), out);
        for (int64_t k = 0; k < n; ++k) {
          for (int64_t o = 0; o < out; ++o) {
            ASSERT_EQ(part[k * out + o], (o >= 3 && o < 18) ? batched[k * out + o] : -1.0f) << t.name << " range";
          }
        }
      }
    });
  }
}

// The K types' fast kernels (linear_ggml_qk_*.cc) run tokens in passes of eight and, past one
// pass, rows in blocks of about 256 KB: n = 8, 9, 17 (full passes and remainders) over a matrix
// of several row blocks, a sub-range of rows cutting blocks, and every (token, row) equal bit for
// bit to the same token run alone (batch and range invariance).
TEST(GgmlLinearParity, KTypesPassesRowBlocksInvariance) {
  Rng rng(9);
  for (DType type : {DType::kGgmlQ4_K, DType::kGgmlQ6_K}) {
    const int64_t in = 2048, out = 300;  // 1152 / 1680 bytes a row: 2 or more row blocks
    const auto w = OddBytes(RandomRows(rng, type, out, in));
    for (int64_t n : {8, 9, 17}) {
      auto x = testing::RandomFloats(rng, n * in, 2.0);
      testing::Misaligned<int8_t> q(n * in);
      testing::Misaligned<float> d(n * in / 32);
      reference::QuantizeActs(x.data(), n, in, q.data(), d.data());
      std::vector<float> want(static_cast<size_t>(n * out)), got(want.size()), one(static_cast<size_t>(out));
      reference::LinearQuant(q.data(), d.data(), n, in, w.data(), type, out, want.data());
      const auto mag = Magnitudes(q.data(), d.data(), n, in, w.data(), type, out);
      testing::ForEachKernelTable([&](const CpuKernelTable& t) {
        const int64_t lo = 5, hi = out - 7;
        std::fill(got.begin(), got.end(), -3.0f);
        KernelFor(t, type)(q.data(), d.data(), n, in, w.data(), out, lo, hi, got.data(), out);
        for (int64_t tt = 0; tt < n; ++tt) {
          KernelFor(t, type)(q.data() + tt * in, d.data() + tt * (in / 32), 1, in, w.data(), out, 0, out, one.data(),
                             out);
          for (int64_t o = 0; o < out; ++o) {
            const int64_t i = tt * out + o;
            if (o < lo || o >= hi) {
              ASSERT_EQ(got[i], -3.0f) << t.name << " n=" << n << " i=" << i;
              continue;
            }
            ASSERT_NEAR(got[i], want[i], 1e-5 * mag[i] + 1e-30) << t.name << " " << tensor::DTypeName(type)
                                                                 << " n=" << n << " i=" << i;
            ASSERT_EQ(got[i], one[o]) << t.name << " " << tensor::DTypeName(type) << " n=" << n << " i=" << i;
          }
        }
      });
    }
  }
}

// The ops: Linear (one and two threads) against the reference backend's numbers, and the gather
// of a ggml-typed table against the exact dequantized rows.
TEST(GgmlLinearParity, LinearAndEmbeddingOps) {
  Rng rng(8);
  ThreadPool pool(2);
  for (DType type : kTypes) {
    const int64_t in = 256, out = 45, n = 3;
    const auto w = RandomRows(rng, type, out, in);
    auto x = testing::RandomFloats(rng, n * in, 1.0);
    testing::Misaligned<int8_t> q(n * in);
    testing::Misaligned<float> d(n * in / 32);
    reference::QuantizeActs(x.data(), n, in, q.data(), d.data());
    std::vector<float> want(static_cast<size_t>(n * out)), got(want.size());
    reference::LinearQuant(q.data(), d.data(), n, in, w.data(), type, out, want.data());
    const auto mag = Magnitudes(q.data(), d.data(), n, in, w.data(), type, out);
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      Linear(ExecContext{p}, View(x.data(), DType::kF32, {n, in}), View(w.data(), type, {out, in}),
             View(got.data(), DType::kF32, {n, out}));
      for (int64_t i = 0; i < n * out; ++i) ASSERT_NEAR(got[i], want[i], 1e-5 * mag[i] + 1e-30) << i;
    }
    const int32_t ids[3] = {44, 0, 7};
    std::vector<float> rows(3 * in);
    EmbeddingGather(ExecContext{}, View(w.data(), type, {out, in}), View(ids, DType::kI32, {3}), 2.0f,
                    View(rows.data(), DType::kF32, {3, in}));
    for (int t = 0; t < 3; ++t) {
      const auto ref = reference::DequantizedRow(w.data(), type, out, in, ids[t]);
      for (int64_t i = 0; i < in; ++i) ASSERT_EQ(rows[t * in + i], static_cast<float>(ref[i]) * 2.0f);
    }
  }
}

#if defined(__aarch64__)
// The NEON kernels take the portable kernels' exact integer sums and float expression: equal bit
// for bit, every type, odd sizes, several tokens (run under qemu-aarch64 on x86-64 hosts).
TEST(GgmlLinearParity, NeonEqualsPortableBitForBit) {
  Rng rng(9);
  using Fn = void (*)(const int8_t*, const float*, int64_t, int64_t, const uint8_t*, int64_t, int64_t, int64_t,
                      float*, int64_t);
  const struct {
    DType type;
    Fn neon, generic;
  } kPairs[] = {{DType::kGgmlQ8_0, &LinearGgmlQ8_0Neon, &LinearGgmlQ8_0Generic},
                {DType::kGgmlQ5_0, &LinearGgmlQ5_0Neon, &LinearGgmlQ5_0Generic},
                {DType::kGgmlQ4_K, &LinearGgmlQ4_KNeon, &LinearGgmlQ4_KGeneric},
                {DType::kGgmlQ6_K, &LinearGgmlQ6_KNeon, &LinearGgmlQ6_KGeneric}};
  for (const auto& p : kPairs) {
    const int64_t in = tensor::BlockElements(p.type) == 256 ? 768 : 160, out = 19, n = 5;
    const auto w = OddBytes(RandomRows(rng, p.type, out, in));
    auto x = testing::RandomFloats(rng, n * in, 3.0);
    testing::Misaligned<int8_t> q(n * in);
    testing::Misaligned<float> d(n * in / 32);
    reference::QuantizeActs(x.data(), n, in, q.data(), d.data());
    std::vector<float> a(static_cast<size_t>(n * out)), b(a.size());
    p.neon(q.data(), d.data(), n, in, w.data(), out, 0, out, a.data(), out);
    p.generic(q.data(), d.data(), n, in, w.data(), out, 0, out, b.data(), out);
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(std::memcmp(&a[i], &b[i], 4), 0)
          << tensor::DTypeName(p.type) << " i=" << i << " " << a[i] << " " << b[i];
    }
  }
}
#endif

}  // namespace
}  // namespace gemmad::kernels
