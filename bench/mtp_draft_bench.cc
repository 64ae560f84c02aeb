// One MTP draft step (model/gemma4/assistant.h) of a Gemma 4 assistant at real shapes, with the
// target's donor K/V in a bf16 paged cache of `ctx` tokens: what speculative decoding adds per
// drafted token, to compare with a target decode step (`gemmad bench latency` on the same target).
//
// Usage: GEMMAD_BENCH_TARGET=DIR GEMMAD_BENCH_ASSISTANT=DIR bench_mtp_draft
//   DIR: a target checkpoint (config.json is enough) and its assistant, e.g. /work/perf/e2b and
//   `gemmad make-test-model /work/perf/e2b-assistant --assistant-for /work/perf/e2b` (the released
//   E2B assistant's shapes: hidden 256, 4 layers, 4 heads, FFN 2048, 2048 centroids / top 32).
// Case names: MtpDraftStep/ctx:<tokens>/threads:<t>.
// gemmad-bench-libs: gemmad_model gemmad_kernels
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <vector>

#include "base/rng.h"
#include "kernels/thread_pool.h"
#include "model/gemma4/assistant.h"
#include "model/open_weight_source.h"
#include "tensor/half.h"

namespace {

namespace g4 = gemmad::model::gemma4;
namespace t = gemmad::tensor;

struct Setup {
  g4::Config target;
  std::unique_ptr<g4::Assistant> assistant;
};

Setup* Load() {
  static Setup* s = [] {
    const char* target = std::getenv("GEMMAD_BENCH_TARGET");
    const char* assistant = std::getenv("GEMMAD_BENCH_ASSISTANT");
    if (!target || !assistant) return static_cast<Setup*>(nullptr);
    auto cfg = g4::LoadConfig(target);
    auto src = gemmad::model::OpenWeightSource(assistant);
    if (!cfg.ok() || !src.ok()) return static_cast<Setup*>(nullptr);
    auto a = g4::Assistant::Load(std::shared_ptr<const gemmad::model::WeightSource>(std::move(*src)), *cfg);
    if (!a.ok()) {
      std::fprintf(stderr, "%s\n", a.status().ToString().c_str());
      return static_cast<Setup*>(nullptr);
    }
    return new Setup{*cfg, std::move(*a)};
  }();
  return s;
}

void BM_MtpDraftStep(benchmark::State& state) {
  Setup* s = Load();
  if (s == nullptr) {
    state.SkipWithError("set GEMMAD_BENCH_TARGET and GEMMAD_BENCH_ASSISTANT (see the file's comment)");
    return;
  }
  const int64_t ctx = state.range(0), bs = 16, blocks = (ctx + bs - 1) / bs;
  gemmad::kernels::ThreadPool pool(static_cast<int>(state.range(1)));
  gemmad::kernels::ExecContext exec{&pool, nullptr};
  gemmad::Rng rng(1);
  struct Cache {
    std::vector<uint16_t> k, v;
    std::vector<int32_t> table;
    g4::DonorKv kv;
  };
  Cache caches[2];
  for (int type = 0; type < 2; ++type) {
    const bool sliding = type == 0;
    const int64_t nkv = sliding ? s->target.num_key_value_heads
                                : (s->target.attention_k_eq_v ? s->target.num_global_key_value_heads
                                                              : s->target.num_key_value_heads);
    const int64_t d = sliding ? s->target.head_dim : s->target.global_head_dim;
    Cache& c = caches[type];
    c.k.resize(static_cast<size_t>(blocks * bs * nkv * d));
    c.v.resize(c.k.size());
    for (auto& x : c.k) x = t::FloatToBf16(static_cast<float>(rng.Uniform(-1, 1)));
    for (auto& x : c.v) x = t::FloatToBf16(static_cast<float>(rng.Uniform(-1, 1)));
    for (int64_t b = 0; b < blocks; ++b) c.table.push_back(static_cast<int32_t>(b));
    c.kv.k_cache = {c.k.data(), t::DType::kBF16, t::Shape{blocks, bs, nkv, d}};
    c.kv.v_cache = {c.v.data(), t::DType::kBF16, t::Shape{blocks, bs, nkv, d}};
    c.kv.block_table = c.table.data();
    c.kv.block_table_size = blocks;
    c.kv.last_key = ctx - 1;
    c.kv.window = sliding ? s->target.sliding_window + 1 : 0;
  }
  const int64_t Hb = s->target.hidden_size;
  std::vector<float> e(static_cast<size_t>(Hb)), b(static_cast<size_t>(Hb));
  for (auto& x : e) x = static_cast<float>(rng.Uniform(-1, 1));
  for (auto& x : b) x = static_cast<float>(rng.Uniform(-3, 3));
  g4::DraftStepResult out;
  for (auto _ : state) {
    auto st = s->assistant->DraftStep(exec, e, b, ctx, caches[0].kv, caches[1].kv, &out);
    if (!st.ok()) state.SkipWithError(st.ToString().c_str());
    benchmark::DoNotOptimize(out.token);
  }
}

BENCHMARK(BM_MtpDraftStep)
    ->ArgNames({"ctx", "threads"})
    ->ArgsProduct({{512, 4096}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
