// PagedAttention for one decode row at long contexts (issue 26, item 4): the E2B/E4B full-attention
// shape (8 query heads on one KV head of 512, bf16 cache, 16-token blocks in shuffled physical
// order) and the 31B full layer's (32 heads on 4 KV heads of 512), at 1K-32K keys, 1 and 2
// threads. Reports the KV bytes the step reads per second (K and V of every key).
// gemmad-bench-libs: gemmad_kernels
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "kernels/attention_sequence.h"
#include "kernels/context.h"
#include "kernels/ops.h"
#include "kernels/thread_pool.h"
#include "tensor/half.h"
#include "tensor/tensor_view.h"

namespace {

namespace k = gemmad::kernels;
namespace t = gemmad::tensor;

t::TensorView View(void* p, t::DType dt, t::Shape s) {
  t::TensorView v;
  v.data = p;
  v.dtype = dt;
  v.shape = s;
  return v;
}

// args: keys, heads, kv_heads, threads.
void BM_DecodeAttention(benchmark::State& state) {
  const int64_t keys = state.range(0), heads = state.range(1), kv_heads = state.range(2), d = 512, bs = 16;
  const int threads = static_cast<int>(state.range(3));
  const int64_t blocks = (keys + bs - 1) / bs;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal;
  std::vector<uint16_t> kc(static_cast<size_t>(blocks * bs * kv_heads * d)), vc(kc.size());
  for (auto& x : kc) x = t::FloatToBf16(normal(rng));
  for (auto& x : vc) x = t::FloatToBf16(normal(rng));
  std::vector<int32_t> table(static_cast<size_t>(blocks));
  std::iota(table.begin(), table.end(), 0);
  std::shuffle(table.begin(), table.end(), rng);
  std::vector<float> q(static_cast<size_t>(heads * d)), out(q.size());
  for (auto& x : q) x = normal(rng) * 0.05f;
  k::AttentionSequence seq;
  seq.num_tokens = 1;
  seq.first_kv_index = keys - 1;
  seq.block_table = table.data();
  seq.block_table_size = blocks;
  k::ThreadPool pool(threads);
  k::ExecContext ctx;
  ctx.pool = threads > 1 ? &pool : nullptr;
  const auto kv = t::Shape{blocks, bs, kv_heads, d};
  for (auto _ : state) {
    k::PagedAttention(ctx, View(q.data(), t::DType::kF32, {1, heads, d}), View(kc.data(), t::DType::kBF16, kv),
                      View(vc.data(), t::DType::kBF16, kv), {&seq, 1}, 0, 1.0f,
                      View(out.data(), t::DType::kF32, {1, heads, d}));
    benchmark::DoNotOptimize(out.data());
  }
  state.SetBytesProcessed(state.iterations() * keys * kv_heads * d * 2 * 2);
}

void Args(benchmark::internal::Benchmark* b) {
  for (int64_t keys : {1024, 8192, 32768}) {
    for (int64_t threads : {1, 2}) {
      b->Args({keys, 8, 1, threads});   // E2B / E4B full layers
      b->Args({keys, 32, 4, threads});  // 31B full layers
    }
  }
  b->ArgNames({"keys", "heads", "kv_heads", "threads"})->UseRealTime()->Unit(benchmark::kMicrosecond);
}
BENCHMARK(BM_DecodeAttention)->Apply(Args);

}  // namespace

BENCHMARK_MAIN();
