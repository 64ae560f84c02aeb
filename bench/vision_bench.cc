// The Gemma 4 vision tower (model/gemma4/vision_tower.h) at the real E2B/E4B shape (Dv 768, 16
// layers, 12 heads of 64, I 3072, clipped linears, projector to Dt 1536), random f32 weights, one
// image per iteration, over a ThreadPool of 2 threads (GEMMAD_BENCH_THREADS to change).
//
// Case names: Encode/budget:<B>/threads:<t>. The image is a 480x640 photo as the image processor
// sizes it (multimodal.md §2.3): B 70 -> 21x27 patches (63 soft tokens), 280 -> 42x57 (266),
// 1120 -> 84x114 (1064). Counter patches/s. bench/vision_vs_hf.py runs this and transformers side
// by side. The checkpoint is written once under $TMPDIR (GEMMAD_BENCH_DIR to choose; ~0.7 GB).
// gemmad-bench-libs: gemmad_model
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "e2b_tower_checkpoint.h"
#include "kernels/thread_pool.h"
#include "model/gemma4/vision_tower.h"

namespace {

namespace g4 = gemmad::model::gemma4;

struct Grid {
  int budget;
  int64_t gh, gw;
};
constexpr Grid kGrids[] = {{70, 21, 27}, {280, 42, 57}, {1120, 84, 114}};

g4::VisionTower& Tower() {
  static std::unique_ptr<g4::VisionTower> tower = [] {
    auto ck = gemmad::bench::E2bTowerCheckpoint(gemmad::bench::Tower::kVision, "gemmad_vision_bench_e2b_f32");
    auto t = g4::VisionTower::Load(ck.source, *ck.config.vision, ck.config.hidden_size);
    if (!t.ok()) {
      std::fprintf(stderr, "%s\n", t.status().ToString().c_str());
      std::abort();
    }
    return std::move(t).value();
  }();
  return *tower;
}

void BM_Encode(benchmark::State& state, Grid grid, int threads) {
  g4::VisionTower& tower = Tower();
  const int64_t P = grid.gh * grid.gw, p = tower.config().patch_size;
  std::vector<float> pixels(static_cast<size_t>(P * 3 * p * p));
  for (size_t i = 0; i < pixels.size(); ++i) pixels[i] = static_cast<float>((i * 2654435761u) % 256) / 255.0f;
  std::vector<int32_t> pos;
  for (int64_t n = 0; n < P; ++n) {
    pos.push_back(static_cast<int32_t>(n % grid.gw));
    pos.push_back(static_cast<int32_t>(n / grid.gw));
  }
  std::vector<float> out(static_cast<size_t>(tower.NumSoftTokens(grid.gh, grid.gw) * tower.text_hidden()));
  gemmad::kernels::ThreadPool pool(threads);
  const gemmad::kernels::ExecContext ctx{&pool};
  for (auto _ : state) {
    gemmad::Status s = tower.Encode(ctx, grid.gh, grid.gw, pixels, pos, out);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["patches/s"] = benchmark::Counter(static_cast<double>(P), benchmark::Counter::kIsIterationInvariantRate);
}

int Register() {
  const char* env = std::getenv("GEMMAD_BENCH_THREADS");
  const int threads = env ? std::atoi(env) : 2;
  for (const Grid& g : kGrids) {
    benchmark::RegisterBenchmark(("Encode/budget:" + std::to_string(g.budget) + "/threads:" + std::to_string(threads)).c_str(),
                                 BM_Encode, g, threads)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(g.budget >= 1120 ? 1 : 3);
  }
  return 0;
}
const int kRegistered = Register();

}  // namespace

BENCHMARK_MAIN();
