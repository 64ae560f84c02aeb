// Roofline instruments for the CPU: what this machine can do at best, measured, so that kernel
// figures (bench_linear, `gemmad generate`) can be stated as a fraction of it.
//
//   BM_ReadBandwidth/<MiB>/<threads>/<huge>
//                                      streaming read-only sum over a buffer (8 independent AVX2
//                                      accumulators, 256 B per loop trip, no stores) on 4 KiB
//                                      pages (huge:0) or transparent huge pages (huge:1). Counter
//                                      read_GB/s = buffer bytes read per wall second (1e9 B).
//                                      Sizes far above the LLC (this host reports 480 MiB of L3,
//                                      so 1 GiB is only ~2x; 4 GiB is the DRAM figure) measure
//                                      DRAM; the small sizes show the cache levels.
//   BM_ReadBandwidthPrefetched/<MiB>/<threads>/<huge>/<level>
//                                      the same sum, each thread's slice read as four sequential
//                                      streams side by side with a software prefetch 16 KiB ahead
//                                      in each (level 1: prefetcht0, 2: prefetcht1), the access
//                                      pattern of the batch-1 tiles. Where the hardware prefetchers
//                                      alone do not keep enough lines in flight for one stream
//                                      (an Intel Ice Lake Xeon: 10.5-12.4 GB/s a thread, while
//                                      the tiles streamed 14-15.5) this is the higher reading: the
//                                      read ceiling is the highest of the two benchmarks, as the
//                                      bench scripts take it (docs/cpu-performance.md §31).
//   BM_FmaPeak{Avx2,Avx512}/<threads>  12 independent FMA chains per thread in registers (latency
//                                      4-5 cycles x 2 FMA ports needs >= 10 chains). Counters
//                                      GFLOP/s (all threads) and GFLOP/s_per_thread; one FMA lane
//                                      = 2 flops.
//   BM_VnniPeakAvx512/<threads>        the same with VPDPBUSD (u8 x s8 -> s32, 64 products per
//                                      instruction): the ceiling of the int8/int4 kernels' dot
//                                      steps. Counters GOP/s, GOP/s_per_thread (a product and its
//                                      add = 2 ops).
//   BM_Bf16DotPeakAvx512/<threads>     the same with VDPBF16PS (bf16 pairs -> f32, 32 products
//                                      per instruction), where AVX512_BF16 exists: the headroom of
//                                      a bf16 kernel that rounds its activations to bf16 (GFLOP/s).
//   Each skips with a message on a CPU without the extension.
//
// Threads come from kernels::ThreadPool (the caller takes part), one contiguous slice each, so
// the 2-thread figures include the same dispatch machinery the kernels use. All cases use wall
// time (UseRealTime). The 2 cores may be shared with other work: repeat with
// --benchmark_repetitions=5 and read the max / median.
// gemmad-bench-libs: gemmad_kernels
#include <benchmark/benchmark.h>
// GCC 12 reports the AVX-512 intrinsics' undefined pass-through operands as uninitialised when
// they are inlined (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "kernels/thread_pool.h"

namespace {

using gemmad::kernels::ThreadPool;

ThreadPool& Pool(int threads) {
  static ThreadPool p1(1), p2(2);
  return threads == 1 ? p1 : p2;
}

// One buffer per page kind for all sizes (largest requested), touched once so the pages exist.
// The huge-page one is 2 MiB aligned and madvise(MADV_HUGEPAGE)d before the first touch, so
// where transparent huge pages are "madvise" or "always" the kernel backs it with 2 MiB pages
// (fewer TLB misses; gemmad's quantized weights live in such memory).
struct Buffer {
  float* data = nullptr;
  size_t bytes = 0;
};
Buffer& GetBuffer(size_t bytes, bool huge) {
  static Buffer bufs[2];
  Buffer& buf = bufs[huge ? 1 : 0];
  if (buf.bytes < bytes) {
    std::free(buf.data);
    const size_t align = huge ? size_t{2} << 20 : 4096;
    buf.data = static_cast<float*>(std::aligned_alloc(align, (bytes + align - 1) / align * align));
    if (huge) ::madvise(buf.data, bytes, MADV_HUGEPAGE);
    buf.bytes = bytes;
    const size_t n = bytes / sizeof(float);
    for (size_t i = 0; i < n; ++i) buf.data[i] = static_cast<float>(i & 1023) * 1e-3f;
  }
  return buf;
}

// The sum of the eight accumulators' lanes.
__attribute__((target("avx2,fma"))) float Total(__m256 a0, __m256 a1, __m256 a2, __m256 a3, __m256 a4, __m256 a5,
                                                __m256 a6, __m256 a7) {
  const __m256 s = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(a0, a1), _mm256_add_ps(a2, a3)),
                                 _mm256_add_ps(_mm256_add_ps(a4, a5), _mm256_add_ps(a6, a7)));
  float lanes[8];
  _mm256_storeu_ps(lanes, s);
  float r = 0;
  for (float v : lanes) r += v;
  return r;
}

__attribute__((target("avx2,fma"))) float SumAvx2(const float* p, size_t n) {
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  size_t i = 0;
  for (; i + 64 <= n; i += 64) {
    a0 = _mm256_add_ps(a0, _mm256_load_ps(p + i));
    a1 = _mm256_add_ps(a1, _mm256_load_ps(p + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_load_ps(p + i + 16));
    a3 = _mm256_add_ps(a3, _mm256_load_ps(p + i + 24));
    a4 = _mm256_add_ps(a4, _mm256_load_ps(p + i + 32));
    a5 = _mm256_add_ps(a5, _mm256_load_ps(p + i + 40));
    a6 = _mm256_add_ps(a6, _mm256_load_ps(p + i + 48));
    a7 = _mm256_add_ps(a7, _mm256_load_ps(p + i + 56));
  }
  float r = Total(a0, a1, a2, a3, a4, a5, a6, a7);
  for (; i < n; ++i) r += p[i];
  return r;
}

// Four quarter streams of p[0, n), summed 64 B from each per trip, each prefetched (kHint)
// kAheadBytes ahead (a prefetch past the end of the buffer is harmless: it never faults).
template <int kHint>
__attribute__((target("avx2,fma"))) float SumStreamsAvx2(const float* p, size_t n) {
  constexpr size_t kAhead = 16384 / sizeof(float);
  const size_t q = n / 4 / 16 * 16;  // floats per stream: whole 64 B lines
  const float* s0 = p;
  const float* s1 = p + q;
  const float* s2 = p + 2 * q;
  const float* s3 = p + 3 * q;
  __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0, a4 = a0, a5 = a0, a6 = a0, a7 = a0;
  for (size_t i = 0; i < q; i += 16) {
    _mm_prefetch(reinterpret_cast<const char*>(s0 + i + kAhead), static_cast<_mm_hint>(kHint));
    _mm_prefetch(reinterpret_cast<const char*>(s1 + i + kAhead), static_cast<_mm_hint>(kHint));
    _mm_prefetch(reinterpret_cast<const char*>(s2 + i + kAhead), static_cast<_mm_hint>(kHint));
    _mm_prefetch(reinterpret_cast<const char*>(s3 + i + kAhead), static_cast<_mm_hint>(kHint));
    a0 = _mm256_add_ps(a0, _mm256_load_ps(s0 + i));
    a1 = _mm256_add_ps(a1, _mm256_load_ps(s0 + i + 8));
    a2 = _mm256_add_ps(a2, _mm256_load_ps(s1 + i));
    a3 = _mm256_add_ps(a3, _mm256_load_ps(s1 + i + 8));
    a4 = _mm256_add_ps(a4, _mm256_load_ps(s2 + i));
    a5 = _mm256_add_ps(a5, _mm256_load_ps(s2 + i + 8));
    a6 = _mm256_add_ps(a6, _mm256_load_ps(s3 + i));
    a7 = _mm256_add_ps(a7, _mm256_load_ps(s3 + i + 8));
  }
  float r = Total(a0, a1, a2, a3, a4, a5, a6, a7);
  for (size_t i = 4 * q; i < n; ++i) r += p[i];
  return r;
}

// Args: buffer MiB, threads, huge pages (0 = 4 KiB pages, 1 = madvise(MADV_HUGEPAGE)), and for the
// prefetched variant the level (1 = prefetcht0, 2 = prefetcht1).
template <bool kPrefetched>
void BM_Read(benchmark::State& state) {
  const size_t bytes = static_cast<size_t>(state.range(0)) << 20;
  const int threads = static_cast<int>(state.range(1));
  Buffer& buf = GetBuffer(bytes, state.range(2) != 0);
  const size_t n = bytes / sizeof(float);
  ThreadPool& pool = Pool(threads);
  float partial[2] = {0, 0};
  for (auto _ : state) {
    pool.Run(threads, [&](int64_t t) {
      // Slices are multiples of 64 floats so every aligned load stays aligned.
      size_t b = (n / 64) * static_cast<size_t>(t) / threads * 64;
      size_t e = t + 1 == threads ? n : (n / 64) * static_cast<size_t>(t + 1) / threads * 64;
      const float* p = buf.data + b;
      if (!kPrefetched) partial[t] = SumAvx2(p, e - b);
      else if (state.range(3) == 1) partial[t] = SumStreamsAvx2<_MM_HINT_T0>(p, e - b);
      else partial[t] = SumStreamsAvx2<_MM_HINT_T1>(p, e - b);
    });
    benchmark::DoNotOptimize(partial);
  }
  state.counters["read_GB/s"] =
      benchmark::Counter(static_cast<double>(bytes) * state.iterations() / 1e9, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Read<false>)
    ->Name("BM_ReadBandwidth")
    ->ArgNames({"MiB", "threads", "huge"})
    ->ArgsProduct({{1, 16, 256, 1024, 4096}, {1, 2}, {0, 1}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Read<true>)
    ->Name("BM_ReadBandwidthPrefetched")
    ->ArgNames({"MiB", "threads", "huge", "level"})
    ->ArgsProduct({{1024, 4096}, {1, 2}, {0, 1}, {1, 2}})
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

constexpr int kChains = 12;
constexpr int64_t kFmaTrips = 1 << 22;  // trips of the inner loop per thread per iteration

// The chains are named variables (not an array) so that -O2 keeps all twelve in registers; the
// empty asm makes each trip's results opaque, so the compiler cannot fold trips together.
#define GEMMAD_FMA_LOOP(VEC, SET1, FMADD, CONSTRAINT)                                          \
  VEC c0 = SET1(seed), c1 = SET1(seed + 1), c2 = SET1(seed + 2), c3 = SET1(seed + 3);            \
  VEC c4 = SET1(seed + 4), c5 = SET1(seed + 5), c6 = SET1(seed + 6), c7 = SET1(seed + 7);        \
  VEC c8 = SET1(seed + 8), c9 = SET1(seed + 9), c10 = SET1(seed + 10), c11 = SET1(seed + 11);    \
  const VEC a = SET1(0.999999f), b = SET1(1e-7f);                                                \
  for (int64_t i = 0; i < trips; ++i) {                                                          \
    c0 = FMADD(c0, a, b); c1 = FMADD(c1, a, b); c2 = FMADD(c2, a, b); c3 = FMADD(c3, a, b);      \
    c4 = FMADD(c4, a, b); c5 = FMADD(c5, a, b); c6 = FMADD(c6, a, b); c7 = FMADD(c7, a, b);      \
    c8 = FMADD(c8, a, b); c9 = FMADD(c9, a, b); c10 = FMADD(c10, a, b); c11 = FMADD(c11, a, b);  \
    __asm__ volatile("" : "+" CONSTRAINT(c0), "+" CONSTRAINT(c1), "+" CONSTRAINT(c2),            \
                     "+" CONSTRAINT(c3), "+" CONSTRAINT(c4), "+" CONSTRAINT(c5),                 \
                     "+" CONSTRAINT(c6), "+" CONSTRAINT(c7), "+" CONSTRAINT(c8),                 \
                     "+" CONSTRAINT(c9), "+" CONSTRAINT(c10), "+" CONSTRAINT(c11));              \
  }                                                                                              \
  VEC lanes_sum = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11;                   \
  return lanes_sum[0];

__attribute__((target("avx2,fma"), noinline)) float FmaLoopAvx2(float seed, int64_t trips) {
  GEMMAD_FMA_LOOP(__m256, _mm256_set1_ps, _mm256_fmadd_ps, "x")
}
__attribute__((target("avx512f"), noinline)) float FmaLoopAvx512(float seed, int64_t trips) {
  GEMMAD_FMA_LOOP(__m512, _mm512_set1_ps, _mm512_fmadd_ps, "v")
}
#undef GEMMAD_FMA_LOOP

template <int kLanes>
void BM_FmaPeak(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  if (kLanes == 16 && !__builtin_cpu_supports("avx512f")) {
    state.SkipWithError("no AVX-512F on this CPU");
    return;
  }
  if (kLanes == 8 && !(__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))) {
    state.SkipWithError("no AVX2+FMA on this CPU");
    return;
  }
  ThreadPool& pool = Pool(threads);
  float out[2] = {0, 0};
  for (auto _ : state) {
    pool.Run(threads, [&](int64_t t) {
      out[t] = kLanes == 16 ? FmaLoopAvx512(static_cast<float>(t), kFmaTrips)
                            : FmaLoopAvx2(static_cast<float>(t), kFmaTrips);
    });
    benchmark::DoNotOptimize(out);
  }
  const double flops = 2.0 * kLanes * kChains * static_cast<double>(kFmaTrips) * threads *
                       static_cast<double>(state.iterations());
  state.counters["GFLOP/s"] = benchmark::Counter(flops / 1e9, benchmark::Counter::kIsRate);
  state.counters["GFLOP/s_per_thread"] =
      benchmark::Counter(flops / 1e9 / threads, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_FmaPeak<8>)->Name("BM_FmaPeakAvx2")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FmaPeak<16>)->Name("BM_FmaPeakAvx512")->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()
    ->Unit(benchmark::kMillisecond);

// VPDPBUSD / VDPBF16PS chains: 12 accumulators, one multiplicand pair, the empty asm as above.
#define GEMMAD_DOT_LOOP(VEC, ACC, INIT, DOT)                                                    \
  ACC c0 = INIT(seed), c1 = INIT(seed + 1), c2 = INIT(seed + 2), c3 = INIT(seed + 3);            \
  ACC c4 = INIT(seed + 4), c5 = INIT(seed + 5), c6 = INIT(seed + 6), c7 = INIT(seed + 7);        \
  ACC c8 = INIT(seed + 8), c9 = INIT(seed + 9), c10 = INIT(seed + 10), c11 = INIT(seed + 11);    \
  const VEC a = a_in, b = b_in;                                                                  \
  for (int64_t i = 0; i < trips; ++i) {                                                          \
    c0 = DOT(c0, a, b); c1 = DOT(c1, a, b); c2 = DOT(c2, a, b); c3 = DOT(c3, a, b);              \
    c4 = DOT(c4, a, b); c5 = DOT(c5, a, b); c6 = DOT(c6, a, b); c7 = DOT(c7, a, b);              \
    c8 = DOT(c8, a, b); c9 = DOT(c9, a, b); c10 = DOT(c10, a, b); c11 = DOT(c11, a, b);          \
    __asm__ volatile("" : "+v"(c0), "+v"(c1), "+v"(c2), "+v"(c3), "+v"(c4), "+v"(c5), "+v"(c6), \
                     "+v"(c7), "+v"(c8), "+v"(c9), "+v"(c10), "+v"(c11));                        \
  }

__attribute__((target("avx512f,avx512bw,avx512vnni"), noinline)) int32_t VnniLoopAvx512(int32_t seed,
                                                                                       int64_t trips) {
  const __m512i a_in = _mm512_set1_epi8(3), b_in = _mm512_set1_epi8(-2);
  GEMMAD_DOT_LOOP(__m512i, __m512i, _mm512_set1_epi32, _mm512_dpbusd_epi32)
  const __m512i s = _mm512_add_epi32(
      _mm512_add_epi32(_mm512_add_epi32(_mm512_add_epi32(c0, c1), _mm512_add_epi32(c2, c3)),
                       _mm512_add_epi32(_mm512_add_epi32(c4, c5), _mm512_add_epi32(c6, c7))),
      _mm512_add_epi32(_mm512_add_epi32(c8, c9), _mm512_add_epi32(c10, c11)));
  return _mm512_reduce_add_epi32(s);
}
__attribute__((target("avx512f,avx512bw,avx512bf16"), noinline)) float Bf16DotLoopAvx512(float seed,
                                                                                        int64_t trips) {
  const __m512bh a_in = _mm512_cvtne2ps_pbh(_mm512_set1_ps(0.999f), _mm512_set1_ps(0.999f));
  const __m512bh b_in = _mm512_cvtne2ps_pbh(_mm512_set1_ps(1e-7f), _mm512_set1_ps(1e-7f));
  GEMMAD_DOT_LOOP(__m512bh, __m512, _mm512_set1_ps, _mm512_dpbf16_ps)
  return _mm512_reduce_add_ps(c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7 + c8 + c9 + c10 + c11);
}
#undef GEMMAD_DOT_LOOP

enum class DotKind { kVnni, kBf16 };

template <DotKind kKind>
void BM_DotPeak(benchmark::State& state) {
  const int threads = static_cast<int>(state.range(0));
  const bool vnni = kKind == DotKind::kVnni;
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw") ||
      !__builtin_cpu_supports(vnni ? "avx512vnni" : "avx512bf16")) {
    state.SkipWithError(vnni ? "no AVX-512 VNNI on this CPU" : "no AVX512_BF16 on this CPU");
    return;
  }
  ThreadPool& pool = Pool(threads);
  float out[2] = {0, 0};
  for (auto _ : state) {
    pool.Run(threads, [&](int64_t t) {
      out[t] = vnni ? static_cast<float>(VnniLoopAvx512(static_cast<int32_t>(t), kFmaTrips))
                    : Bf16DotLoopAvx512(static_cast<float>(t), kFmaTrips);
    });
    benchmark::DoNotOptimize(out);
  }
  const double products_per_op = vnni ? 64.0 : 32.0;
  const double ops = 2.0 * products_per_op * kChains * static_cast<double>(kFmaTrips) * threads *
                     static_cast<double>(state.iterations());
  const char* unit = vnni ? "GOP/s" : "GFLOP/s";
  state.counters[unit] = benchmark::Counter(ops / 1e9, benchmark::Counter::kIsRate);
  state.counters[std::string(unit) + "_per_thread"] =
      benchmark::Counter(ops / 1e9 / threads, benchmark::Counter::kIsRate);
}
BENCHMARK(BM_DotPeak<DotKind::kVnni>)->Name("BM_VnniPeakAvx512")->ArgName("threads")->Arg(1)->Arg(2)
    ->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DotPeak<DotKind::kBf16>)->Name("BM_Bf16DotPeakAvx512")->ArgName("threads")->Arg(1)->Arg(2)
    ->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
