// kernels::Linear over weights in the ggml K types GGUF files store (kGgmlQ4_K, kGgmlQ6_K, read
// in place), next to gemmad's own quantized types (kQ8R, kQ4_0) at the same shapes in the same
// run, through the public op (ParallelFor over a ThreadPool of 1 or 2 threads).
//
// Case names: <dtype>/<model>.<tensor>/<out>x<in>/n:<tokens>/threads:<t>/isa:<table>
// Every case is cold: each iteration reads a different copy of the weights, cycling through a set
// of GEMMAD_BENCH_ROTATE_MIB (default 4096) MiB, so weights come from DRAM as in a decode step.
// The K types run under each supported kernel table (generic, avx2, avx512: the fast kernels
// against the portable ones); Q8_R and Q4_0 under the active table.
// Counters: weight_GB/s = bytes of the stored matrix per wall second (1e9 B; Q4_K 144 and Q6_K
// 210 bytes per 256 weights, Q4_0 18 per 32, Q8_R in + 4 per row); tok_rows/s = n·out per wall
// second (the batched figure).
// Shapes (out = rows, in = columns; K types need in = 256·k): Gemma 3 270M's K-type matrices
// (the Q4_K_M file: attn_output [640, 1024] Q4_K, ffn_down [640, 2048] Q4_K / Q6_K) and Gemma 4
// E2B's (/work/shared/spec/text-model.md §9: q [2048, 1536], gate/up [6144, 1536], down [1536,
// 6144], tied LM head [262144, 1536]).
// Weights: Q8_R / Q4_0 quantized from small pseudo-random bf16 values; the K types random payload
// bytes with finite f16 scales (every code path of the decode is data-independent).
// gemmad-bench-libs: gemmad_kernels
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/ops.h"
#include "kernels/registry.h"
#include "kernels/thread_pool.h"
#include "tensor/half.h"

namespace {

namespace k = gemmad::kernels;
namespace t = gemmad::tensor;

struct Shape {
  const char* name;
  int64_t out, in;
};
constexpr Shape kShapes[] = {
    {"g3_270m.o_proj", 640, 1024},   {"g3_270m.down", 640, 2048}, {"e2b.q_sliding", 2048, 1536},
    {"e2b.gate_up", 6144, 1536},     {"e2b.down", 1536, 6144},    {"e2b.lm_head", 262144, 1536},
};

size_t RotateBytes() {
  const char* env = std::getenv("GEMMAD_BENCH_ROTATE_MIB");
  return static_cast<size_t>(env != nullptr ? std::atoll(env) : 4096) << 20;
}

k::ThreadPool& Pool(int threads) {
  static k::ThreadPool p1(1), p2(2);
  return threads == 1 ? p1 : p2;
}

uint64_t Next(uint64_t& s) {
  s = s * 6364136223846793005ull + 1442695040888963407ull;
  return s >> 33;
}

// One matrix of `dtype` [out, in] in its stored form.
std::vector<uint8_t> MakeMatrix(const Shape& shape, t::DType dtype) {
  t::TensorView q{nullptr, dtype, {shape.out, shape.in}};
  std::vector<uint8_t> m(q.SizeBytes());
  uint64_t s = 0x9e3779b97f4a7c15ull;
  if (dtype == t::DType::kQ8R || dtype == t::DType::kQ4_0) {
    std::vector<uint16_t> bf(static_cast<size_t>(shape.out * shape.in));
    for (auto& v : bf) {
      const float f = (static_cast<float>(Next(s) % 65536) / 65536.0f - 0.5f) / 16.0f;
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      v = static_cast<uint16_t>(bits >> 16);
    }
    q.data = m.data();
    k::QuantizeWeights(k::ExecContext{&Pool(2)}, t::TensorView{bf.data(), t::DType::kBF16, {shape.out, shape.in}}, q);
    return m;
  }
  for (auto& b : m) b = static_cast<uint8_t>(Next(s));
  const bool q4k = dtype == t::DType::kGgmlQ4_K;
  const size_t block = q4k ? 144 : 210;
  for (size_t at = 0; at < m.size(); at += block) {
    const uint16_t h = t::FloatToF16(0.001f * static_cast<float>(1 + Next(s) % 9));
    std::memcpy(m.data() + at + (q4k ? 0 : 208), &h, 2);
    if (q4k) std::memcpy(m.data() + at + 2, &h, 2);
  }
  return m;
}

void BM_Ggml(benchmark::State& state, Shape shape, t::DType dtype, int64_t n, int threads,
             const k::CpuKernelTable* table) {
  k::SetCpuKernelsForTesting(table);
  const std::vector<uint8_t> one = MakeMatrix(shape, dtype);
  const size_t bytes = one.size();
  static std::vector<uint8_t>* rotation = new std::vector<uint8_t>();
  const size_t copies = std::max<size_t>(1, RotateBytes() / bytes);
  rotation->resize(copies * bytes);
  for (size_t c = 0; c < copies; ++c) std::memcpy(rotation->data() + c * bytes, one.data(), bytes);
  std::vector<float> x(static_cast<size_t>(n * shape.in)), y(static_cast<size_t>(n * shape.out));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 97) - 48) / 64.0f;
  k::ExecContext ctx{&Pool(threads)};
  const t::TensorView xv{x.data(), t::DType::kF32, {n, shape.in}};
  const t::TensorView yv{y.data(), t::DType::kF32, {n, shape.out}};
  size_t copy = 0;
  for (auto _ : state) {
    const t::TensorView wv{rotation->data() + copy * bytes, dtype, {shape.out, shape.in}};
    k::Linear(ctx, xv, wv, yv);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
    if (++copy == copies) copy = 0;
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["weight_GB/s"] = benchmark::Counter(static_cast<double>(bytes) * iters / 1e9, benchmark::Counter::kIsRate);
  state.counters["tok_rows/s"] =
      benchmark::Counter(static_cast<double>(n * shape.out) * iters, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(k::CpuKernels().name));
  k::SetCpuKernelsForTesting(nullptr);
}

int RegisterAll() {
  for (const Shape& s : kShapes) {
    for (int64_t n : {1, 16}) {
      for (int threads : {1, 2}) {
        for (t::DType dtype : {t::DType::kQ8R, t::DType::kQ4_0, t::DType::kGgmlQ4_K, t::DType::kGgmlQ6_K}) {
          const bool k_type = dtype == t::DType::kGgmlQ4_K || dtype == t::DType::kGgmlQ6_K;
          std::vector<const k::CpuKernelTable*> tables{nullptr};
          if (k_type) tables = k::SupportedCpuKernelTables();
          for (const k::CpuKernelTable* table : tables) {
            const std::string isa = table != nullptr ? std::string(table->name) : "active";
            const std::string name = std::string(t::DTypeName(dtype)) + "/" + s.name + "/" + std::to_string(s.out) +
                                     "x" + std::to_string(s.in) + "/n:" + std::to_string(n) +
                                     "/threads:" + std::to_string(threads) + "/isa:" + isa;
            benchmark::RegisterBenchmark(name.c_str(), BM_Ggml, s, dtype, n, threads, table)
                ->UseRealTime()
                ->MinTime(0.3)
                ->Unit(benchmark::kMicrosecond);
          }
        }
      }
    }
  }
  return 0;
}
const int kRegistered = RegisterAll();

}  // namespace

BENCHMARK_MAIN();
