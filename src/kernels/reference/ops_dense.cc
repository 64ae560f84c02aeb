// Reference backend: Linear (f32, bf16, and Q8_R / Q4_0 against int8-quantized activations, as the
// CPU backend computes them), weight quantization, RMSNorm, RoPE and the embedding gather, over the
// scalar references of this directory.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "kernels/gemm_op_contracts.h"
#include "kernels/reference/backend_ops.h"
#include "kernels/reference/embedding.h"
#include "kernels/reference/linear.h"
#include "kernels/reference/quant.h"
#include "kernels/reference/rms_norm.h"
#include "kernels/reference/rope.h"
#include "kernels/op_contracts.h"
#include "tensor/half.h"

namespace gemmad::kernels::reference::op {

using tensor::DType;

std::vector<float> Widen(const TensorView& v) {
  const int64_t n = v.NumElements();
  std::vector<float> out(static_cast<size_t>(n));
  if (tensor::IsBlockQuantized(v.dtype)) {
    const int64_t in = v.shape[v.shape.rank - 1], rows = n / in;
    for (int64_t r = 0; r < rows; ++r) {
      const std::vector<double> row = reference::DequantizedRow(v.As<const uint8_t>(), v.dtype, rows, in, r);
      for (int64_t i = 0; i < in; ++i) out[static_cast<size_t>(r * in + i)] = static_cast<float>(row[static_cast<size_t>(i)]);
    }
    return out;
  }
  for (int64_t i = 0; i < n; ++i) out[static_cast<size_t>(i)] = internal::LoadAsFloat(v.data, v.dtype, i);
  return out;
}

void Linear(const ExecContext&, const TensorView& x, const TensorView& w, const TensorView& y) {
  internal::CheckDType(x, DType::kF32, "Linear x");
  internal::CheckMatrixDType(w, "Linear w");
  internal::CheckDType(y, DType::kF32, "Linear y");
  internal::CheckRank(x, 2, "Linear x");
  internal::CheckRank(w, 2, "Linear w");
  internal::CheckRank(y, 2, "Linear y");
  const int64_t n = x.shape[0], in = x.shape[1], out = w.shape[0];
  GEMMAD_CHECK(w.shape[1] == in && y.shape[0] == n && y.shape[1] == out && x.data != y.data,
               "Linear: x {} w {} y {}", x.shape.ToString(), w.shape.ToString(), y.shape.ToString());
  switch (w.dtype) {
    case DType::kF32:
      reference::LinearF32(x.As<const float>(), n, in, w.As<const float>(), out, y.As<float>());
      break;
    case DType::kBF16:
      reference::LinearBf16(x.As<const float>(), n, in, w.As<const uint16_t>(), out, y.As<float>());
      break;
    case DType::kF8R:
      reference::LinearF8R(x.As<const float>(), n, in, w.As<const uint8_t>(), out, y.As<float>());
      break;
    case DType::kLut4R:
    case DType::kLut2R:
    case DType::kI8BR: {  // the rows' own weights (a table's values, bf16(q · s)); f32 activations as given
      const std::vector<float> plain = Widen(w);
      reference::LinearF32(x.As<const float>(), n, in, plain.data(), out, y.As<float>());
      break;
    }
    default: {
      std::vector<int8_t> q(static_cast<size_t>(n * in));
      std::vector<float> d(static_cast<size_t>(n * in / 32));
      reference::QuantizeActs(x.As<const float>(), n, in, q.data(), d.data());
      reference::LinearQuant(q.data(), d.data(), n, in, w.As<const uint8_t>(), w.dtype, out, y.As<float>());
    }
  }
}

void LinearGemm(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y) {
  const internal::LinearGemmShape s = internal::CheckLinearGemm(x, w, y);
  if (!s.packed) {
    op::Linear(ctx, x, w, y);
    return;
  }
  std::vector<float> plain(static_cast<size_t>(s.out * s.in));
  for (int64_t r = 0; r < s.out; ++r) {
    for (int64_t k = 0; k < s.in; ++k) plain[r * s.in + k] = internal::PackedWeight(w.As<const float>(), s.in, r, k);
  }
  TensorView pw = w;
  pw.data = plain.data();
  pw.shape = {s.out, s.in};
  op::Linear(ctx, x, pw, y);
}

void PackGemmWeights(const ExecContext&, const TensorView& w, const TensorView& packed) {
  const auto [out, in] = internal::CheckPackGemmWeights(w, packed);
  const int64_t panels = packed.shape[0];
  for (int64_t p = 0; p < panels; ++p) {
    for (int64_t k = 0; k < in; ++k) {
      for (int64_t c = 0; c < internal::kGemmPanelCols; ++c) {
        const int64_t r = p * internal::kGemmPanelCols + c;
        packed.As<float>()[(p * in + k) * internal::kGemmPanelCols + c] = r < out ? w.As<const float>()[r * in + k] : 0.0f;
      }
    }
  }
}

void LinearMany(const ExecContext& ctx, const TensorView& x, std::span<const TensorView> ws,
                std::span<const TensorView> ys) {
  GEMMAD_CHECK(ws.size() == ys.size() && !ws.empty() && ws.size() <= 4, "LinearMany: {} weights, {} outputs",
               ws.size(), ys.size());
  for (size_t m = 0; m < ws.size(); ++m) op::Linear(ctx, x, ws[m], ys[m]);
}

void LinearStaticInt8(const ExecContext& ctx, const TensorView& x, float s, const TensorView& w, const TensorView& y) {
  internal::CheckDType(x, DType::kF32, "LinearStaticInt8 x");
  GEMMAD_CHECK(s > 0.0f && std::isfinite(s), "LinearStaticInt8: scale {}", s);
  const int64_t n = x.NumElements();
  std::vector<float> q(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) q[i] = std::clamp(std::nearbyint(x.As<const float>()[i] / s), -128.0f, 127.0f) * s;
  TensorView xq = x;
  xq.data = q.data();
  op::Linear(ctx, xq, w, y);
}

void LinearStaticInt8Many(const ExecContext& ctx, const TensorView& x, std::span<const float> s,
                          std::span<const TensorView> ws, std::span<const TensorView> ys) {
  GEMMAD_CHECK(ws.size() == ys.size() && ws.size() == s.size() && !ws.empty() && ws.size() <= 4,
               "LinearStaticInt8Many: {} weights, {} outputs, {} scales", ws.size(), ys.size(), s.size());
  for (size_t m = 0; m < ws.size(); ++m) op::LinearStaticInt8(ctx, x, s[m], ws[m], ys[m]);
}

tensor::DType Int4WeightDType(const ExecContext&, const tensor::Shape&) { return tensor::DType::kQ4_0; }

void QuantizeWeights(const ExecContext&, const TensorView& src, const TensorView& dst) {
  const internal::QuantizeShape shape = internal::CheckQuantizeWeights(src, dst);
  const int64_t rows = shape.rows, in = shape.in;
  const std::vector<float> values = Widen(src);
  const std::vector<uint8_t> bytes = reference::QuantizeRows(values.data(), rows, in, dst.dtype);
  GEMMAD_CHECK(bytes.size() == dst.SizeBytes(), "QuantizeWeights: {} bytes for {}", bytes.size(), dst.SizeBytes());
  std::memcpy(dst.data, bytes.data(), bytes.size());
}

void RmsNorm(const ExecContext&, const TensorView& x, const TensorView& weight, const TensorView& out, float eps) {
  internal::CheckDType(x, DType::kF32, "RmsNorm x");
  internal::CheckDType(out, DType::kF32, "RmsNorm out");
  const int64_t n = x.shape[x.shape.rank - 1], rows = x.NumElements() / n;
  GEMMAD_CHECK(out.NumElements() == x.NumElements(), "RmsNorm: x {} out {}", x.shape.ToString(), out.shape.ToString());
  std::vector<float> w;
  if (weight.data != nullptr) {
    internal::CheckWeightDType(weight, "RmsNorm weight");
    GEMMAD_CHECK(weight.NumElements() == n, "RmsNorm: weight {} for rows of {}", weight.shape.ToString(), n);
    w = Widen(weight);
  }
  reference::RmsNorm(x.As<const float>(), w.empty() ? nullptr : w.data(), out.As<float>(), rows, n, eps);
}

void RopeNeox(const ExecContext&, const TensorView& x, const TensorView& positions, const TensorView& inv_freq) {
  internal::CheckDType(x, DType::kF32, "RopeNeox x");
  internal::CheckDType(positions, DType::kI32, "RopeNeox positions");
  internal::CheckDType(inv_freq, DType::kF32, "RopeNeox inv_freq");
  internal::CheckRank(x, 3, "RopeNeox x");
  const int64_t n = x.shape[0], heads = x.shape[1], d = x.shape[2];
  GEMMAD_CHECK(d % 2 == 0 && positions.NumElements() == n && inv_freq.NumElements() == d / 2,
               "RopeNeox: x {} positions {} inv_freq {}", x.shape.ToString(), positions.shape.ToString(),
               inv_freq.shape.ToString());
  reference::RopeNeox(x.As<float>(), n, heads, d, positions.As<const int32_t>(), inv_freq.As<const float>());
}

void EmbeddingGather(const ExecContext&, const TensorView& table, const TensorView& ids, float scale,
                     const TensorView& out) {
  internal::CheckMatrixDType(table, "EmbeddingGather table");
  internal::CheckDType(ids, DType::kI32, "EmbeddingGather ids");
  internal::CheckDType(out, DType::kF32, "EmbeddingGather out");
  internal::CheckRank(table, 2, "EmbeddingGather table");
  const int64_t rows = table.shape[0], m = table.shape[1], n = ids.NumElements();
  GEMMAD_CHECK(out.NumElements() == n * m, "EmbeddingGather: out {} for {} ids of width {}", out.shape.ToString(), n, m);
  const int32_t* id = ids.As<const int32_t>();
  for (int64_t t = 0; t < n; ++t) {
    GEMMAD_CHECK(id[t] >= 0 && id[t] < rows, "EmbeddingGather: id {} outside [0, {})", id[t], rows);
  }
  if (table.dtype == DType::kF32) {
    reference::EmbeddingGatherF32(table.As<const float>(), m, id, n, scale, out.As<float>());
  } else if (table.dtype == DType::kBF16) {
    reference::EmbeddingGatherBf16(table.As<const uint16_t>(), m, id, n, scale, out.As<float>());
  } else {
    for (int64_t t = 0; t < n; ++t) {
      const std::vector<double> row = reference::DequantizedRow(table.As<const uint8_t>(), table.dtype, rows, m, id[t]);
      for (int64_t j = 0; j < m; ++j) out.As<float>()[t * m + j] = static_cast<float>(row[static_cast<size_t>(j)]) * scale;
    }
  }
}

}  // namespace gemmad::kernels::reference::op
