// RMSNorm reference throughput at Gemma 4 hidden sizes (GB/s of activations read+written).
// gemmad-bench-libs: gemmad_kernels
#include <benchmark/benchmark.h>

#include <vector>

#include "kernels/reference/rms_norm.h"

static void BM_RmsNormReference(benchmark::State& state) {
  const int64_t n = state.range(0), rows = 16;
  std::vector<float> x(rows * n, 0.5f), w(n, 1.0f), y(rows * n);
  for (auto _ : state) {
    gemmad::kernels::reference::RmsNorm(x.data(), w.data(), y.data(), rows, n, 1e-6f);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetBytesProcessed(state.iterations() * rows * n * 8);
}
BENCHMARK(BM_RmsNormReference)->Arg(1536)->Arg(2560)->Arg(2816)->Arg(5376);
BENCHMARK_MAIN();
