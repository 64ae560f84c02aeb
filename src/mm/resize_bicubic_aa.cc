// Bicubic antialiased uint8 resize, bit-exact with torch's CPU path (see the header). The weight
// table follows HelperInterpBase::_compute_indices_min_size_weights_aa and
// _compute_index_ranges_int16_weights (aten/src/ATen/native/cpu/UpSampleKernel.cpp); the
// convolution (resize_rows.h) follows the integer arithmetic of UpSampleKernelAVXAntialias.h (int32
// accumulator starting at 2^(p-1), arithmetic shift by p, saturation to uint8), whose sum is exact,
// so the order of the taps does not matter.
#include "mm/resize_bicubic_aa.h"

#include "mm/resize_rows.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>

// The weights must round exactly like torch's float64 code: no fused multiply-add contraction.
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

namespace gemmad::mm {
namespace {

// Keys cubic convolution with a = -0.5 (torch's HelperInterpCubic::aa_filter with antialias),
// written with torch's operation order (cubic_convolution1/2 in ATen/native/UpSample.h).
double CubicAa(double x) {
  constexpr double a = -0.5;
  x = std::abs(x);
  if (x < 1.0) return ((a + 2) * x - (a + 3)) * x * x + 1;
  if (x < 2.0) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a;
  return 0.0;
}

Status CheckSide(int64_t v, const char* what) {
  if (v < 1 || v > kMaxResizeSide) {
    return InvalidArgumentError(fmt::format("resize: {} {} is outside [1, {}]", what, v, kMaxResizeSide));
  }
  return OkStatus();
}

struct ResizePlan {
  const internal::ResizeRowKernels* kernels = nullptr;
  const Image* src = nullptr;
  Image* dst = nullptr;
  const BicubicAaAxis* horizontal = nullptr;  // null: width kept
  const BicubicAaAxis* vertical = nullptr;    // null: height kept
};

// Output rows [y0, y1). The horizontally resampled input rows the vertical pass needs are kept in a
// ring of max_count() rows; `first` and `first + count` never decrease along the axis, so a row is
// computed once per range and evicted only when no later output row needs it.
void ResizeRows(const ResizePlan& plan, int64_t y0, int64_t y1) {
  const Image& src = *plan.src;
  Image& dst = *plan.dst;
  const int64_t in_row = src.width * 3;
  const int64_t out_row = dst.width * 3;
  const uint8_t* in = src.rgb.data();
  uint8_t* out = dst.rgb.data();
  if (plan.vertical == nullptr) {  // width only
    for (int64_t y = y0; y < y1; ++y) plan.kernels->horizontal(*plan.horizontal, in + y * in_row, out + y * out_row);
    return;
  }
  const BicubicAaAxis& v = *plan.vertical;
  const int64_t cap = std::max<int64_t>(v.max_count(), 1);
  std::vector<uint8_t> ring(plan.horizontal != nullptr ? static_cast<size_t>(cap * out_row) : 0);
  std::vector<const uint8_t*> rows(static_cast<size_t>(cap));
  int64_t computed_end = 0;  // rows [.., computed_end) of the intermediate are in the ring
  for (int64_t y = y0; y < y1; ++y) {
    const int64_t s = v.first[y];
    const int64_t n = v.count[y];
    for (int64_t j = 0; j < n; ++j) {
      const int64_t r = s + j;
      if (plan.horizontal == nullptr) {
        rows[j] = in + r * in_row;
        continue;
      }
      uint8_t* slot = ring.data() + (r % cap) * out_row;
      if (r >= computed_end) {
        plan.kernels->horizontal(*plan.horizontal, in + r * in_row, slot);
        computed_end = r + 1;
      }
      rows[j] = slot;
    }
    plan.kernels->vertical(rows.data(), v.weights.data() + y * v.taps, n, v.precision, out_row, out + y * out_row);
  }
}

}  // namespace

int64_t BicubicAaAxis::max_count() const {
  int64_t m = 0;
  for (int64_t c : count) m = std::max(m, c);
  return m;
}

Result<BicubicAaAxis> ComputeBicubicAaAxis(int64_t in_len, int64_t out_len) {
  GEMMAD_RETURN_IF_ERROR(CheckSide(in_len, "input length"));
  GEMMAD_RETURN_IF_ERROR(CheckSide(out_len, "output length"));
  BicubicAaAxis ax;
  ax.in_len = in_len;
  ax.out_len = out_len;
  // area_pixel_compute_scale (align_corners false, no scale factor) and the antialias support.
  const double scale = static_cast<double>(in_len) / static_cast<double>(out_len);
  constexpr int kInterpSize = 4;  // bicubic
  const double support = scale >= 1.0 ? (kInterpSize * 0.5) * scale : kInterpSize * 0.5;
  ax.taps = static_cast<int64_t>(std::ceil(support)) * 2 + 1;
  const double invscale = scale >= 1.0 ? 1.0 / scale : 1.0;
  ax.first.resize(static_cast<size_t>(out_len));
  ax.count.resize(static_cast<size_t>(out_len));
  std::vector<double> wf(static_cast<size_t>(out_len * ax.taps), 0.0);
  double wt_max = 0.0;
  for (int64_t i = 0; i < out_len; ++i) {
    const double center = scale * (static_cast<double>(i) + 0.5);
    const int64_t xmin = std::max(static_cast<int64_t>(center - support + 0.5), int64_t{0});
    const int64_t xsize =
        std::clamp(std::min(static_cast<int64_t>(center + support + 0.5), in_len) - xmin, int64_t{0}, ax.taps);
    double* w = wf.data() + i * ax.taps;
    double total = 0.0;
    for (int64_t j = 0; j < xsize; ++j) {
      w[j] = CubicAa((static_cast<double>(j + xmin) - center + 0.5) * invscale);
      total += w[j];
    }
    if (total != 0.0) {
      for (int64_t j = 0; j < xsize; ++j) {
        w[j] /= total;
        wt_max = std::max(wt_max, w[j]);
      }
    }
    ax.first[i] = xmin;
    ax.count[i] = xsize;
  }
  // The largest precision p (< 22) at which 2 * wt_max still fits int16 once scaled by 2^p.
  int p = 0;
  for (; p < 22; ++p) {
    const int next = static_cast<int>(0.5 + wt_max * static_cast<double>(1 << (p + 1)));
    if (next >= (1 << 15)) break;
  }
  if (p < 1) return InternalError(fmt::format("resize: weight precision {} for {} -> {}", p, in_len, out_len));
  ax.precision = p;
  ax.weights.resize(wf.size());
  for (size_t k = 0; k < wf.size(); ++k) {
    const double v = wf[k] * static_cast<double>(1 << p);
    ax.weights[k] = static_cast<int16_t>(v < 0 ? static_cast<int>(-0.5 + v) : static_cast<int>(0.5 + v));
  }
  return ax;
}

Result<Image> ResizeBicubicAntialias(const Image& src, int64_t out_height, int64_t out_width,
                                     const ParallelFor& parallel) {
  return internal::ResizeBicubicAntialiasWith(internal::BestResizeRowKernels(), src, out_height, out_width, parallel);
}

Result<Image> internal::ResizeBicubicAntialiasWith(const ResizeRowKernels& kernels, const Image& src,
                                                   int64_t out_height, int64_t out_width,
                                                   const ParallelFor& parallel) {
  GEMMAD_RETURN_IF_ERROR(CheckSide(src.height, "input height"));
  GEMMAD_RETURN_IF_ERROR(CheckSide(src.width, "input width"));
  if (src.rgb.size() != static_cast<size_t>(src.height * src.width * 3)) {
    return InvalidArgumentError(fmt::format("resize: a {}x{} RGB image needs {} bytes, got {}", src.height,
                                            src.width, src.height * src.width * 3, src.rgb.size()));
  }
  GEMMAD_RETURN_IF_ERROR(CheckSide(out_height, "output height"));
  GEMMAD_RETURN_IF_ERROR(CheckSide(out_width, "output width"));
  if (out_height * out_width > kMaxResizeOutputPixels) {
    return InvalidArgumentError(fmt::format("resize: output {}x{} exceeds {} pixels", out_height, out_width,
                                            kMaxResizeOutputPixels));
  }
  if (out_height == src.height && out_width == src.width) return src;

  BicubicAaAxis horizontal, vertical;
  ResizePlan plan;
  if (out_width != src.width) {
    GEMMAD_ASSIGN_OR_RETURN(horizontal, ComputeBicubicAaAxis(src.width, out_width));
    plan.horizontal = &horizontal;
  }
  if (out_height != src.height) {
    GEMMAD_ASSIGN_OR_RETURN(vertical, ComputeBicubicAaAxis(src.height, out_height));
    plan.vertical = &vertical;
  }
  Image dst;
  dst.height = out_height;
  dst.width = out_width;
  dst.rgb.resize(static_cast<size_t>(out_height * out_width * 3));
  plan.kernels = &kernels;
  plan.src = &src;
  plan.dst = &dst;
  auto body = [&plan](int64_t begin, int64_t end) { ResizeRows(plan, begin, end); };
  if (parallel) {
    parallel(out_height, body);
  } else {
    body(0, out_height);
  }
  return dst;
}

}  // namespace gemmad::mm
