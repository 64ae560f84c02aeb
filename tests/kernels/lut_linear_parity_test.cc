// Parity of the table-row Linear (kLut4R / kLut2R weights, tensor/lut_rows.h) with a double-
// precision sum over the rows' own elements, for every CPU kernel table: row lengths of one to
// many code groups, misaligned buffers, batch and row-range invariance, the Linear op on the CPU
// and the reference backend, LinearMany mixing a table matrix with a bf16 one, and DequantizeRow.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/ops.h"
#include "parity_util.h"
#include "tensor/half.h"
#include "tensor/lut_rows.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;

// A table matrix: every row's 2^bits values random bf16 values (row 2 of every 5 all zero but
// one), codes random; one byte past an aligned allocation.
testing::Misaligned<uint8_t> RandomLut(Rng& rng, int bits, int64_t out, int64_t in) {
  const DType t = tensor::LutDType(bits);
  const size_t stride = tensor::RowBytes(t, in);
  testing::Misaligned<uint8_t> w(static_cast<int64_t>(stride) * out);
  std::vector<uint8_t> u(static_cast<size_t>(in));
  for (int64_t o = 0; o < out; ++o) {
    float values[16];
    for (int k = 0; k < (1 << bits); ++k) {
      const auto v = static_cast<float>(static_cast<double>(rng.Next() % 20001) / 10000.0 - 1.0);
      values[k] = o % 5 == 2 && k != 1 ? 0.0f : tensor::Bf16ToFloat(tensor::FloatToBf16(v));  // bf16 values, as CT's
    }
    for (auto& c : u) c = static_cast<uint8_t>(rng.Next() % (1u << bits));
    tensor::WriteLutRow(values, bits, bits, u.data(), in, w.data() + static_cast<size_t>(o) * stride);
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
      for (auto& c : u) c = static_cast<uint8_t>(rng.Next() % (1u << value_bits));
      tensor::WriteLutRow(values, value_bits, bits, u.data(), in, row.data());
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
      double want = 0.0, mag = 0.0;
      for (int64_t k = 0; k < in; ++k) {
        const double p = static_cast<double>(x[(i / out) * in + k]) * Element(w.data(), bits, in, i % out, k);
        want += p;
        mag += std::fabs(p);
      }
      EXPECT_NEAR(got[i], want, 2e-6 * mag) << i;
      EXPECT_NEAR(ref[i], want, 2e-6 * mag) << i;
      EXPECT_EQ(many_lut[i], got[i]) << i;
      EXPECT_NEAR(many_bf16[i], want, 2e-6 * mag) << i;  // the bf16 matrix holds the same (bf16) values
    }
  }
}

}  // namespace
}  // namespace gemmad::kernels
