// Engine-side costs per step, as ratios to a plain argmax over the same vocabulary (the
// baseline, measured in the same run): the sampling pipeline per token at Gemma 4's vocabulary
// (262,144) and a scheduler step (Schedule + Update) for many decoding sequences.
// gemmad-bench-libs: gemmad_sample gemmad_sched
#include <benchmark/benchmark.h>

#include <vector>

#include "base/rng.h"
#include "sample/logits_ops.h"
#include "sample/sequence_sampler.h"
#include "sched/scheduler.h"

namespace gemmad {
namespace {

constexpr int32_t kVocab = 262144;

const std::vector<float>& Logits() {
  static const std::vector<float> logits = [] {
    Rng rng(1);
    std::vector<float> l(kVocab);
    for (auto& x : l) x = static_cast<float>(3.0 * rng.Normal());
    return l;
  }();
  return logits;
}

void BM_ArgMaxBaseline(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(sample::ArgMax(Logits()));
}
BENCHMARK(BM_ArgMaxBaseline);

void RunSampler(benchmark::State& state, sample::SamplingParams p) {
  sample::SequenceSampler sampler(p, 7, std::vector<int32_t>{1, 2, 3}, 1, kVocab, nullptr);
  std::vector<float> row;
  for (auto _ : state) {
    state.PauseTiming();
    row = Logits();
    state.ResumeTiming();
    benchmark::DoNotOptimize(sampler.Sample(row));
  }
}

void BM_SampleGreedy(benchmark::State& state) {
  sample::SamplingParams p;
  p.temperature = 0.0f;
  RunSampler(state, p);
}
BENCHMARK(BM_SampleGreedy);

void BM_SampleGreedyLogprobs5(benchmark::State& state) {
  sample::SamplingParams p;
  p.temperature = 0.0f;
  p.logprobs = 5;
  RunSampler(state, p);
}
BENCHMARK(BM_SampleGreedyLogprobs5);

void BM_SampleTemperature(benchmark::State& state) {
  sample::SamplingParams p;
  p.temperature = 0.8f;
  RunSampler(state, p);
}
BENCHMARK(BM_SampleTemperature);

void BM_SampleTopP095(benchmark::State& state) {
  sample::SamplingParams p;
  p.temperature = 0.8f;
  p.top_p = 0.95f;
  RunSampler(state, p);
}
BENCHMARK(BM_SampleTopP095);

void BM_SampleTopK64PenaltiesMinP(benchmark::State& state) {
  sample::SamplingParams p;
  p.temperature = 1.0f;
  p.top_k = 64;
  p.min_p = 0.05f;
  p.repetition_penalty = 1.1f;
  p.presence_penalty = 0.5f;
  RunSampler(state, p);
}
BENCHMARK(BM_SampleTopK64PenaltiesMinP);

// One decode step (Schedule + Update) with `n` running sequences, prefix caching on.
void BM_SchedulerDecodeStep(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  constexpr int kSteps = 64;
  kv::KvCacheConfig kv;
  kv.block_size = 16;
  kv.groups.push_back({"sliding", kv::KvGroupKind::kSliding, 512, n * 40 + 1, 1});
  kv.groups.push_back({"full", kv::KvGroupKind::kFull, 0, n * 40 + 1, 1});
  for (auto _ : state) {
    state.PauseTiming();
    sched::Scheduler s({n, 8192, 4096}, kv);
    for (int i = 0; i < n; ++i) {
      sched::SequenceSpec spec;
      spec.id = static_cast<kv::SeqId>(i + 1);
      spec.prompt_token_ids.assign(500, 7);
      spec.prompt_token_ids[0] = i;  // distinct prompts
      spec.params.max_tokens = 1000;
      s.Add(spec);
    }
    while (s.num_waiting() > 0 || s.Find(static_cast<kv::SeqId>(n))->num_output_tokens() == 0) {  // prefill all
      auto out = s.Schedule();
      std::vector<std::vector<int32_t>> sampled(out.seqs.size());
      for (size_t k = 0; k < out.seqs.size(); ++k) {
        if (out.seqs[k].sample) sampled[k] = {5};
      }
      s.Update(out, sampled);
    }
    state.ResumeTiming();
    for (int step = 0; step < kSteps; ++step) {
      auto out = s.Schedule();
      std::vector<std::vector<int32_t>> sampled(out.seqs.size(), std::vector<int32_t>{5});
      benchmark::DoNotOptimize(s.Update(out, sampled));
    }
  }
  state.SetItemsProcessed(state.iterations() * kSteps);
}
BENCHMARK(BM_SchedulerDecodeStep)->Arg(16)->Arg(256)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace gemmad
BENCHMARK_MAIN();
