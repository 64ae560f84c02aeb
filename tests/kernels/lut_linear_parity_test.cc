// Parity of the table-row Linear (kLut4R / kLut2R weights, tensor/lut_rows.h) with a double-
// precision sum over the rows' own elements, for every CPU kernel table: row lengths of one to
// many code groups, misaligned buffers, batch and row-range invariance, the Linear op on the CPU
// and the reference backend, LinearMany mixing a table matrix with a bf16 one, and DequantizeRow.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include "base/check.h"
#include "kernels/backend.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/ops.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"
#include "tensor/half.h"
#include "tensor/lut_rows.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;

// A row's table as ct_source makes them: (u - 2^(bits-1)) · s rounded to bf16 (rows 0 mod 3), f16
// (1 mod 3) or kept in fp32 (2 mod 3, the scale as the unit), s random per row.
tensor::LutTable RandomTable(Rng& rng, int bits, int64_t o) {
  const float s = static_cast<float>(static_cast<double>(rng.Next() % 20001 + 1) / 1e6);
  float values[16];
  for (int k = 0; k < (1 << bits); ++k) {
    const float v = static_cast<float>(k - (1 << (bits - 1))) * s;
    values[k] = o % 3 == 0 ? tensor::Bf16ToFloat(tensor::FloatToBf16(v))
                : o % 3 == 1 ? tensor::F16ToFloat(tensor::FloatToF16(v))
                             : v;
    if (o % 5 == 2 && k != 1) values[k] = 0.0f;  // a row all zero but one value
  }
  tensor::LutTable table;
  GEMMAD_CHECK(tensor::LutTableOf(values, 1 << bits, s, &table), "RandomTable: row {}", o);
  return table;
}

// A table matrix (RandomTable rows, random codes), one byte past an aligned allocation.
testing::Misaligned<uint8_t> RandomLut(Rng& rng, int bits, int64_t out, int64_t in) {
  const DType t = tensor::LutDType(bits);
  const size_t stride = tensor::RowBytes(t, in);
  testing::Misaligned<uint8_t> w(static_cast<int64_t>(stride) * out);
  std::vector<uint8_t> u(static_cast<size_t>(in));
  for (int64_t o = 0; o < out; ++o) {
    const tensor::LutTable table = RandomTable(rng, bits, o);
    for (auto& c : u) c = static_cast<uint8_t>(rng.Next() % (1u << bits));
    tensor::WriteLutRow(table, bits, bits, u.data(), in, w.data() + static_cast<size_t>(o) * stride);
  }
  return w;
}

double Element(const uint8_t* w, int bits, int64_t in, int64_t o, int64_t i) {
  return tensor::LutRowElement(w + static_cast<size_t>(o) * tensor::LutRowBytes(bits, in), bits, i);
}

LinearLutFn KernelOf(const CpuKernelTable& t, int bits) { return bits == 2 ? t.linear_lut2r : t.linear_lut4r; }

TEST(LutRows, ElementsAreTheirCodesValues) {
  Rng rng(1);
  for (int bits : {2, 4}) {
    for (int value_bits : {2, 3, 4}) {
      if (value_bits > bits) continue;
      const int64_t in = 3 * tensor::LutGroupElements(bits);
      std::vector<uint8_t> u(static_cast<size_t>(in)), row(tensor::LutRowBytes(bits, in));
      float values[16];
      for (int k = 0; k < (1 << value_bits); ++k) values[k] = static_cast<float>(k) * 0.5f - 3.0f;
      tensor::LutTable table;
      ASSERT_TRUE(tensor::LutTableOf(values, 1 << value_bits, 0.0f, &table));
      EXPECT_EQ(table.unit, 0.5f);
      for (auto& c : u) c = static_cast<uint8_t>(rng.Next() % (1u << value_bits));
      tensor::WriteLutRow(table, value_bits, bits, u.data(), in, row.data());
      for (int64_t i = 0; i < in; ++i) {
        ASSERT_EQ(tensor::LutRowElement(row.data(), bits, i), values[u[static_cast<size_t>(i)]]) << bits << " " << i;
      }
    }
  }
  EXPECT_EQ(tensor::RowBytes(DType::kLut4R, 1536), 64u + 768u);
  EXPECT_EQ(tensor::RowBytes(DType::kLut2R, 1536), 64u + 384u);
  EXPECT_EQ(tensor::BlockElements(DType::kLut2R), 64);
  EXPECT_EQ(tensor::DTypeName(DType::kLut4R), "LUT4_R");
}

// LutTableOf: bf16 and f16 roundings of (q - z) · s take a power-of-two unit, fp32 products the
// scale; values neither represents (a ratio past 16 bits, not multiples of the hint), and non-finite
// ones, are refused; an all-zero table is n = 0.
TEST(LutRows, TablesAsIntegersTimesAUnit) {
  Rng rng(9);
  tensor::LutTable t;
  for (int trial = 0; trial < 2000; ++trial) {
    const float s = static_cast<float>(static_cast<double>(rng.Next() % 1000000 + 1) * 1e-9);
    const int z = static_cast<int>(rng.Next() % 16);
    for (int kind = 0; kind < 3; ++kind) {
      float values[16];
      for (int q = 0; q < 16; ++q) {
        const float v = static_cast<float>(q - z) * s;
        values[q] = kind == 0 ? tensor::Bf16ToFloat(tensor::FloatToBf16(v))
                    : kind == 1 ? tensor::F16ToFloat(tensor::FloatToF16(v))
                                : v;
      }
      ASSERT_TRUE(tensor::LutTableOf(values, 16, s, &t)) << kind << " s=" << s << " z=" << z;
      for (int q = 0; q < 16; ++q) ASSERT_EQ(static_cast<float>(t.n[q]) * t.unit, values[q]) << kind << " " << q;
    }
  }
  const float zeros[4] = {0.0f, 0.0f, -0.0f, 0.0f};
  ASSERT_TRUE(tensor::LutTableOf(zeros, 4, 0.0f, &t));
  EXPECT_EQ(t.n[0], 0);
  EXPECT_EQ(t.n[3], 0);
  const float wide[2] = {1.0f, 1.0f / 65536.0f};  // 2^16 apart: past 16 bits, and no hint
  EXPECT_FALSE(tensor::LutTableOf(wide, 2, 0.0f, &t));
  const float thirds[2] = {1.0f / 3.0f, 2.0f / 3.0f + 1e-7f};
  EXPECT_FALSE(tensor::LutTableOf(thirds, 2, 1.0f / 3.0f, &t));
  const float bad[2] = {1.0f, std::nanf("")};
  EXPECT_FALSE(tensor::LutTableOf(bad, 2, 1.0f, &t));
  const float inf[2] = {1.0f, INFINITY};
  EXPECT_FALSE(tensor::LutTableOf(inf, 2, 1.0f, &t));
}

// The head's byte form (tensor/lut_rows.h LutByteForm): n[c] = a + b·c + (u[c] - 128) for every
// code of the values, whatever the table; symmetric bf16 int2 tables are lines (kLinear), bf16 and
// f16 int4 ones a line plus remainders within a byte (kResidual); a table far from its line has
// neither flag; codes past a 3-bit table's values read u = 128.
TEST(LutRows, ByteFormIsTheTableAsALineAndRemainders) {
  Rng rng(10);
  int linear2 = 0, residual4 = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int bits = trial % 2 == 0 ? 2 : 4, value_bits = trial % 6 == 5 ? 3 : bits, count = 1 << value_bits;
    const float s = static_cast<float>(static_cast<double>(rng.Next() % 1000000 + 1) * 1e-9);
    const int kind = (trial / 2) % 3;
    float values[16];
    for (int q = 0; q < count; ++q) {
      const float v = static_cast<float>(q - count / 2) * s;
      values[q] = kind == 0 ? tensor::Bf16ToFloat(tensor::FloatToBf16(v))
                  : kind == 1 ? tensor::F16ToFloat(tensor::FloatToF16(v))
                              : v;
    }
    tensor::LutTable t;
    ASSERT_TRUE(tensor::LutTableOf(values, count, s, &t));
    std::vector<uint8_t> row(tensor::kLutHeadBytes);
    tensor::WriteLutHead(t, value_bits, bits, row.data());
    const tensor::LutByteForm f = tensor::LutRowForm(row.data());
    ASSERT_TRUE(f.flags & tensor::LutByteForm::kResidual) << trial;
    // The remainders of a rounded table lie within 32 of each other (the AVX2 kernel's byte path).
    ASSERT_TRUE(f.flags & tensor::LutByteForm::kNarrow) << trial;
    ASSERT_EQ(f.u_min, *std::min_element(f.u, f.u + 16)) << trial;
    for (int c = 0; c < 16; ++c) {
      const int code = c & ((1 << bits) - 1);
      if (code < count) {
        ASSERT_EQ(int64_t{f.a} + int64_t{f.b} * code + f.u[c] - 128, t.n[code]) << trial << " " << c;
      } else {
        ASSERT_EQ(f.u[c], 128) << trial << " " << c;
      }
    }
    if (bits == 2 && kind != 1) {
      ASSERT_TRUE(f.flags & tensor::LutByteForm::kLinear) << trial;  // -2, -1, 0, 1 times s round alike
      ++linear2;
    }
    if (bits == 4 && value_bits == 4 && !(f.flags & tensor::LutByteForm::kLinear)) ++residual4;
  }
  EXPECT_GT(linear2, 900);
  EXPECT_GT(residual4, 300);  // most int4 roundings are not a line
  tensor::LutTable far;
  far.n[1] = 30000;  // 0, 30000, 0, ... : the line through the ends is 0, the remainder far past a byte
  std::vector<uint8_t> row(tensor::kLutHeadBytes);
  tensor::WriteLutHead(far, 4, 4, row.data());
  EXPECT_EQ(tensor::LutRowForm(row.data()).flags, 0);
}

TEST(LutParity, LinearSizesMisaligned) {
  Rng rng(2);
  for (int bits : {4, 2}) {
    const int64_t g = tensor::LutGroupElements(bits);
    for (int64_t in : {g, 2 * g, 3 * g, 12 * g}) {
      for (int64_t out : {1, 3, 8, 17}) {
        const auto w = RandomLut(rng, bits, out, in);
        for (int64_t n : {1, 2, 3, 4, 5, 9, 13}) {
          auto x = testing::RandomFloats(rng, n * in, 2.0);
          std::vector<double> want(static_cast<size_t>(n * out)), mag(want.size());
          for (int64_t t = 0; t < n; ++t) {
            for (int64_t o = 0; o < out; ++o) {
              for (int64_t i = 0; i < in; ++i) {
                const double p = static_cast<double>(x[t * in + i]) * Element(w.data(), bits, in, o, i);
                want[static_cast<size_t>(t * out + o)] += p;
                mag[static_cast<size_t>(t * out + o)] += std::fabs(p);
              }
            }
          }
          testing::ForEachKernelTable([&](const CpuKernelTable& table) {
            std::vector<float> got(want.size());
            KernelOf(table, bits)(x.data(), n, in, w.data(), 0, out, got.data(), out);
            for (size_t i = 0; i < got.size(); ++i) {
              ASSERT_NEAR(got[i], want[i], 2e-6 * mag[i] + 1e-30)
                  << table.name << " bits=" << bits << " in=" << in << " out=" << out << " n=" << n;
            }
          });
        }
      }
    }
  }
}

TEST(LutParity, LinearIsBatchAndRangeInvariant) {
  Rng rng(3);
  for (int bits : {4, 2}) {
    const int64_t in = 5 * tensor::LutGroupElements(bits), out = 21;
    const auto w = RandomLut(rng, bits, out, in);
    testing::ForEachKernelTable([&](const CpuKernelTable& table) {
      const LinearLutFn f = KernelOf(table, bits);
      for (int64_t n : {2, 4, 5, 8, 9, 13, 17, 70}) {
        auto x = testing::RandomFloats(rng, n * in, 2.0);
        std::vector<float> batched(static_cast<size_t>(n * out)), alone(static_cast<size_t>(out));
        f(x.data(), n, in, w.data(), 0, out, batched.data(), out);
        for (int64_t k = 0; k < n; ++k) {
          f(x.data() + k * in, 1, in, w.data(), 0, out, alone.data(), out);
          for (int64_t o = 0; o < out; ++o) ASSERT_EQ(batched[k * out + o], alone[o]) << table.name << " n=" << n;
        }
        std::vector<float> part(static_cast<size_t>(n * out), -1.0f);
        f(x.data(), n, in, w.data(), 3, 17, part.data(), out);
        for (int64_t k = 0; k < n; ++k) {
          for (int64_t o = 0; o < out; ++o) {
            ASSERT_EQ(part[k * out + o], (o >= 3 && o < 17) ? batched[k * out + o] : -1.0f) << table.name;
          }
        }
      }
    });
  }
}

// The Linear op on both backends, and LinearMany with a table matrix beside a bf16 matrix of the
// same values (one call, two weight kinds: the table rows take the activations as they are).
TEST(LutParity, LinearOpsOnBothBackends) {
  Rng rng(4);
  for (int bits : {4, 2}) {
    const int64_t n = 5, in = 2 * tensor::LutGroupElements(bits), out = 19;
    const DType t = tensor::LutDType(bits);
    auto w = RandomLut(rng, bits, out, in);
    auto x = testing::RandomFloats(rng, n * in, 2.0);
    std::vector<uint16_t> wb(static_cast<size_t>(out * in));
    for (int64_t o = 0; o < out; ++o) {
      std::vector<float> row(static_cast<size_t>(in));
      cpu::DequantizeRow(tensor::TensorView{w.data(), t, tensor::Shape{out, in}}, o, row.data());
      for (int64_t i = 0; i < in; ++i) {
        ASSERT_EQ(row[static_cast<size_t>(i)], Element(w.data(), bits, in, o, i));
        wb[static_cast<size_t>(o * in + i)] = tensor::FloatToBf16(row[static_cast<size_t>(i)]);
      }
    }
    std::vector<float> got(static_cast<size_t>(n * out)), ref(got.size()), many_lut(got.size()), many_bf16(got.size());
    tensor::TensorView xv{x.data(), DType::kF32, tensor::Shape{n, in}};
    tensor::TensorView wv{w.data(), t, tensor::Shape{out, in}};
    tensor::TensorView wbv{wb.data(), DType::kBF16, tensor::Shape{out, in}};
    Linear({}, xv, wv, tensor::TensorView{got.data(), DType::kF32, tensor::Shape{n, out}});
    Linear({nullptr, FindBackend("reference")}, xv, wv, tensor::TensorView{ref.data(), DType::kF32, tensor::Shape{n, out}});
    const tensor::TensorView ws[2] = {wv, wbv};
    const tensor::TensorView ys[2] = {tensor::TensorView{many_lut.data(), DType::kF32, tensor::Shape{n, out}},
                                      tensor::TensorView{many_bf16.data(), DType::kF32, tensor::Shape{n, out}}};
    LinearMany({}, xv, ws, ys);
    for (int64_t i = 0; i < n * out; ++i) {
      double want = 0.0, want_bf16 = 0.0, mag = 0.0;
      for (int64_t k = 0; k < in; ++k) {
        const double e = Element(w.data(), bits, in, i % out, k);
        const double p = static_cast<double>(x[(i / out) * in + k]) * e;
        want += p;
        want_bf16 += static_cast<double>(x[(i / out) * in + k]) *
                     tensor::Bf16ToFloat(tensor::FloatToBf16(static_cast<float>(e)));
        mag += std::fabs(p);
      }
      EXPECT_NEAR(got[i], want, 2e-6 * mag) << i;
      EXPECT_NEAR(ref[i], want, 2e-6 * mag) << i;
      EXPECT_EQ(many_lut[i], got[i]) << i;
      EXPECT_NEAR(many_bf16[i], want_bf16, 2e-6 * mag) << i;  // the bf16 matrix: the values rounded to bf16
    }
  }
}

// LinearStaticInt8 on table rows: y = s · Σ k · w with k the input's int8 fake quantization, against a
// double sum, on every table (the avx512 table's integer kernel where the CPU has AVX512-VNNI, the
// fake-quantize-then-Linear path elsewhere); tables of bf16, f16 and fp32 values; odd code-group
// counts (the kernel's half-filled last pair); rows past 8192 elements (the integer sums' flush);
// batch invariance; the reference backend.
TEST(LutParity, StaticInt8ActivationsOnEveryTable) {
  Rng rng(5);
  for (int bits : {4, 2}) {
    const int64_t g = tensor::LutGroupElements(bits);
    for (int64_t in : {g, 3 * g, 4 * g, 7 * g, 8192 + 3 * g}) {
      const int64_t out = 11;
      const DType t = tensor::LutDType(bits);
      auto w = RandomLut(rng, bits, out, in);
      for (int64_t n : {1, 3, 4, 5, 9}) {
        auto x = testing::RandomFloats(rng, n * in, 2.0);
        const float s = 0.0125f;
        std::vector<double> want(static_cast<size_t>(n * out)), mag(want.size());
        for (int64_t tk = 0; tk < n; ++tk) {
          for (int64_t o = 0; o < out; ++o) {
            for (int64_t i = 0; i < in; ++i) {
              const double k = std::clamp(std::nearbyint(x[tk * in + i] / s), -128.0f, 127.0f);
              const double p = k * s * Element(w.data(), bits, in, o, i);
              want[static_cast<size_t>(tk * out + o)] += p;
              mag[static_cast<size_t>(tk * out + o)] += std::fabs(p);
            }
          }
        }
        tensor::TensorView xv{x.data(), DType::kF32, tensor::Shape{n, in}};
        tensor::TensorView wv{w.data(), t, tensor::Shape{out, in}};
        ThreadPool pool(2);
        testing::ForEachKernelTable([&](const CpuKernelTable& table) {
          std::vector<float> got(want.size()), alone(static_cast<size_t>(out));
          LinearStaticInt8({&pool}, xv, s, wv, tensor::TensorView{got.data(), DType::kF32, tensor::Shape{n, out}});
          for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_NEAR(got[i], want[i], 2e-6 * mag[i] + 1e-30)
                << table.name << " bits=" << bits << " in=" << in << " n=" << n;
          }
          for (int64_t tk = 0; tk < n; ++tk) {
            tensor::TensorView one{x.data() + tk * in, DType::kF32, tensor::Shape{1, in}};
            LinearStaticInt8({}, one, s, wv, tensor::TensorView{alone.data(), DType::kF32, tensor::Shape{1, out}});
            for (int64_t o = 0; o < out; ++o) ASSERT_EQ(alone[o], got[tk * out + o]) << table.name << " n=" << n;
          }
        });
        std::vector<float> ref(want.size());
        LinearStaticInt8({nullptr, FindBackend("reference")}, xv, s, wv,
                         tensor::TensorView{ref.data(), DType::kF32, tensor::Shape{n, out}});
        for (size_t i = 0; i < ref.size(); ++i) ASSERT_NEAR(ref[i], want[i], 2e-6 * mag[i] + 1e-30);
      }
    }
  }
}

// LinearStaticInt8's int8 rounding, element by element: row o of a 0/1 table picks element o, so
// y[o] = s · k_o exactly; halves round to even, and values past the range clamp to -128 / 127.
TEST(LutParity, StaticInt8RoundsHalfToEvenAndClamps) {
  const int64_t in = 32, out = 32;
  const float s = 0.25f;
  const float xs[8] = {0.125f, 0.375f, -0.125f, 0.625f, 31.875f, -32.125f, 1e30f, -1e30f};
  const float want[8] = {0.0f, 2.0f, 0.0f, 2.0f, 127.0f, -128.0f, 127.0f, -128.0f};
  std::vector<float> x(static_cast<size_t>(in));
  for (int64_t i = 0; i < in; ++i) x[static_cast<size_t>(i)] = i < 8 ? xs[i] : static_cast<float>(i) * 0.3f - 4.0f;
  const DType t = DType::kLut4R;
  std::vector<uint8_t> w(tensor::RowBytes(t, in) * out);
  tensor::LutTable table;
  table.n[1] = 1;
  std::vector<uint8_t> u(static_cast<size_t>(in));
  for (int64_t o = 0; o < out; ++o) {
    for (int64_t i = 0; i < in; ++i) u[static_cast<size_t>(i)] = i == o ? 1 : 0;
    tensor::WriteLutRow(table, 4, 4, u.data(), in, w.data() + static_cast<size_t>(o) * tensor::RowBytes(t, in));
  }
  tensor::TensorView xv{x.data(), DType::kF32, tensor::Shape{1, in}};
  tensor::TensorView wv{w.data(), t, tensor::Shape{out, in}};
  testing::ForEachKernelTable([&](const CpuKernelTable& kt) {
    std::vector<float> y(static_cast<size_t>(out));
    LinearStaticInt8({}, xv, s, wv, tensor::TensorView{y.data(), DType::kF32, tensor::Shape{1, out}});
    for (int64_t o = 0; o < out; ++o) {
      const float k = o < 8 ? want[o] : std::clamp(std::nearbyint(x[static_cast<size_t>(o)] / s), -128.0f, 127.0f);
      ASSERT_EQ(y[static_cast<size_t>(o)], s * k) << kt.name << " o=" << o;
    }
  });
}

// The integer kernels sum exactly and round once: y = float(Σ k · n[c]) · (s · unit), the sum an
// exact integer. Rows of every form: a 2-bit line and a 2-bit table that is not one, 4-bit remainders
// within 31 of each other (kNarrow), wider ones that still fit a byte (kResidual), and a table far from
// any line (neither). The avx2 table gives that for every row (its byte path or its element sum); the
// avx512 table's VNNI kernel for the rows its byte path takes (kLinear, kResidual), where the two
// tables therefore agree bit for bit; its other rows meet fp32 every 256 pairs (the parity above).
TEST(LutParity, StaticInt8IntegerKernelsSumExactly) {
  Rng rng(12);
  for (int bits : {4, 2}) {
    const int64_t g = tensor::LutGroupElements(bits);
    for (int64_t in : {g, 3 * g, 4 * g, 7 * g, 8192 + 3 * g}) {
      const int64_t out = 13;
      const DType t = tensor::LutDType(bits);
      const size_t stride = tensor::RowBytes(t, in);
      std::vector<uint8_t> w(stride * static_cast<size_t>(out));
      std::vector<std::vector<uint8_t>> codes(static_cast<size_t>(out));
      std::vector<tensor::LutTable> tables(static_cast<size_t>(out));
      std::set<int> forms;
      for (int64_t o = 0; o < out; ++o) {
        tensor::LutTable& table = tables[static_cast<size_t>(o)];
        table.unit = static_cast<float>(static_cast<double>(rng.Next() % 1000 + 1) * 1e-5);
        const int count = 1 << bits, form = static_cast<int>(o % 4);
        const int64_t step = static_cast<int64_t>(rng.Next() % 300) + 1;
        const int64_t spread = form == 0 ? 0 : form == 1 ? 12 : form == 2 ? 100 : 20000;
        for (int c = 0; c < count; ++c) {
          const int64_t e = c == 0 || c == count - 1 || spread == 0
                                ? 0
                                : static_cast<int64_t>(rng.Next() % static_cast<uint64_t>(2 * spread + 1)) - spread;
          table.n[c] = static_cast<int16_t>(std::clamp<int64_t>(step * (c - count / 2) + e, -32767, 32767));
        }
        auto& u = codes[static_cast<size_t>(o)];
        u.resize(static_cast<size_t>(in));
        for (auto& c : u) c = static_cast<uint8_t>(rng.Next() % static_cast<uint64_t>(count));
        tensor::WriteLutRow(table, bits, bits, u.data(), in, w.data() + static_cast<size_t>(o) * stride);
        forms.insert(tensor::LutRowForm(w.data() + static_cast<size_t>(o) * stride).flags);
      }
      // Every form is there: 4 bits narrow (kResidual | kNarrow), only kResidual, neither; 2 bits a line.
      if (bits == 4) {
        EXPECT_TRUE(forms.count(tensor::LutByteForm::kResidual | tensor::LutByteForm::kNarrow));
        EXPECT_TRUE(forms.count(tensor::LutByteForm::kResidual));
        EXPECT_TRUE(forms.count(0));
      } else {
        using F = tensor::LutByteForm;
        EXPECT_TRUE(forms.count(F::kResidual | F::kLinear | F::kNarrow));
        EXPECT_TRUE(forms.count(0));
      }
      for (int64_t n : {1, 3, 4, 5}) {
        auto x = testing::RandomFloats(rng, n * in, 2.0);
        const float s = 0.0125f;
        std::vector<float> want(static_cast<size_t>(n * out));
        for (int64_t tk = 0; tk < n; ++tk) {
          for (int64_t o = 0; o < out; ++o) {
            int64_t total = 0;
            for (int64_t i = 0; i < in; ++i) {
              const float k = std::clamp(std::nearbyint(x[static_cast<size_t>(tk * in + i)] / s), -128.0f, 127.0f);
              total += static_cast<int64_t>(k) * tables[static_cast<size_t>(o)].n[codes[static_cast<size_t>(o)][i]];
            }
            want[static_cast<size_t>(tk * out + o)] =
                static_cast<float>(total) * (s * tables[static_cast<size_t>(o)].unit);
          }
        }
        tensor::TensorView xv{x.data(), DType::kF32, tensor::Shape{n, in}};
        tensor::TensorView wv{w.data(), t, tensor::Shape{out, in}};
        ThreadPool pool(2);
        int checked = 0;
        testing::ForEachKernelTable([&](const CpuKernelTable& table) {
          if ((bits == 2 ? table.linear_lut2r_int : table.linear_lut4r_int) == nullptr) return;
          std::vector<float> got(want.size());
          LinearStaticInt8({&pool}, xv, s, wv, tensor::TensorView{got.data(), DType::kF32, tensor::Shape{n, out}});
          for (int64_t o = 0; o < out; ++o) {
            const uint8_t flags = tensor::LutRowForm(w.data() + static_cast<size_t>(o) * stride).flags;
            const uint8_t byte_flag = bits == 2 ? tensor::LutByteForm::kLinear : tensor::LutByteForm::kResidual;
            const bool byte_row = (flags & byte_flag) != 0;
            if (table.name != "avx2" && !byte_row) continue;
            for (int64_t tk = 0; tk < n; ++tk) {
              const size_t i = static_cast<size_t>(tk * out + o);
              ASSERT_EQ(got[i], want[i]) << table.name << " bits=" << bits << " in=" << in << " n=" << n << " o=" << o
                                         << " flags=" << int{flags};
              ++checked;
            }
          }
        });
        const auto tables_here = SupportedCpuKernelTables();
        const auto is_avx2 = [](const CpuKernelTable* k) { return k->name == "avx2"; };
        if (std::any_of(tables_here.begin(), tables_here.end(), is_avx2)) {
          EXPECT_GE(checked, n * out);  // every row on the avx2 table
        }
      }
    }
  }
}

// LinearStaticInt8Many gives each weight exactly what LinearStaticInt8 gives it alone: int4 and
// int2 tables with shared and different scales in one job, a bf16 weight among them (the per-call
// fallback), on both backends, with and without a pool.
TEST(LutParity, StaticInt8ManyEqualsSeparateCalls) {
  Rng rng(8);
  const int64_t in = 256, n = 3;
  const int64_t outs[3] = {37, 8, 21};
  auto w4 = RandomLut(rng, 4, outs[0], in);
  auto w2 = RandomLut(rng, 2, outs[1], in);
  auto w4b = RandomLut(rng, 4, outs[2], in);
  std::vector<uint16_t> wbf(static_cast<size_t>(outs[2] * in));
  for (auto& v : wbf) v = tensor::FloatToBf16(static_cast<float>(rng.Normal() * 0.05));
  auto x = testing::RandomFloats(rng, n * in, 2.0);
  const tensor::TensorView xv{x.data(), DType::kF32, tensor::Shape{n, in}};
  const tensor::TensorView lut[3] = {{w4.data(), DType::kLut4R, tensor::Shape{outs[0], in}},
                                     {w2.data(), DType::kLut2R, tensor::Shape{outs[1], in}},
                                     {w4b.data(), DType::kLut4R, tensor::Shape{outs[2], in}}};
  const tensor::TensorView bf{wbf.data(), DType::kBF16, tensor::Shape{outs[2], in}};
  ThreadPool pool(2);
  for (const bool with_bf16 : {false, true}) {
    const tensor::TensorView ws[3] = {lut[0], lut[1], with_bf16 ? bf : lut[2]};
    for (const std::array<float, 3>& s : {std::array<float, 3>{0.0125f, 0.0125f, 0.0125f},
                                          std::array<float, 3>{0.0125f, 0.02f, 0.03f}}) {
      const ExecContext contexts[] = {ExecContext{}, ExecContext{&pool},
                                      ExecContext{nullptr, FindBackend("reference")}};
      for (const ExecContext& ctx : contexts) {
        testing::ForEachKernelTable([&](const CpuKernelTable& table) {
          std::vector<float> many[3], alone[3];
          tensor::TensorView ys[3], one[3];
          for (int m = 0; m < 3; ++m) {
            many[m].assign(static_cast<size_t>(n * outs[m]), -1.0f);
            alone[m].assign(static_cast<size_t>(n * outs[m]), -2.0f);
            ys[m] = {many[m].data(), DType::kF32, tensor::Shape{n, outs[m]}};
            one[m] = {alone[m].data(), DType::kF32, tensor::Shape{n, outs[m]}};
            LinearStaticInt8(ctx, xv, s[m], ws[m], one[m]);
          }
          LinearStaticInt8Many(ctx, xv, s, ws, ys);
          for (int m = 0; m < 3; ++m) {
            ASSERT_EQ(many[m], alone[m]) << table.name << " matrix " << m << " bf16=" << with_bf16;
          }
        });
      }
    }
  }
}

}  // namespace
}  // namespace gemmad::kernels
