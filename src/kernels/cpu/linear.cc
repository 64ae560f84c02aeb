// Linear ops: validate the views and split the output rows over the pool; the per-ISA micro
// kernels come from the registry. LinearMany runs several projections of one input as one
// job over the concatenated rows (one dispatch, one activation quantization, chunks that cross
// from one matrix into the next). Quantized weights first quantize the activations once per
// call (into per-thread scratch that only grows, so steady-state steps do not allocate).
#include <algorithm>
#include <array>
#include <vector>

#include "kernels/view_checks.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/registry.h"
#include "tensor/quant_blocks.h"

namespace gemmad::kernels::cpu {
namespace {

constexpr size_t kMaxMany = 4;

// Runs rows [b, e) of matrix w (of `out` rows) into y (row stride out).
void RunRows(const CpuKernelTable& k, const float* x, const int8_t* q, const float* d, const float* xf8,
             const float* sf8, int64_t n, int64_t in, const TensorView& w, float* y, int64_t out, int64_t b, int64_t e) {
  switch (w.dtype) {
    case tensor::DType::kF8R: k.linear_f8r(xf8, sf8, n, in, w.As<const uint8_t>(), b, e, y, out); break;
    case tensor::DType::kLut4R: k.linear_lut4r(x, n, in, w.As<const uint8_t>(), b, e, y, out); break;
    case tensor::DType::kLut2R: k.linear_lut2r(x, n, in, w.As<const uint8_t>(), b, e, y, out); break;
    case tensor::DType::kI8BR: k.linear_i8br(x, n, in, w.As<const uint8_t>(), b, e, y, out); break;
    case tensor::DType::kBF16: k.linear_bf16(x, n, in, w.As<const uint16_t>(), b, e, y, out); break;
    case tensor::DType::kF32: k.linear_f32(x, n, in, w.As<const float>(), b, e, y, out); break;
    case tensor::DType::kQ8R: k.linear_q8r(q, d, n, in, w.As<const uint8_t>(), out, b, e, y, out); break;
    case tensor::DType::kQ4_0: k.linear_q4_0(q, d, n, in, w.As<const uint8_t>(), out, b, e, y, out); break;
    case tensor::DType::kQ4_0x16:
      GEMMAD_CHECK(k.linear_q4_0x16 != nullptr, "Linear: the {} kernel table has no Q4_0x16 kernel", k.name);
      k.linear_q4_0x16(q, d, n, in, w.As<const uint8_t>(), out, b, e, y, out);
      break;
    case tensor::DType::kGgmlQ8_0: k.linear_ggml_q8_0(q, d, n, in, w.As<const uint8_t>(), out, b, e, y, out); break;
    case tensor::DType::kGgmlQ5_0: k.linear_ggml_q5_0(q, d, n, in, w.As<const uint8_t>(), out, b, e, y, out); break;
    case tensor::DType::kGgmlQ4_K: k.linear_ggml_q4_k(q, d, n, in, w.As<const uint8_t>(), out, b, e, y, out); break;
    case tensor::DType::kGgmlQ6_K: k.linear_ggml_q6_k(q, d, n, in, w.As<const uint8_t>(), out, b, e, y, out); break;
    default: GEMMAD_CHECK(false, "Linear: weight dtype {}", tensor::DTypeName(w.dtype));
  }
}

void CheckPair(const TensorView& x, const TensorView& w, const TensorView& y) {
  internal::CheckMatrixDType(w, "Linear w");
  internal::CheckDType(y, tensor::DType::kF32, "Linear y");
  internal::CheckRank(w, 2, "Linear w");
  internal::CheckRank(y, 2, "Linear y");
  GEMMAD_CHECK(w.shape[1] == x.shape[1] && y.shape[0] == x.shape[0] && y.shape[1] == w.shape[0],
               "Linear: x {} w {} y {}", x.shape.ToString(), w.shape.ToString(), y.shape.ToString());
  GEMMAD_CHECK(x.data != y.data, "Linear: y aliases x");
}

}  // namespace

void LinearMany(const ExecContext& ctx, const TensorView& x, std::span<const TensorView> ws,
                std::span<const TensorView> ys) {
  internal::CheckDType(x, tensor::DType::kF32, "Linear x");
  internal::CheckRank(x, 2, "Linear x");
  GEMMAD_CHECK(ws.size() == ys.size() && !ws.empty() && ws.size() <= kMaxMany, "LinearMany: {} weights, {} outputs",
               ws.size(), ys.size());
  bool quantized = false, fp8 = false;
  std::array<int64_t, kMaxMany + 1> first_row{};  // matrix m owns concatenated rows [first_row[m], first_row[m+1])
  for (size_t m = 0; m < ws.size(); ++m) {
    CheckPair(x, ws[m], ys[m]);
    fp8 = fp8 || ws[m].dtype == tensor::DType::kF8R;
    quantized = quantized || (tensor::IsBlockQuantized(ws[m].dtype) && ws[m].dtype != tensor::DType::kF8R &&
                              ws[m].dtype != tensor::DType::kLut4R && ws[m].dtype != tensor::DType::kLut2R &&
                              ws[m].dtype != tensor::DType::kI8BR);
    first_row[m + 1] = first_row[m] + ws[m].shape[0];
  }
  const int64_t n = x.shape[0], in = x.shape[1], total = first_row[ws.size()];
  const CpuKernelTable& k = CpuKernels();
  const float* xp = x.As<const float>();
  const int8_t* qp = nullptr;
  const float* dp = nullptr;
  if (quantized) {
    thread_local std::vector<int8_t> q;
    thread_local std::vector<float> d;
    const auto nq = static_cast<size_t>(n * in), nd = static_cast<size_t>(n * (in / tensor::kQuantBlock));
    if (q.size() < nq) q.resize(nq);
    if (d.size() < nd) d.resize(nd);
    k.quantize_acts(xp, n, in, q.data(), d.data());
    qp = q.data();
    dp = d.data();
  }
  const float* xf8 = nullptr;
  const float* sf8 = nullptr;
  if (fp8) {  // FP8 weights meet per-token E4M3 activations (tensor/quant_blocks.h kF8R)
    thread_local std::vector<float> xq, s;
    if (xq.size() < static_cast<size_t>(n * in)) xq.resize(static_cast<size_t>(n * in));
    if (s.size() < static_cast<size_t>(n)) s.resize(static_cast<size_t>(n));
    QuantizeActsF8(xp, n, in, xq.data(), s.data());
    xf8 = xq.data();
    sf8 = s.data();
  }
  // Chunks of at least ~64K multiply-adds so small projections stay on one thread, in units of
  // rows that no chunk splits: a Q4_0 row pair, a Q4_0x16 group (tensor/quant_blocks.h).
  int64_t unit = 2;
  for (const TensorView& w : ws) unit = w.dtype == tensor::DType::kQ4_0x16 ? 16 : unit;
  const int64_t min_units = std::max<int64_t>(1, (65536 / std::max<int64_t>(1, in * n) + 1) / unit);
  const int64_t units = (total + unit - 1) / unit;
  ParallelFor(ctx, units, min_units, [&](int64_t ub, int64_t ue) {
    const int64_t b = unit * ub, e = std::min(total, unit * ue);
    for (size_t m = 0; m < ws.size(); ++m) {
      const int64_t lo = std::max(b, first_row[m]), hi = std::min(e, first_row[m + 1]);
      if (lo >= hi) continue;
      RunRows(k, xp, qp, dp, xf8, sf8, n, in, ws[m], ys[m].As<float>(), ws[m].shape[0], lo - first_row[m], hi - first_row[m]);
    }
  });
}

void Linear(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y) {
  cpu::LinearMany(ctx, x, std::span<const TensorView>(&w, 1), std::span<const TensorView>(&y, 1));
}

}  // namespace gemmad::kernels::cpu
