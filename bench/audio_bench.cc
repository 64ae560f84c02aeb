// The Gemma 4 audio tower (model/gemma4/audio_tower.h) at the real E2B/E4B shape (Da 1024, 12
// conformer blocks, 8 heads of 128, SSCP channels [128, 32], chunk 12 / left 13, clipped linears,
// output_proj 1536, projector to Dt 1536), random f32 weights, one clip per iteration, over a
// ThreadPool of 2 threads (GEMMAD_BENCH_THREADS to change).
//
// Case names: Encode/seconds:<S>/threads:<t>: a clip of S seconds, i.e. F = 100·S − 1 valid
// feature frames (10 s: 999 frames, 250 soft tokens; 30 s: 2999 frames, 750). Counter frames/s.
// Features/clip:<S>s: the Gemma 4 feature extractor (mm/gemma4_audio_features.h, one thread) on
// S seconds of 16 kHz mono samples (a few sines plus a ramp), 128 mels.
// bench/audio_vs_hf.py runs this and transformers side by side. The checkpoint is written once
// under $TMPDIR (GEMMAD_BENCH_DIR to choose; ~1.2 GB).
// gemmad-bench-libs: gemmad_model gemmad_mm
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "e2b_tower_checkpoint.h"
#include "kernels/thread_pool.h"
#include "mm/gemma4_audio_features.h"
#include "model/gemma4/audio_tower.h"

namespace {

namespace g4 = gemmad::model::gemma4;

constexpr int kSeconds[] = {10, 30};

g4::AudioTower& Tower() {
  static std::unique_ptr<g4::AudioTower> tower = [] {
    auto ck = gemmad::bench::E2bTowerCheckpoint(gemmad::bench::Tower::kAudio, "gemmad_audio_bench_e2b_f32");
    auto t = g4::AudioTower::Load(ck.source, *ck.config.audio, ck.config.hidden_size);
    if (!t.ok()) {
      std::fprintf(stderr, "%s\n", t.status().ToString().c_str());
      std::abort();
    }
    return std::move(t).value();
  }();
  return *tower;
}

void BM_Encode(benchmark::State& state, int seconds, int threads) {
  g4::AudioTower& tower = Tower();
  const int64_t frames = 100 * seconds - 1, mels = tower.config().num_mels();
  std::vector<float> feats(static_cast<size_t>(frames * mels));  // log-mel-like values in [-7, 1]
  for (size_t i = 0; i < feats.size(); ++i) feats[i] = static_cast<float>(-3.0 + 4.0 * std::sin(0.013 * static_cast<double>(i)));
  std::vector<float> out(static_cast<size_t>(g4::AudioTower::NumSoftTokens(frames) * tower.text_hidden()));
  gemmad::kernels::ThreadPool pool(threads);
  const gemmad::kernels::ExecContext ctx{&pool};
  for (auto _ : state) {
    gemmad::Status s = tower.Encode(ctx, frames, feats, out);
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
    benchmark::DoNotOptimize(out.data());
  }
  state.counters["frames/s"] = benchmark::Counter(static_cast<double>(frames), benchmark::Counter::kIsIterationInvariantRate);
}

void BM_Features(benchmark::State& state, int seconds) {
  std::vector<float> samples(static_cast<size_t>(16000 * seconds));  // [N] mono at 16 kHz
  for (size_t i = 0; i < samples.size(); ++i) {
    const double t = static_cast<double>(i) / 16000.0;
    samples[i] = static_cast<float>(0.3 * std::sin(2 * M_PI * 220 * t) + 0.2 * std::sin(2 * M_PI * 1330 * t) +
                                    0.05 * std::fmod(t * 7.0, 1.0));
  }
  for (auto _ : state) {
    auto f = gemmad::mm::ExtractGemma4AudioFeatures(samples, 128);
    if (!f.ok()) state.SkipWithError(f.status().ToString().c_str());
    benchmark::DoNotOptimize(f);
  }
}

int Register() {
  const char* env = std::getenv("GEMMAD_BENCH_THREADS");
  const int threads = env ? std::atoi(env) : 2;
  for (int s : kSeconds) {
    benchmark::RegisterBenchmark(("Encode/seconds:" + std::to_string(s) + "/threads:" + std::to_string(threads)).c_str(),
                                 BM_Encode, s, threads)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(s >= 30 ? 1 : 3);
    benchmark::RegisterBenchmark(("Features/clip:" + std::to_string(s) + "s").c_str(), BM_Features, s)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
  }
  return 0;
}
const int kRegistered = Register();

}  // namespace

BENCHMARK_MAIN();
