// kernels::Linear (y = x·wᵀ, bf16 weights, f32 activations) at the real Gemma 4 decode shapes,
// through the public op (view checks, ParallelFor over a ThreadPool of 1 or 2 threads, the
// active CPU kernel table), so the figures are what a decode step gets.
//
// Case names: Linear/<model>.<tensor>/<out>x<in>/n:<tokens>/threads:<t>/<cold|hot>
//   cold  every iteration reads a different copy of the weights, cycling through a set of
//         4 GiB (GEMMAD_BENCH_ROTATE_MIB; 8x this host's 480 MiB L3), so weights come from DRAM
//         as in a decode step (each matrix is read once per step and ~4.5 GB of others pass
//         before it comes back);
//   hot   the same copy every iteration: the matrix stays in L2/L3 when it fits, which shows
//         the kernel's in-cache ceiling (batch 1 only).
// Counters: weight_GB/s = weight bytes (out·in·2) per wall second, 1e9 B; GFLOP/s = 2·n·out·in
// per wall second. Compare with bench_roofline (read_GB/s at 4096 MiB, FmaPeak) from the same
// session; docs/cpu-performance.md has the table.
//
// Shapes (out = rows of w, in = columns), all from /work/shared/spec/text-model.md:
//   §9 "Concrete shapes" table: q/k/v/o sliding and full, mlp gate/up/down for E2B (H 1536,
//     I 6144 in layers 0-14, 12288 in the double-wide KV-shared layers 15-34), E4B (H 2560,
//     I 10240), 31B (H 5376, I 21504; sliding q/k/v/o, one matrix at a time), 26B-A4B dense
//     branch (I 2112) and one expert: experts.gate_up_proj[e] [2·Ie = 1408, 2816] and
//     experts.down_proj[e] [2816, Ie = 704] (§8, §9);
//   §7 / §9 PLE: per_layer_input_gate [P = 256, H], per_layer_projection [H, 256],
//     per_layer_model_projection [L·P = 8960, 1536] (E2B);
//   §3/§10: tied LM head = embed_tokens [V = 262144, H] (E2B 1536, E4B 2560, 31B 5376).
// Quantized weights (--quantization): LinearQ8_R/... and LinearQ4_0/... run the same shapes with
// the weights quantized once and copied through the rotation set (cold only); weight_GB/s then
// counts the quantized bytes (in + 4 per row for Q8_R, 18 per 32 weights for Q4_0 and Q4_0x16, the
// same blocks with rows in groups of 16, run where the active table reads them). LinearF8R/...
// (n 1, 5, 16) runs random compressed-tensors FP8 rows (in + 4 bytes), cold; a small
// GEMMAD_BENCH_ROTATE_MIB makes them hot. LinearLUT4_R/... and LinearLUT2_R/... the same with
// code-table rows (tensor/lut_rows.h: 64 + in / 2 or in / 4 bytes, the mobile QAT Linears), and
// LinearLUT4_R_int8/... LinearLUT2_R_int8/... through LinearStaticInt8 (int8 activations, as the
// mobile Linears run); LinearI8B_R/... int8 rows whose weights are bf16(q·s) (tensor/i8b_rows.h: the
// mobile PLE gates, 4 + in bytes a row).
// Run a subset with --benchmark_filter, e.g. 'e2b\.' or 'n:1/threads:2/cold'.
// Kernel tables: by default the active one (GEMMAD_CPU_ISA forces it). GEMMAD_BENCH_ISAS=avx2,avx512
// runs every case once per listed table, interleaved (case names end /isa:<name>), so tables are
// compared in the same session.
// gemmad-bench-libs: gemmad_kernels
#include <benchmark/benchmark.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kernels/ops.h"
#include "kernels/registry.h"
#include "kernels/thread_pool.h"
#include "tensor/half.h"
#include "tensor/lut_rows.h"

namespace {

namespace k = gemmad::kernels;
namespace t = gemmad::tensor;

struct LinearShape {
  const char* name;
  int64_t out, in;
};

// Grouped by model; the order keeps the weight buffer growing monotonically (largest last).
constexpr LinearShape kShapes[] = {
    // E2B, H = 1536, 8 heads, 1 KV head, head_dim 256 (sliding) / 512 (full).
    {"e2b.q_sliding", 2048, 1536},
    {"e2b.q_full", 4096, 1536},
    {"e2b.kv_sliding", 256, 1536},
    {"e2b.kv_full", 512, 1536},
    {"e2b.o_sliding", 1536, 2048},
    {"e2b.o_full", 1536, 4096},
    {"e2b.gate_up", 6144, 1536},
    {"e2b.down", 1536, 6144},
    {"e2b.gate_up_2x", 12288, 1536},
    {"e2b.down_2x", 1536, 12288},
    {"e2b.ple_gate", 256, 1536},
    {"e2b.ple_proj", 1536, 256},
    {"e2b.ple_model_proj", 8960, 1536},
    // E4B, H = 2560, 2 KV heads.
    {"e4b.q_sliding", 2048, 2560},
    {"e4b.q_full", 4096, 2560},
    {"e4b.kv_sliding", 512, 2560},
    {"e4b.kv_full", 1024, 2560},
    {"e4b.o_sliding", 2560, 2048},
    {"e4b.o_full", 2560, 4096},
    {"e4b.gate_up", 10240, 2560},
    {"e4b.down", 2560, 10240},
    // 26B-A4B, H = 2816: dense branch and one routed expert (8 of 128 run per token).
    {"26b.dense_gate_up", 2112, 2816},
    {"26b.dense_down", 2816, 2112},
    {"26b.expert_gate_up", 1408, 2816},
    {"26b.expert_down", 2816, 704},
    // 31B, H = 5376, 32 heads, 16 KV heads (sliding).
    {"31b.q_sliding", 8192, 5376},
    {"31b.kv_sliding", 4096, 5376},
    {"31b.o_sliding", 5376, 8192},
    {"31b.gate_up", 21504, 5376},
    {"31b.down", 5376, 21504},
    // Tied LM heads (the biggest single reads of a decode step).
    {"e2b.lm_head", 262144, 1536},
    {"e4b.lm_head", 262144, 2560},
    {"31b.lm_head", 262144, 5376},
};

// Size of the cold rotation set: GEMMAD_BENCH_ROTATE_MIB, default 4096 (about one E2B decode
// step's worth of weights, 8x the L3, so almost nothing survives in cache between two reads).
size_t RotateBytes() {
  const char* env = std::getenv("GEMMAD_BENCH_ROTATE_MIB");
  return static_cast<size_t>(env != nullptr ? std::atoll(env) : 4096) << 20;
}

bool HugePages() {
  const char* env = std::getenv("GEMMAD_BENCH_HUGE");
  return env != nullptr && std::string(env) == "1";
}

k::ThreadPool& Pool(int threads) {
  static k::ThreadPool p1(1), p2(2);
  return threads == 1 ? p1 : p2;
}

// One bf16 buffer shared by all cases, grown on demand and filled with small pseudo-random
// values (bf16 of uniform [-1/32, 1/32)), so every page is real and no value is denormal.
struct WeightBuffer {
  uint16_t* data = nullptr;
  size_t bytes = 0;
  bool holds_bf16 = false;  // false after a quantized case copied its matrices over the values
};
WeightBuffer& Weights(size_t bytes) {
  static WeightBuffer buf;
  if (buf.bytes < bytes) {
    std::free(buf.data);
    // GEMMAD_BENCH_HUGE=1: 2 MiB aligned and madvise(MADV_HUGEPAGE)d before the first touch, as
    // bench_roofline's huge:1 buffer and as the model's weight mappings ask (io/mmap_file.h).
    const bool huge = HugePages();
    const size_t align = huge ? size_t{2} << 20 : 4096;
    bytes = (bytes + align - 1) / align * align;
    buf.data = static_cast<uint16_t*>(std::aligned_alloc(align, bytes));
    if (huge) ::madvise(buf.data, bytes, MADV_HUGEPAGE);
    buf.bytes = bytes;
    buf.holds_bf16 = false;
  }
  if (!buf.holds_bf16) {
    uint64_t s = 0x9e3779b97f4a7c15ull;
    const size_t n = buf.bytes / 2;
    for (size_t i = 0; i < n; ++i) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      float f = (static_cast<float>(s >> 40) / 16777216.0f - 0.5f) / 16.0f;
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      buf.data[i] = static_cast<uint16_t>(bits >> 16);
    }
    buf.holds_bf16 = true;
  }
  return buf;
}

void BM_Linear(benchmark::State& state, LinearShape shape, int64_t n, int threads, bool cold,
               const k::CpuKernelTable* table) {
  k::SetCpuKernelsForTesting(table);  // nullptr: the automatic choice
  const size_t w_bytes = static_cast<size_t>(shape.out * shape.in) * 2;
  WeightBuffer& wb = Weights(std::max(RotateBytes(), w_bytes));
  const size_t copies = cold ? wb.bytes / w_bytes : 1;
  std::vector<float> x(static_cast<size_t>(n * shape.in)), y(static_cast<size_t>(n * shape.out));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 97) - 48) / 64.0f;
  k::ExecContext ctx{&Pool(threads)};
  t::TensorView xv{x.data(), t::DType::kF32, {n, shape.in}};
  t::TensorView yv{y.data(), t::DType::kF32, {n, shape.out}};
  size_t copy = 0;
  for (auto _ : state) {
    t::TensorView wv{wb.data + copy * (w_bytes / 2), t::DType::kBF16, {shape.out, shape.in}};
    k::Linear(ctx, xv, wv, yv);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
    if (++copy == copies) copy = 0;
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["weight_GB/s"] =
      benchmark::Counter(static_cast<double>(w_bytes) * iters / 1e9, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * static_cast<double>(n * shape.out * shape.in) * iters / 1e9, benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(w_bytes) / 1e6;
  state.SetLabel(std::string(k::CpuKernels().name));
  k::SetCpuKernelsForTesting(nullptr);
}

// The tables named in GEMMAD_BENCH_ISAS (comma-separated), or {nullptr} (the active table).
std::vector<const k::CpuKernelTable*> BenchTables() {
  const char* env = std::getenv("GEMMAD_BENCH_ISAS");
  if (env == nullptr || *env == '\0') return {nullptr};
  std::vector<const k::CpuKernelTable*> out;
  std::string list = env;
  for (size_t b = 0; b <= list.size();) {
    size_t e = list.find(',', b);
    if (e == std::string::npos) e = list.size();
    const std::string want = list.substr(b, e - b);
    const k::CpuKernelTable* found = nullptr;
    for (const auto* t : k::SupportedCpuKernelTables()) {
      if (t->name == want) found = t;
    }
    if (found == nullptr) {
      std::fprintf(stderr, "bench_linear: GEMMAD_BENCH_ISAS names '%s', not a table this CPU supports\n",
                   want.c_str());
      std::exit(2);
    }
    out.push_back(found);
    b = e + 1;
  }
  return out;
}

// Cold rotation over copies of one quantized matrix (quantized from the bf16 buffer's first copy).
void BM_LinearQuant(benchmark::State& state, LinearShape shape, t::DType dtype, int64_t n, int threads) {
  const size_t bf16_bytes = static_cast<size_t>(shape.out * shape.in) * 2;
  WeightBuffer& wb = Weights(std::max(RotateBytes(), bf16_bytes));
  const t::TensorView src{wb.data, t::DType::kBF16, {shape.out, shape.in}};
  t::TensorView q{nullptr, dtype, {shape.out, shape.in}};
  const size_t q_bytes = q.SizeBytes();
  std::vector<uint8_t> one(q_bytes);
  q.data = one.data();
  k::ExecContext ctx{&Pool(threads)};
  k::QuantizeWeights(ctx, src, q);
  // The rotation set: as many copies as fit in the buffer (over the bf16 values; a bf16 case
  // after this one regenerates them).
  auto* base = reinterpret_cast<uint8_t*>(wb.data);
  const size_t copies = std::max<size_t>(1, wb.bytes / q_bytes);
  for (size_t c = 0; c < copies; ++c) std::memcpy(base + c * q_bytes, one.data(), q_bytes);
  wb.holds_bf16 = false;
  std::vector<float> x(static_cast<size_t>(n * shape.in)), y(static_cast<size_t>(n * shape.out));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 97) - 48) / 64.0f;
  t::TensorView xv{x.data(), t::DType::kF32, {n, shape.in}};
  t::TensorView yv{y.data(), t::DType::kF32, {n, shape.out}};
  size_t copy = 0;
  for (auto _ : state) {
    t::TensorView wv{base + copy * q_bytes, dtype, {shape.out, shape.in}};
    k::Linear(ctx, xv, wv, yv);
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
    if (++copy == copies) copy = 0;
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["weight_GB/s"] =
      benchmark::Counter(static_cast<double>(q_bytes) * iters / 1e9, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * static_cast<double>(n * shape.out * shape.in) * iters / 1e9, benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(q_bytes) / 1e6;
  state.SetLabel(std::string(k::CpuKernels().name));
}

// The ggml block types GGUF files store (kGgmlQ8_0, kGgmlQ5_0), read in place: random blocks
// (random payload bytes, f16 scales in [-0.05, 0.05]) copied through the rotation set like
// BM_LinearQuant's; weight_GB/s counts the block bytes (34 / 22 per 32 weights). Also kF8R
// (compressed-tensors FP8: random E4M3 codes, 4 + in bytes a row) and kLut4R / kLut2R (a table of
// 16 small integers times 1/1024, random codes). static_int8 runs kernels::LinearStaticInt8 (the
// input fake-quantized with scale 1/64, mobile QAT's Linears) instead of Linear.
void BM_LinearGgml(benchmark::State& state, LinearShape shape, t::DType dtype, int64_t n, int threads,
                   bool static_int8) {
  t::TensorView wv{nullptr, dtype, {shape.out, shape.in}};
  const size_t q_bytes = wv.SizeBytes();
  WeightBuffer& wb = Weights(std::max(RotateBytes(), q_bytes));
  std::vector<uint8_t> one(q_bytes);
  uint64_t s = 0x2545f4914f6cdd1dull;
  for (auto& b : one) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    b = static_cast<uint8_t>(s >> 56);
  }
  if (dtype == t::DType::kF8R) {
    // Rows of an f32 scale and E4M3 codes (NaN codes 0x7F / 0xFF moved one step down).
    const size_t row_bytes = t::RowBytes(dtype, shape.in);
    for (size_t at = 0; at < q_bytes; at += row_bytes) {
      const float d = 1e-3f;
      std::memcpy(one.data() + at, &d, 4);
      for (size_t i = 4; i < row_bytes; ++i) one[at + i] ^= (one[at + i] & 0x7F) == 0x7F ? 1 : 0;
    }
  } else if (dtype == t::DType::kI8BR) {  // random int8 weights, a bf16 row scale
    const size_t row_bytes = t::RowBytes(dtype, shape.in);
    for (size_t at = 0; at < q_bytes; at += row_bytes) {
      const float d = 1.0f / 1024.0f;
      std::memcpy(one.data() + at, &d, 4);
    }
  } else if (dtype == t::DType::kLut4R || dtype == t::DType::kLut2R) {
    const size_t row_bytes = t::RowBytes(dtype, shape.in);
    t::LutTable table;
    for (int e = 0; e < 16; ++e) table.n[e] = static_cast<int16_t>(e - 8);
    table.unit = 1.0f / 1024.0f;
    const int bits = t::LutBits(dtype);
    for (size_t at = 0; at < q_bytes; at += row_bytes) t::WriteLutHead(table, bits, bits, one.data() + at);
  } else {
    const size_t block_bytes = dtype == t::DType::kGgmlQ8_0 ? 34 : 22;
    for (size_t at = 0; at < q_bytes; at += block_bytes) {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      const uint16_t h = t::FloatToF16((static_cast<float>(s >> 40) / 16777216.0f - 0.5f) / 10.0f);
      std::memcpy(one.data() + at, &h, 2);
    }
  }
  auto* base = reinterpret_cast<uint8_t*>(wb.data);
  const size_t copies = std::max<size_t>(1, wb.bytes / q_bytes);
  for (size_t c = 0; c < copies; ++c) std::memcpy(base + c * q_bytes, one.data(), q_bytes);
  wb.holds_bf16 = false;
  std::vector<float> x(static_cast<size_t>(n * shape.in)), y(static_cast<size_t>(n * shape.out));
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(static_cast<int>(i % 97) - 48) / 64.0f;
  k::ExecContext ctx{&Pool(threads)};
  t::TensorView xv{x.data(), t::DType::kF32, {n, shape.in}};
  t::TensorView yv{y.data(), t::DType::kF32, {n, shape.out}};
  size_t copy = 0;
  for (auto _ : state) {
    wv.data = base + copy * q_bytes;
    if (static_int8) {
      k::LinearStaticInt8(ctx, xv, 1.0f / 64.0f, wv, yv);
    } else {
      k::Linear(ctx, xv, wv, yv);
    }
    benchmark::DoNotOptimize(y.data());
    benchmark::ClobberMemory();
    if (++copy == copies) copy = 0;
  }
  const double iters = static_cast<double>(state.iterations());
  state.counters["weight_GB/s"] =
      benchmark::Counter(static_cast<double>(q_bytes) * iters / 1e9, benchmark::Counter::kIsRate);
  state.counters["Mtok_rows/s"] = benchmark::Counter(static_cast<double>(n * shape.out) * iters / 1e6,
                                                     benchmark::Counter::kIsRate);
  state.counters["MB"] = static_cast<double>(q_bytes) / 1e6;
  state.SetLabel(std::string(k::CpuKernels().name));
}

// GGUF shapes: Gemma 3 270M (H 640: q 1024, k/v 256, gate/up 2048, tied lm_head 262144) and Gemma
// 4 E2B (H 1536), for kGgmlQ8_0 / kGgmlQ5_0 next to gemmad's own Q8_R / Q4_0 at the same shapes.
constexpr LinearShape kGgufShapes[] = {
    {"g3.q", 1024, 640},         {"g3.kv", 256, 640},         {"g3.gate_up", 2048, 640},
    {"g3.lm_head", 262144, 640}, {"e2b.q_sliding", 2048, 1536}, {"e2b.gate_up", 6144, 1536},
    {"e2b.down", 1536, 6144},    {"e2b.lm_head", 262144, 1536},
};

// Load-time quantization rate (--quantization): bf16 matrix in, Q8_R / Q4_0 out; bf16_GB/s
// counts the bytes read (what the startup cost scales with).
void BM_QuantizeWeights(benchmark::State& state, LinearShape shape, t::DType dtype, int threads) {
  const size_t bf16_bytes = static_cast<size_t>(shape.out * shape.in) * 2;
  WeightBuffer& wb = Weights(std::max(RotateBytes(), bf16_bytes));
  t::TensorView q{nullptr, dtype, {shape.out, shape.in}};
  std::vector<uint8_t> dst(q.SizeBytes());
  q.data = dst.data();
  k::ExecContext ctx{&Pool(threads)};
  const size_t copies = wb.bytes / bf16_bytes;
  size_t copy = 0;
  for (auto _ : state) {
    const t::TensorView src{wb.data + copy * (bf16_bytes / 2), t::DType::kBF16, {shape.out, shape.in}};
    k::QuantizeWeights(ctx, src, q);
    benchmark::ClobberMemory();
    if (++copy == copies) copy = 0;
  }
  state.counters["bf16_GB/s"] = benchmark::Counter(static_cast<double>(bf16_bytes) * static_cast<double>(state.iterations()) / 1e9,
                                                   benchmark::Counter::kIsRate);
}

int RegisterAll() {
  const auto tables = BenchTables();
  for (const LinearShape& s : kShapes) {
    for (int64_t n : {1, 5, 16, 128}) {  // 5: one token and four drafts to verify
      for (int threads : {1, 2}) {
        for (bool cold : {true, false}) {
          if (!cold && n != 1) continue;
          for (const k::CpuKernelTable* table : tables) {
            std::string name = "Linear/" + std::string(s.name) + "/" + std::to_string(s.out) + "x" +
                               std::to_string(s.in) + "/n:" + std::to_string(n) +
                               "/threads:" + std::to_string(threads) + (cold ? "/cold" : "/hot");
            if (table != nullptr) name += "/isa:" + std::string(table->name);
            benchmark::RegisterBenchmark(name.c_str(), BM_Linear, s, n, threads, cold, table)
                ->UseRealTime()
                ->MinTime(0.3)
                ->Unit(benchmark::kMicrosecond);
          }
        }
      }
    }
  }
  for (t::DType dtype : {t::DType::kQ8R, t::DType::kQ4_0, t::DType::kQ4_0x16}) {
    for (const LinearShape& s : kShapes) {
      // Q4_0x16 (rows in groups of 16) where the active backend reads int4 matrices so.
      if (dtype == t::DType::kQ4_0x16 && k::Int4WeightDType({}, t::Shape{s.out, s.in}) != dtype) continue;
      for (int64_t n : {1, 2, 3, 4, 5, 8, 16, 128}) {
        for (int threads : {1, 2}) {
          std::string name = "Linear" + std::string(t::DTypeName(dtype)) + "/" + s.name + "/" +
                             std::to_string(s.out) + "x" + std::to_string(s.in) + "/n:" + std::to_string(n) +
                             "/threads:" + std::to_string(threads) + "/cold";
          benchmark::RegisterBenchmark(name.c_str(), BM_LinearQuant, s, dtype, n, threads)
              ->UseRealTime()
              ->MinTime(0.3)
              ->Unit(benchmark::kMicrosecond);
        }
      }
    }
  }
  for (const LinearShape& s : kGgufShapes) {
    for (int64_t n : {1, 16}) {
      for (int threads : {1, 2}) {
        for (t::DType dtype : {t::DType::kGgmlQ8_0, t::DType::kGgmlQ5_0, t::DType::kQ8R, t::DType::kQ4_0}) {
          const bool ggml = dtype == t::DType::kGgmlQ8_0 || dtype == t::DType::kGgmlQ5_0;
          std::string name = "LinearGguf/" + std::string(s.name) + "/" + std::to_string(s.out) + "x" +
                             std::to_string(s.in) + "/n:" + std::to_string(n) + "/threads:" +
                             std::to_string(threads) + "/" + std::string(t::DTypeName(dtype));
          auto* b = ggml ? benchmark::RegisterBenchmark(name.c_str(), BM_LinearGgml, s, dtype, n, threads, false)
                         : benchmark::RegisterBenchmark(name.c_str(), BM_LinearQuant, s, dtype, n, threads);
          b->UseRealTime()->MinTime(0.3)->Unit(benchmark::kMicrosecond);
        }
      }
    }
  }
  for (const LinearShape& s : kShapes) {
    for (int64_t n : {1, 5, 16}) {
      for (int threads : {1, 2}) {
        for (t::DType dtype : {t::DType::kF8R, t::DType::kLut4R, t::DType::kLut2R, t::DType::kI8BR}) {
          if (s.in % t::BlockElements(dtype) != 0) continue;
          for (bool static_int8 : {false, true}) {
            if (static_int8 && (dtype == t::DType::kF8R || dtype == t::DType::kI8BR)) continue;
            std::string name = "Linear" + std::string(dtype == t::DType::kF8R ? "F8R" : t::DTypeName(dtype)) +
                               (static_int8 ? "_int8" : "") + "/" + std::string(s.name) + "/" + std::to_string(s.out) +
                               "x" + std::to_string(s.in) + "/n:" + std::to_string(n) +
                               "/threads:" + std::to_string(threads) + "/cold";
            benchmark::RegisterBenchmark(name.c_str(), BM_LinearGgml, s, dtype, n, threads, static_int8)
                ->UseRealTime()
                ->MinTime(0.3)
                ->Unit(benchmark::kMicrosecond);
          }
        }
      }
    }
  }
  for (t::DType dtype : {t::DType::kQ8R, t::DType::kQ4_0}) {
    for (int threads : {1, 2}) {
      const LinearShape s{"e2b.gate_up_2x", 12288, 1536};
      std::string name = "QuantizeWeights" + std::string(t::DTypeName(dtype)) + "/" + s.name + "/threads:" +
                         std::to_string(threads);
      benchmark::RegisterBenchmark(name.c_str(), BM_QuantizeWeights, s, dtype, threads)
          ->UseRealTime()
          ->MinTime(0.3)
          ->Unit(benchmark::kMillisecond);
    }
  }
  return 0;
}
const int kRegistered = RegisterAll();

}  // namespace

BENCHMARK_MAIN();
