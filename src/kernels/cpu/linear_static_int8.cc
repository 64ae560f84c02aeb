// LinearStaticInt8 (kernels/ops.h): a Linear whose input is fake-quantized to int8 with a static
// scale. Table rows (kLut4R / kLut2R) go to the table's integer-activation kernel where it has one
// (kernels/registry.h LinearLutIntFn: the integers k in its lane orders, prepared once per call);
// anything else runs Linear on the fake-quantized input k · s. LinearStaticInt8Many runs several
// weights of the same input (each with its own scale) as one pool job.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "kernels/cpu/cpu_ops.h"
#include "kernels/registry.h"
#include "kernels/view_checks.h"
#include "tensor/lut_rows.h"

namespace gemmad::kernels::cpu {
namespace {

// The activations in both of the kernels' lane orders (registry.h LutIntActs): words [n, LutIntWords],
// bytes [n, LutIntBytes] and sums [n]; each token is quantized in place order (the table's
// QuantizeInt8) and then copied run by run (runs of 16 consecutive elements).
void PrepareLanes(const float* x, int64_t n, int64_t in, float s, int bits, int16_t* kb, int8_t* bytes,
                  int32_t* sums) {
  const int64_t group = tensor::LutGroupElements(bits), words = LutIntWords(in, bits), codes = 8 / bits;
  const int64_t nbytes = LutIntBytes(in, bits);
  const QuantizeInt8Fn quantize = CpuKernels().quantize_int8;
  thread_local std::vector<int8_t> q;
  q.assign(static_cast<size_t>(std::max(words, nbytes)), 0);  // zeros past in
  for (int64_t t = 0; t < n; ++t) {
    sums[t] = static_cast<int32_t>(quantize(x + t * in, in, s, q.data()));
    int16_t* out = kb + t * words;
    for (int64_t p = 0; p < words / (2 * group); ++p) {
      for (int64_t h = 0; h < codes; ++h) {
        for (int64_t half = 0; half < 2; ++half) {
          const int8_t* src = q.data() + (2 * p + half) * group + 16 * h;
          int16_t* dst = out + (p * codes + h) * 32 + 16 * half;
          for (int64_t j = 0; j < 16; ++j) dst[j] = src[j];
        }
      }
    }
    int8_t* ob = bytes + t * nbytes;
    for (int64_t c = 0; c < nbytes / (4 * group); ++c) {
      for (int64_t h = 0; h < codes; ++h) {
        for (int64_t g = 0; g < 4; ++g) {
          std::memcpy(ob + (codes * c + h) * 64 + 16 * g, q.data() + 4 * group * c + group * g + 16 * h, 16);
        }
      }
    }
  }
}

// One weight's integer activations (PrepareLanes) in buffers the pool's threads read.
struct IntLanes {
  std::vector<int16_t> words;
  std::vector<int8_t> bytes;
  std::vector<int32_t> sums;

  LutIntActs Prepare(const float* x, int64_t n, int64_t in, float s, int bits) {
    const auto nw = static_cast<size_t>(n * LutIntWords(in, bits));
    const auto nb = static_cast<size_t>(n * LutIntBytes(in, bits));
    if (words.size() < nw) words.resize(nw);
    if (bytes.size() < nb) bytes.resize(nb);
    if (sums.size() < static_cast<size_t>(n)) sums.resize(static_cast<size_t>(n));
    PrepareLanes(x, n, in, s, bits, words.data(), bytes.data(), sums.data());
    return {words.data(), bytes.data(), sums.data()};
  }
};

constexpr size_t kMaxMany = 4;

LinearLutIntFn IntFn(const CpuKernelTable& k, tensor::DType dt) {
  return dt == tensor::DType::kLut4R ? k.linear_lut4r_int : dt == tensor::DType::kLut2R ? k.linear_lut2r_int : nullptr;
}

void CheckIntPair(const TensorView& x, const TensorView& w, const TensorView& y) {
  internal::CheckMatrixDType(w, "LinearStaticInt8 w");
  internal::CheckDType(y, tensor::DType::kF32, "LinearStaticInt8 y");
  internal::CheckRank(w, 2, "LinearStaticInt8 w");
  internal::CheckRank(y, 2, "LinearStaticInt8 y");
  GEMMAD_CHECK(w.shape[1] == x.shape[1] && y.shape[0] == x.shape[0] && y.shape[1] == w.shape[0],
               "LinearStaticInt8: x {} w {} y {}", x.shape.ToString(), w.shape.ToString(), y.shape.ToString());
  GEMMAD_CHECK(x.data != y.data, "LinearStaticInt8: y aliases x");
}

// Matrices m < count with integer kernels f[m], activations acts[m] and scales s[m], as one job
// over their concatenated row pairs (matrix m owns pairs [first[m], first[m + 1])).
void RunInt(const ExecContext& ctx, const TensorView& x, size_t count, const float* s, const TensorView* ws,
            const TensorView* ys, const LinearLutIntFn* f, const LutIntActs* acts) {
  const int64_t n = x.shape[0], in = x.shape[1];
  std::array<int64_t, kMaxMany + 1> first{};
  for (size_t m = 0; m < count; ++m) first[m + 1] = first[m] + (ws[m].shape[0] + 1) / 2;
  // Chunks of at least ~64K multiply-adds, even row counts (as Linear's).
  const int64_t min_rows = std::max<int64_t>(2, 65536 / std::max<int64_t>(1, in * n) + 1) & ~int64_t{1};
  ParallelFor(ctx, first[count], min_rows / 2, [&](int64_t ub, int64_t ue) {
    for (size_t m = 0; m < count; ++m) {
      const int64_t lo = std::max(ub, first[m]) - first[m], hi = std::min(ue, first[m + 1]) - first[m];
      if (lo >= hi) continue;
      const int64_t out = ws[m].shape[0];
      f[m](acts[m], n, in, s[m], ws[m].As<const uint8_t>(), 2 * lo, std::min(out, 2 * hi), ys[m].As<float>(), out);
    }
  });
}

}  // namespace

void LinearStaticInt8(const ExecContext& ctx, const TensorView& x, float s, const TensorView& w, const TensorView& y) {
  internal::CheckDType(x, tensor::DType::kF32, "LinearStaticInt8 x");
  internal::CheckRank(x, 2, "LinearStaticInt8 x");
  GEMMAD_CHECK(s > 0.0f && std::isfinite(s), "LinearStaticInt8: scale {}", s);
  const CpuKernelTable& k = CpuKernels();
  const LinearLutIntFn f = IntFn(k, w.dtype);
  const int64_t n = x.shape[0], in = x.shape[1];
  if (f == nullptr) {
    thread_local std::vector<float> q;
    if (q.size() < static_cast<size_t>(n * in)) q.resize(static_cast<size_t>(n * in));
    k.fake_quant_int8(x.As<const float>(), n * in, s, q.data());
    TensorView xq = x;
    xq.data = q.data();
    cpu::Linear(ctx, xq, w, y);
    return;
  }
  CheckIntPair(x, w, y);
  thread_local IntLanes lanes;  // this thread's scratch (the pool's threads read it)
  const LutIntActs acts = lanes.Prepare(x.As<const float>(), n, in, s, tensor::LutBits(w.dtype));
  RunInt(ctx, x, 1, &s, &w, &y, &f, &acts);
}

void LinearStaticInt8Many(const ExecContext& ctx, const TensorView& x, std::span<const float> s,
                          std::span<const TensorView> ws, std::span<const TensorView> ys) {
  internal::CheckDType(x, tensor::DType::kF32, "LinearStaticInt8 x");
  internal::CheckRank(x, 2, "LinearStaticInt8 x");
  GEMMAD_CHECK(ws.size() == ys.size() && ws.size() == s.size() && !ws.empty() && ws.size() <= kMaxMany,
               "LinearStaticInt8Many: {} weights, {} outputs, {} scales", ws.size(), ys.size(), s.size());
  const CpuKernelTable& k = CpuKernels();
  std::array<LinearLutIntFn, kMaxMany> f{};
  bool all_int = true;
  for (size_t m = 0; m < ws.size(); ++m) {
    GEMMAD_CHECK(s[m] > 0.0f && std::isfinite(s[m]), "LinearStaticInt8: scale {}", s[m]);
    f[m] = IntFn(k, ws[m].dtype);
    all_int = all_int && f[m] != nullptr;
  }
  if (!all_int) {
    for (size_t m = 0; m < ws.size(); ++m) cpu::LinearStaticInt8(ctx, x, s[m], ws[m], ys[m]);
    return;
  }
  thread_local std::array<IntLanes, kMaxMany> lanes;
  std::array<LutIntActs, kMaxMany> acts{};
  for (size_t m = 0; m < ws.size(); ++m) {
    CheckIntPair(x, ws[m], ys[m]);
    const int bits = tensor::LutBits(ws[m].dtype);
    size_t same = 0;  // an earlier weight with the same scale and bits shares its activations
    while (same < m && !(s[same] == s[m] && tensor::LutBits(ws[same].dtype) == bits)) ++same;
    acts[m] = same < m ? acts[same] : lanes[m].Prepare(x.As<const float>(), x.shape[0], x.shape[1], s[m], bits);
  }
  RunInt(ctx, x, ws.size(), s.data(), ws.data(), ys.data(), f.data(), acts.data());
}

}  // namespace gemmad::kernels::cpu
