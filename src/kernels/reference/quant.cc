// Scalar references of the quantized formats, written from the layout comments of
// tensor/quant_blocks.h element by element (no block structs, no shared code with kernels/cpu).
#include "kernels/reference/quant.h"

#include <cmath>
#include <cstring>

#include "base/check.h"
#include "tensor/fp8.h"
#include "tensor/ggml_quants.h"
#include "tensor/half.h"
#include "tensor/i8b_rows.h"
#include "tensor/lut_rows.h"
#include "tensor/q4_groups.h"

namespace gemmad::kernels::reference {
namespace {

constexpr int64_t kB = 32;

// Byte offset of block b of row r in a Q4_0 matrix: rows in pairs, 36 bytes per pair-block
// {d_even, d_odd, qs_even[16], qs_odd[16]}; a lone last row as 18-byte {d, qs[16]} blocks.
// Returns the offset of the scale; the nibbles start at *qs.
size_t Q4Offset(int64_t rows, int64_t in, int64_t r, int64_t b, size_t* qs) {
  const int64_t nb = in / kB;
  if (rows % 2 == 1 && r == rows - 1) {
    const size_t at = static_cast<size_t>(r * nb * 18 + b * 18);
    *qs = at + 2;
    return at;
  }
  const size_t at = static_cast<size_t>(((r / 2) * nb + b) * 36);
  *qs = at + 4 + 16 * static_cast<size_t>(r % 2);
  return at + 2 * static_cast<size_t>(r % 2);
}

float ReadF32(const uint8_t* p) {
  float f;
  std::memcpy(&f, p, 4);
  return f;
}

}  // namespace

void QuantizeActs(const float* x, int64_t n, int64_t in, int8_t* q, float* d) {
  for (int64_t t = 0; t < n; ++t) {
    for (int64_t b = 0; b < in / kB; ++b) {
      float amax = 0.0f;
      for (int64_t j = 0; j < kB; ++j) amax = std::fmax(amax, std::fabs(x[t * in + b * kB + j]));
      const float s = amax / 127.0f;
      const float inv = s == 0.0f ? 0.0f : 1.0f / s;
      for (int64_t j = 0; j < kB; ++j) {
        q[t * in + b * kB + j] = static_cast<int8_t>(std::nearbyint(x[t * in + b * kB + j] * inv));
      }
      d[t * (in / kB) + b] = s;
    }
  }
}

std::vector<uint8_t> QuantizeRows(const float* w, int64_t rows, int64_t in, tensor::DType dtype) {
  if (dtype == tensor::DType::kQ4_0x16) {  // kQ4_0's blocks, regrouped
    const std::vector<uint8_t> pairs = QuantizeRows(w, rows, in, tensor::DType::kQ4_0);
    std::vector<uint8_t> out(pairs.size());
    tensor::GroupQ4_0Rows(pairs.data(), rows, in, out.data());
    return out;
  }
  const size_t stride = tensor::RowBytes(dtype, in);
  std::vector<uint8_t> out(stride * static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) {
    const float* x = w + r * in;
    if (dtype == tensor::DType::kF8R) {  // per row: s = amax / 448, e4m3(x / s) (the FP8 checkpoints' weights)
      uint8_t* row = out.data() + static_cast<size_t>(r) * stride;
      float amax = 0.0f;
      for (int64_t i = 0; i < in; ++i) amax = std::fmax(amax, std::fabs(x[i]));
      const float s = amax > 0.0f ? amax / tensor::kE4M3Max : 1.0f;
      std::memcpy(row, &s, 4);
      for (int64_t i = 0; i < in; ++i) row[4 + i] = tensor::FloatToE4M3(x[i] / s);
      continue;
    }
    if (dtype == tensor::DType::kQ8R) {
      uint8_t* row = out.data() + static_cast<size_t>(r) * stride;
      float amax = 0.0f;
      for (int64_t i = 0; i < in; ++i) amax = std::fmax(amax, std::fabs(x[i]));
      const float s = amax / 127.0f, inv = s == 0.0f ? 0.0f : 1.0f / s;
      std::memcpy(row, &s, 4);
      for (int64_t i = 0; i < in; ++i) {
        row[4 + i] = static_cast<uint8_t>(static_cast<int8_t>(std::fmax(-127.0f, std::fmin(127.0f, std::nearbyint(x[i] * inv)))));
      }
      continue;
    }
    for (int64_t b = 0; b < in / kB; ++b) {
      float m = 0.0f;
      for (int64_t j = 0; j < kB; ++j) {
        if (std::fabs(x[b * kB + j]) > std::fabs(m)) m = x[b * kB + j];
      }
      const float s = m / -8.0f, inv = s == 0.0f ? 0.0f : 1.0f / s;
      const uint16_t h = tensor::FloatToF16(s);
      size_t qs = 0;
      const size_t at = Q4Offset(rows, in, r, b, &qs);
      std::memcpy(out.data() + at, &h, 2);
      for (int64_t j = 0; j < kB; ++j) {
        const int v = std::min(15, static_cast<int>(x[b * kB + j] * inv + 8.5f));
        uint8_t& byte = out[qs + static_cast<size_t>(j % 16)];
        byte = static_cast<uint8_t>(j < 16 ? v : (byte | (v << 4)));
      }
    }
  }
  return out;
}

std::vector<double> DequantizedRow(const uint8_t* w, tensor::DType dtype, int64_t rows, int64_t in, int64_t o) {
  std::vector<double> out(static_cast<size_t>(in));
  if (auto id = tensor::GgmlTypeId(dtype)) {
    std::vector<float> f(static_cast<size_t>(in));
    const Status s = tensor::DequantizeGgmlRow(*id, w + static_cast<size_t>(o) * tensor::RowBytes(dtype, in), in, f.data());
    GEMMAD_CHECK(s.ok(), "DequantizedRow: {}", s.message());
    for (int64_t i = 0; i < in; ++i) out[static_cast<size_t>(i)] = f[static_cast<size_t>(i)];
    return out;
  }
  for (int64_t i = 0; i < in; ++i) out[static_cast<size_t>(i)] = Dequantized(w, dtype, rows, in, o, i);
  return out;
}

double Dequantized(const uint8_t* w, tensor::DType dtype, int64_t rows, int64_t in, int64_t o, int64_t i) {
  if (tensor::GgmlTypeId(dtype)) return DequantizedRow(w, dtype, rows, in, o)[static_cast<size_t>(i)];
  if (dtype == tensor::DType::kLut4R || dtype == tensor::DType::kLut2R) {
    return tensor::LutRowElement(w + static_cast<size_t>(o) * tensor::RowBytes(dtype, in), tensor::LutBits(dtype), i);
  }
  if (dtype == tensor::DType::kI8BR) {
    return tensor::I8BRowElement(w + static_cast<size_t>(o) * tensor::RowBytes(dtype, in), i);
  }
  if (dtype == tensor::DType::kF8R) {
    const uint8_t* row = w + static_cast<size_t>(o) * tensor::RowBytes(dtype, in);
    return static_cast<double>(ReadF32(row)) * tensor::E4M3ToFloat(row[4 + i]);
  }
  if (dtype == tensor::DType::kQ8R) {
    const uint8_t* row = w + static_cast<size_t>(o) * tensor::RowBytes(dtype, in);
    return static_cast<double>(ReadF32(row)) * static_cast<int8_t>(row[4 + i]);
  }
  const int64_t j = i % kB;
  if (dtype == tensor::DType::kQ4_0x16) {  // tensor/quant_blocks.h BlockQ4_0x16
    const size_t at = static_cast<size_t>(((o / 16) * (in / kB) + i / kB) * 288);
    const int64_t l = o % 16, byte = j % 16;
    uint16_t h;
    std::memcpy(&h, w + at + 2 * static_cast<size_t>(l), 2);
    const uint8_t v = w[at + 32 + static_cast<size_t>(64 * (byte / 4) + 4 * l + byte % 4)];
    return static_cast<double>(tensor::F16ToFloat(h)) * ((j < 16 ? (v & 15) : (v >> 4)) - 8);
  }
  size_t qs = 0;
  const size_t at = Q4Offset(rows, in, o, i / kB, &qs);
  uint16_t h;
  std::memcpy(&h, w + at, 2);
  const int nib = j < 16 ? (w[qs + j] & 15) : (w[qs + j - 16] >> 4);
  return static_cast<double>(tensor::F16ToFloat(h)) * (nib - 8);
}

void LinearF8R(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t out, float* y) {
  for (int64_t t = 0; t < n; ++t) {
    const float* row = x + t * in;
    float amax = 0.0f;
    for (int64_t i = 0; i < in; ++i) amax = std::fmax(amax, std::fabs(row[i]));
    const float s = std::fmax(amax / tensor::kE4M3Max, 1.0f / (tensor::kE4M3Max * 512.0f));
    for (int64_t o = 0; o < out; ++o) {
      const uint8_t* wr = w + static_cast<size_t>(o) * tensor::RowBytes(tensor::DType::kF8R, in);
      double acc = 0.0;
      for (int64_t i = 0; i < in; ++i) {
        acc += static_cast<double>(tensor::RoundToE4M3(row[i] / s)) * tensor::E4M3ToFloat(wr[4 + i]);
      }
      y[t * out + o] = static_cast<float>(acc * ReadF32(wr) * s);
    }
  }
}

void LinearQuant(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, tensor::DType dtype,
                 int64_t out, float* y) {
  for (int64_t o = 0; o < out; ++o) {
    const std::vector<double> row = DequantizedRow(w, dtype, out, in, o);
    for (int64_t t = 0; t < n; ++t) {
      double acc = 0.0;
      for (int64_t i = 0; i < in; ++i) {
        acc += static_cast<double>(d[t * (in / kB) + i / kB]) * q[t * in + i] * row[static_cast<size_t>(i)];
      }
      y[t * out + o] = static_cast<float>(acc);
    }
  }
}

}  // namespace gemmad::kernels::reference
