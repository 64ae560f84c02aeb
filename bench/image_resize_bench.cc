// Gemma 4 image preprocessing: the bicubic antialiased resize of a 12-megapixel photo (4032x3024,
// landscape stored as 3024 rows) to 1200x1600 and to the budget-1120 target 1344x1824, with the
// best row kernels (AVX2 where present) and with the portable ones, and the whole ProcessImage.
// gemmad-bench-libs: gemmad_mm
#include <benchmark/benchmark.h>

#include "base/rng.h"
#include "mm/gemma4_image_processor.h"
#include "mm/resize_bicubic_aa.h"
#include "mm/resize_rows.h"

namespace {

const gemmad::mm::Image& Photo() {
  static const gemmad::mm::Image img = [] {
    gemmad::mm::Image im;
    im.height = 3024;
    im.width = 4032;
    im.rgb.resize(static_cast<size_t>(im.height * im.width * 3));
    gemmad::Rng rng(1);
    for (auto& v : im.rgb) v = static_cast<uint8_t>(rng.Next() >> 56);
    return im;
  }();
  return img;
}

void BM_Resize(benchmark::State& state, bool portable) {
  const auto& kernels = portable ? gemmad::mm::internal::GenericResizeRowKernels()
                                 : gemmad::mm::internal::BestResizeRowKernels();
  for (auto _ : state) {
    auto out = gemmad::mm::internal::ResizeBicubicAntialiasWith(kernels, Photo(), state.range(0), state.range(1));
    benchmark::DoNotOptimize(out);
  }
  state.SetLabel(kernels.name);
}
BENCHMARK_CAPTURE(BM_Resize, best, false)->Args({1200, 1600})->Args({1344, 1824})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Resize, portable, true)->Args({1200, 1600})->Args({1344, 1824})->Unit(benchmark::kMillisecond);

void BM_ProcessImage(benchmark::State& state) {
  for (auto _ : state) {
    auto out = gemmad::mm::ProcessImage(Photo(), state.range(0));
    benchmark::DoNotOptimize(out);
  }
}
BENCHMARK(BM_ProcessImage)->Arg(280)->Arg(1120)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
