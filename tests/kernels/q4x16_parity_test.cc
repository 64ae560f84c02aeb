// kQ4_0x16 (tensor/quant_blocks.h: kQ4_0's blocks with rows in groups of 16): the regrouping and
// load-time quantization give kQ4_0's values byte for byte; the tables' x16 Linear against the
// double-precision reference over odd shapes, misaligned buffers, every tile size and ranges that
// start and end inside a group; batch and range invariance; a lone token's groups read side by side;
// the public Linear op with a pool.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "kernels/backend.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/ops.h"
#include "kernels/reference/quant.h"
#include "kernels/stream_params.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"
#include "tensor/q4_groups.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::OddBytes;
using testing::View;

// Tables with an x16 kernel (AVX-512 VNNI, AVX2); the test passes vacuously elsewhere but for the
// regrouping checks, which need no kernel.
template <class F>
void ForEachX16Table(F body) {
  testing::ForEachKernelTable([&](const CpuKernelTable& t) {
    if (t.linear_q4_0x16 != nullptr) body(t);
  });
}

TEST(Q4x16Parity, RegroupingAndQuantizationKeepEveryValue) {
  Rng rng(21);
  ThreadPool pool(2);
  for (int64_t in : {32, 96, 1536}) {
    for (int64_t rows : {16, 48}) {
      std::vector<float> wf;
      auto wb = testing::RandomBf16(rng, rows * in, &wf, 0.05);
      const int64_t zero_row = 17 % rows;  // a zero row (scale 0), in both sources
      for (int64_t i = 0; i < in; ++i) wf[zero_row * in + i] = 0.0f, wb[zero_row * in + i] = 0;
      const std::vector<uint8_t> pairs = reference::QuantizeRows(wf.data(), rows, in, DType::kQ4_0);
      std::vector<uint8_t> grouped(pairs.size());
      tensor::GroupQ4_0Rows(pairs.data(), rows, in, grouped.data());
      ASSERT_EQ(reference::QuantizeRows(wf.data(), rows, in, DType::kQ4_0x16), grouped);
      const TensorView f32 = View(wf.data(), DType::kF32, {rows, in}), bf16 = View(wb.data(), DType::kBF16, {rows, in});
      for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
        std::vector<uint8_t> got(pairs.size());
        QuantizeWeights(ExecContext{p}, f32, View(got.data(), DType::kQ4_0x16, {rows, in}));
        ASSERT_EQ(got, grouped) << "f32 in=" << in << " rows=" << rows;
        std::fill(got.begin(), got.end(), 0);
        QuantizeWeights(ExecContext{p}, bf16, View(got.data(), DType::kQ4_0x16, {rows, in}));
        ASSERT_EQ(got, grouped) << "bf16 in=" << in << " rows=" << rows;
      }
      std::vector<float> a(static_cast<size_t>(in)), b(a.size());
      for (int64_t r = 0; r < rows; ++r) {
        cpu::DequantizeRow(View(pairs.data(), DType::kQ4_0, {rows, in}), r, a.data());
        cpu::DequantizeRow(View(grouped.data(), DType::kQ4_0x16, {rows, in}), r, b.data());
        ASSERT_EQ(a, b) << "row " << r;
        for (int64_t i = 0; i < in; ++i) {
          ASSERT_EQ(reference::Dequantized(grouped.data(), DType::kQ4_0x16, rows, in, r, i),
                    reference::Dequantized(pairs.data(), DType::kQ4_0, rows, in, r, i)) << r << " " << i;
        }
      }
    }
  }
}

TEST(Q4x16Parity, LinearMatchesTheReference) {
  Rng rng(22);
  for (int64_t in : {32, 96, 224}) {
    for (int64_t out : {16, 32, 48, 272}) {
      auto wf = testing::RandomFloats(rng, out * in, 0.05);
      const auto w = OddBytes(reference::QuantizeRows(wf.data(), out, in, DType::kQ4_0x16));
      for (int64_t n : {1, 2, 3, 4, 5, 7, 8, 9, 16, 17}) {
        auto x = testing::RandomFloats(rng, n * in, 3.0);
        for (int64_t j = 0; j < 32; ++j) x[j] = 0.0f;  // a zero block (d = 0)
        x[std::min<int64_t>(40, n * in - 1)] = 1e4f;  // an outlier
        testing::Misaligned<int8_t> q(n * in);
        testing::Misaligned<float> d(n * in / 32);
        reference::QuantizeActs(x.data(), n, in, q.data(), d.data());
        std::vector<float> want(static_cast<size_t>(n * out)), got(want.size());
        reference::LinearQuant(q.data(), d.data(), n, in, w.data(), DType::kQ4_0x16, out, want.data());
        std::vector<double> mag(want.size());
        for (int64_t t = 0; t < n; ++t) {
          for (int64_t o = 0; o < out; ++o) {
            for (int64_t i = 0; i < in; ++i) {
              mag[t * out + o] += std::fabs(d[t * (in / 32) + i / 32] * q[t * in + i] *
                                            reference::Dequantized(w.data(), DType::kQ4_0x16, out, in, o, i));
            }
          }
        }
        ForEachX16Table([&](const CpuKernelTable& t) {
          t.linear_q4_0x16(q.data(), d.data(), n, in, w.data(), out, 0, out, got.data(), out);
          for (int64_t i = 0; i < n * out; ++i) {
            ASSERT_NEAR(got[i], want[i], 1e-5 * mag[i] + 1e-30)
                << "in=" << in << " out=" << out << " n=" << n << " i=" << i;
          }
        });
      }
    }
  }
}

// Every (token, row) output is the same bits whatever the batch, the tile it lands in, the L2
// blocking of long batches and the range (ranges that start and end inside a group write only
// their rows).
TEST(Q4x16Parity, BatchAndRangeInvariant) {
  Rng rng(23);
  const int64_t in = 1536, out = 16 * 21;  // 21 groups of 13.5 KiB: long batches block them for L2
  auto wf = testing::RandomFloats(rng, out * in, 0.05);
  const auto w = OddBytes(reference::QuantizeRows(wf.data(), out, in, DType::kQ4_0x16));
  ForEachX16Table([&](const CpuKernelTable& t) {
    for (int64_t n : {2, 3, 5, 8, 9, 17, 33}) {
      auto x = testing::RandomFloats(rng, n * in, 3.0);
      std::vector<int8_t> q(static_cast<size_t>(n * in));
      std::vector<float> d(static_cast<size_t>(n * in / 32));
      t.quantize_acts(x.data(), n, in, q.data(), d.data());
      std::vector<float> batched(static_cast<size_t>(n * out)), alone(static_cast<size_t>(out));
      t.linear_q4_0x16(q.data(), d.data(), n, in, w.data(), out, 0, out, batched.data(), out);
      for (int64_t k = 0; k < n; ++k) {
        t.linear_q4_0x16(q.data() + k * in, d.data() + k * in / 32, 1, in, w.data(), out, 0, out, alone.data(), out);
        for (int64_t o = 0; o < out; ++o) ASSERT_EQ(batched[k * out + o], alone[o]) << "n=" << n << " token " << k;
      }
      std::vector<float> part(static_cast<size_t>(n * out), -1.0f);
      t.linear_q4_0x16(q.data(), d.data(), n, in, w.data(), out, 5, 203, part.data(), out);
      for (int64_t k = 0; k < n; ++k) {
        for (int64_t o = 0; o < out; ++o) {
          ASSERT_EQ(part[k * out + o], (o >= 5 && o < 203) ? batched[k * out + o] : -1.0f) << "n=" << n << " o=" << o;
        }
      }
    }
  });
}

// The x16 kernels of every table (AVX-512 VNNI, AVX2) take the same steps per (token, row): exact
// integer block sums, then one convert, the scale product and one FMA per block in order. So they
// give the same bits, for every tile size and a range inside the groups.
TEST(Q4x16Parity, EveryTableGivesTheSameBits) {
  Rng rng(27);
  const int64_t in = 1536, out = 16 * 5;
  auto wf = testing::RandomFloats(rng, out * in, 0.05);
  const auto w = OddBytes(reference::QuantizeRows(wf.data(), out, in, DType::kQ4_0x16));
  for (int64_t n : {1, 2, 3, 4, 5, 8, 9}) {
    auto x = testing::RandomFloats(rng, n * in, 3.0);
    std::vector<int8_t> q(static_cast<size_t>(n * in));
    std::vector<float> d(static_cast<size_t>(n * in / 32));
    reference::QuantizeActs(x.data(), n, in, q.data(), d.data());
    std::vector<float> first;
    int tables = 0;
    ForEachX16Table([&](const CpuKernelTable& t) {
      std::vector<float> got(static_cast<size_t>(n * out), -1.0f);
      t.linear_q4_0x16(q.data(), d.data(), n, in, w.data(), out, 3, out - 5, got.data(), out);
      if (tables++ == 0) {
        first = got;
      } else {
        ASSERT_EQ(got, first) << "n=" << n;
      }
    });
  }
}

// A lone token's tile reads 1, 2 or 4 groups side by side (StreamParams q4x16_lone_groups): the same
// bits every way, for group counts with and without a remainder and ranges that start and end inside
// a group, and within the reference's tolerance.
TEST(Q4x16Parity, LoneTokenGroupsSideBySideGiveTheSameBits) {
  Rng rng(28);
  const StreamParams saved = ActiveStreamParams();
  const int64_t in = 1536;
  for (int64_t groups : {1, 2, 3, 4, 5, 7, 9, 21}) {
    const int64_t out = 16 * groups;
    auto wf = testing::RandomFloats(rng, out * in, 0.05);
    const auto w = OddBytes(reference::QuantizeRows(wf.data(), out, in, DType::kQ4_0x16));
    auto x = testing::RandomFloats(rng, in, 3.0);
    testing::Misaligned<int8_t> q(in);
    testing::Misaligned<float> d(in / 32);
    reference::QuantizeActs(x.data(), 1, in, q.data(), d.data());
    std::vector<float> want(static_cast<size_t>(out));
    reference::LinearQuant(q.data(), d.data(), 1, in, w.data(), DType::kQ4_0x16, out, want.data());
    ForEachX16Table([&](const CpuKernelTable& t) {
      std::vector<float> first;
      for (int64_t side : {1, 2, 4}) {
        StreamParams p = saved;
        p.q4x16_lone_groups = side;
        SetStreamParams(p);
        std::vector<float> got(static_cast<size_t>(out), -1.0f);
        t.linear_q4_0x16(q.data(), d.data(), 1, in, w.data(), out, 0, out, got.data(), out);
        for (int64_t o = 0; o < out; ++o) ASSERT_NEAR(got[o], want[o], 1e-3 * (std::fabs(want[o]) + 1)) << o;
        if (side == 1) first = got;
        ASSERT_EQ(got, first) << "groups=" << groups << " side=" << side;
        std::vector<float> part(static_cast<size_t>(out), -1.0f);
        const int64_t lo = 5, hi = out - 3;
        t.linear_q4_0x16(q.data(), d.data(), 1, in, w.data(), out, lo, hi, part.data(), out);
        for (int64_t o = 0; o < out; ++o) {
          ASSERT_EQ(part[o], (o >= lo && o < hi) ? first[o] : -1.0f) << "groups=" << groups << " side=" << side;
        }
      }
    });
  }
  SetStreamParams(saved);
}

// A batch whose token side passes the per-call bound (8 MiB: 1,024 tokens at in = 65,536) runs in
// passes of tokens; tokens on both sides of a pass boundary give the one-token results.
TEST(Q4x16Parity, LongBatchesRunInPasses) {
  Rng rng(26);
  const int64_t in = 32 * 2048, out = 16, n = 1030;
  auto wf = testing::RandomFloats(rng, out * in, 0.05);
  const auto w = reference::QuantizeRows(wf.data(), out, in, DType::kQ4_0x16);
  auto x = testing::RandomFloats(rng, n * in, 3.0);
  ForEachX16Table([&](const CpuKernelTable& t) {
    std::vector<int8_t> q(static_cast<size_t>(n * in));
    std::vector<float> d(static_cast<size_t>(n * in / 32));
    t.quantize_acts(x.data(), n, in, q.data(), d.data());
    std::vector<float> batched(static_cast<size_t>(n * out)), alone(static_cast<size_t>(out));
    t.linear_q4_0x16(q.data(), d.data(), n, in, w.data(), out, 0, out, batched.data(), out);
    for (int64_t k : {int64_t{0}, int64_t{1023}, int64_t{1024}, n - 1}) {
      t.linear_q4_0x16(q.data() + k * in, d.data() + k * in / 32, 1, in, w.data(), out, 0, out, alone.data(), out);
      for (int64_t o = 0; o < out; ++o) ASSERT_EQ(batched[k * out + o], alone[o]) << "token " << k;
    }
  });
}

// The public op, alone and beside a Q4_0 and a bf16 matrix in one LinearMany, with and without
// a pool: the same bits as the kernel called directly.
TEST(Q4x16Parity, LinearOpsWithAPool) {
  Rng rng(24);
  ThreadPool pool(2);
  const int64_t in = 96, n = 5;
  const int64_t rows[] = {48, 272, 34};
  const DType fmts[] = {DType::kQ4_0x16, DType::kQ4_0x16, DType::kQ4_0};
  std::vector<std::vector<uint8_t>> ws;
  for (int m = 0; m < 3; ++m) {
    auto wf = testing::RandomFloats(rng, rows[m] * in, 0.05);
    ws.push_back(reference::QuantizeRows(wf.data(), rows[m], in, fmts[m]));
  }
  auto x = testing::RandomFloats(rng, n * in, 3.0);
  ForEachX16Table([&](const CpuKernelTable& t) {
    std::vector<int8_t> q(static_cast<size_t>(n * in));
    std::vector<float> d(static_cast<size_t>(n * in / 32));
    t.quantize_acts(x.data(), n, in, q.data(), d.data());
    std::vector<std::vector<float>> want(3);
    for (int m = 0; m < 3; ++m) {
      want[m].resize(static_cast<size_t>(n * rows[m]));
      const LinearQuantFn fn = m < 2 ? t.linear_q4_0x16 : t.linear_q4_0;
      fn(q.data(), d.data(), n, in, ws[m].data(), rows[m], 0, rows[m], want[m].data(), rows[m]);
    }
    for (ThreadPool* p : {static_cast<ThreadPool*>(nullptr), &pool}) {
      std::vector<std::vector<float>> got(3);
      std::vector<TensorView> wv, yv;
      for (int m = 0; m < 3; ++m) {
        got[m].assign(static_cast<size_t>(n * rows[m]), 0.0f);
        wv.push_back(View(ws[m].data(), fmts[m], {rows[m], in}));
        yv.push_back(View(got[m].data(), DType::kF32, {n, rows[m]}));
      }
      LinearMany(ExecContext{p}, View(x.data(), DType::kF32, {n, in}), wv, yv);
      for (int m = 0; m < 3; ++m) ASSERT_EQ(got[m], want[m]) << "matrix " << m;
      std::vector<float> one(static_cast<size_t>(n * rows[1]));
      Linear(ExecContext{p}, View(x.data(), DType::kF32, {n, in}), wv[1], View(one.data(), DType::kF32, {n, rows[1]}));
      ASSERT_EQ(one, want[1]);
    }
  });
}

// A tied embedding regrouped with its LM head: the gather gives the pair layout's rows, bit for bit,
// on both backends.
TEST(Q4x16Parity, EmbeddingGatherReadsTheGroupedLayout) {
  Rng rng(25);
  const int64_t rows = 48, m = 96;
  auto wf = testing::RandomFloats(rng, rows * m, 0.05);
  const auto pairs = reference::QuantizeRows(wf.data(), rows, m, DType::kQ4_0);
  const auto grouped = reference::QuantizeRows(wf.data(), rows, m, DType::kQ4_0x16);
  std::vector<int32_t> ids = {47, 0, 17, 17, 31};
  const auto idv = View(ids.data(), DType::kI32, {5});
  for (const Backend* b : {&CpuBackend(), &ReferenceBackend()}) {
    std::vector<float> a(5 * m), g(5 * m);
    EmbeddingGather(ExecContext{nullptr, b}, View(pairs.data(), DType::kQ4_0, {rows, m}), idv, 1.5f,
                    View(a.data(), DType::kF32, {5, m}));
    EmbeddingGather(ExecContext{nullptr, b}, View(grouped.data(), DType::kQ4_0x16, {rows, m}), idv, 1.5f,
                    View(g.data(), DType::kF32, {5, m}));
    ASSERT_EQ(a, g) << b->name;
  }
}

}  // namespace
}  // namespace gemmad::kernels
