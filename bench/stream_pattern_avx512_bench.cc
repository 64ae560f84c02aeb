// Which order of reading weight rows the memory system streams fastest, one thread: the
// batch-1 question behind QuarterStreams (kernels/cpu/stream_prefetch.h). Every case reads the
// same 1 GiB of bf16 on 2 MiB pages (madvise(MADV_HUGEPAGE), as the model's weight mappings ask)
// matrix by matrix, with the bf16 1x4 tile's work per 64-byte line (one load, a shift and a mask,
// two FMAs per row; kernels/cpu/linear_avx512.cc), in one of three orders:
//
//   BM_StreamPattern/<row_bytes>/<order>/<prefetch>
//     order 0 = adjacent: rows r..r+3 side by side, then r+4..r+7 (the old tile order);
//           1 = quarters: rows j, j+q, j+2q, j+3q of a matrix of 4q rows (four sequential streams);
//           2 = sequential: one row at a time with four accumulators over its elements (one
//               stream; the order a plain read takes, for the ceiling of this loop body);
//           3 = eighths: eight rows j, j+e, ..., j+7e of a matrix of 8e rows (the tile for long
//               rows where the table says long_streams=8).
//           4 = sixteenths: sixteen rows j, j+s, ..., j+15s of a matrix of 16s rows (each activation
//               load shared by twice as many rows as eighths).
//           5 = eighths in K pieces: eighths over the first 4096 elements of every row, then the
//               next 4096, ..., the accumulators kept in memory between pieces (16 KB of f32
//               activations per piece stay in a 32 KB L1d; 24 KB rows' 48 KB do not).
//     prefetch 0 = none (hardware prefetchers only), 1 = prefetcht1 16 KB ahead in each stream,
//              2 = prefetcht0 2 KB ahead, 3 = prefetchnta 4 KB ahead.
//   row_bytes: 3072 (E2B q/k/v, gate/up: H = 1536), 6144, 12288 (E2B down) and 24576 (down_2x).
//
// Counter GB/s = bytes read per wall second (1e9 B). The loop is this file's own, not the
// kernel's, so a difference between orders is the memory system's, not the code's. Compare with
// bench_roofline's BM_ReadBandwidth/1024/1/1 from the same minute (docs/cpu-performance.md §17).
// The file is compiled with the avx512 flags; on a CPU without AVX-512 every case is skipped.
// gemmad-bench-libs:
#include <benchmark/benchmark.h>
#include <sys/mman.h>
// GCC 12 reports the AVX-512 intrinsics' undefined pass-through operands as uninitialised when
// they are inlined (GCC bug 105593).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop

#include <cstdint>
#include <cstdlib>

namespace {

constexpr size_t kBytes = size_t{1} << 30;

uint16_t* Buffer() {
  static uint16_t* buf = [] {
    auto* p = static_cast<uint16_t*>(std::aligned_alloc(size_t{2} << 20, kBytes));
    if (p == nullptr) std::abort();
    ::madvise(p, kBytes, MADV_HUGEPAGE);
    for (size_t i = 0; i < kBytes / 2; ++i) p[i] = static_cast<uint16_t>(0x3c00 + (i & 255));  // small bf16 values
    return p;
  }();
  return buf;
}

// acc + x_even·w_even + x_odd·w_odd for the 32 bf16 weights at w.
inline __m512 Step(__m512 acc, const uint16_t* w, __m512 xe, __m512 xo) {
  const __m512i v = _mm512_loadu_si512(w);
  acc = _mm512_fmadd_ps(xe, _mm512_castsi512_ps(_mm512_slli_epi32(v, 16)), acc);
  return _mm512_fmadd_ps(xo, _mm512_castsi512_ps(_mm512_and_si512(v, _mm512_set1_epi32(static_cast<int>(0xffff0000u)))), acc);
}

template <int kPrefetch>
inline void Ahead(const uint16_t* p) {
  if constexpr (kPrefetch == 1) _mm_prefetch(reinterpret_cast<const char*>(p + 8192), _MM_HINT_T1);  // 16 KB
  if constexpr (kPrefetch == 2) _mm_prefetch(reinterpret_cast<const char*>(p + 1024), _MM_HINT_T0);  // 2 KB
  if constexpr (kPrefetch == 3) _mm_prefetch(reinterpret_cast<const char*>(p + 2048), _MM_HINT_NTA);  // 4 KB
}

// R rows r0 + k·step (k < R) of `in` bf16 each, as the batch-1 tile reads them.
template <int R, int kPrefetch>
__m512 Rows(const uint16_t* r0, int64_t step, int64_t in, const float* x) {
  __m512 a[R];
#pragma GCC unroll 8
  for (int k = 0; k < R; ++k) a[k] = _mm512_setzero_ps();
  for (int64_t i = 0; i < in; i += 32) {
    const __m512 xe = _mm512_loadu_ps(x + i), xo = _mm512_loadu_ps(x + i + 16);
#pragma GCC unroll 8
    for (int k = 0; k < R; ++k) {
      Ahead<kPrefetch>(r0 + k * step + i);
      a[k] = Step(a[k], r0 + k * step + i, xe, xo);
    }
  }
  __m512 sum = a[0];
  for (int k = 1; k < R; ++k) sum = _mm512_add_ps(sum, a[k]);
  return sum;
}

// Rows<R> over elements [k0, k1) of each row, continuing the accumulators at acc (R vectors).
template <int R, int kPrefetch>
void RowsPiece(const uint16_t* r0, int64_t step, int64_t k0, int64_t k1, const float* x, __m512* acc) {
  __m512 a[R];
#pragma GCC unroll 8
  for (int k = 0; k < R; ++k) a[k] = acc[k];
  for (int64_t i = k0; i < k1; i += 32) {
    const __m512 xe = _mm512_loadu_ps(x + i), xo = _mm512_loadu_ps(x + i + 16);
#pragma GCC unroll 8
    for (int k = 0; k < R; ++k) {
      Ahead<kPrefetch>(r0 + k * step + i);
      a[k] = Step(a[k], r0 + k * step + i, xe, xo);
    }
  }
#pragma GCC unroll 8
  for (int k = 0; k < R; ++k) acc[k] = a[k];
}

// One row with four accumulators over consecutive 32-element steps (in % 128 == 0).
template <int kPrefetch>
__m512 OneRow(const uint16_t* w, int64_t in, const float* x) {
  __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
  for (int64_t i = 0; i < in; i += 128) {
    Ahead<kPrefetch>(w + i), Ahead<kPrefetch>(w + i + 32), Ahead<kPrefetch>(w + i + 64), Ahead<kPrefetch>(w + i + 96);
    a0 = Step(a0, w + i, _mm512_loadu_ps(x + i), _mm512_loadu_ps(x + i + 16));
    a1 = Step(a1, w + i + 32, _mm512_loadu_ps(x + i + 32), _mm512_loadu_ps(x + i + 48));
    a2 = Step(a2, w + i + 64, _mm512_loadu_ps(x + i + 64), _mm512_loadu_ps(x + i + 80));
    a3 = Step(a3, w + i + 96, _mm512_loadu_ps(x + i + 96), _mm512_loadu_ps(x + i + 112));
  }
  return _mm512_add_ps(_mm512_add_ps(a0, a1), _mm512_add_ps(a2, a3));
}

// One matrix of `rows` rows (a multiple of 8) in the given order.
template <int kPrefetch>
__m512 Matrix(const uint16_t* w, int64_t rows, int64_t in, int order, const float* x) {
  __m512 sum = _mm512_setzero_ps();
  const int64_t q = rows / 4, e = rows / 8;
  if (order == 4) {
    const int64_t s16 = rows / 16;
    for (int64_t j = 0; j < s16; ++j) sum = _mm512_add_ps(sum, Rows<16, kPrefetch>(w + j * in, s16 * in, in, x));
    return sum;
  }
  if (order == 5) {
    static __m512 acc[12288];  // one per row (rows <= 12288)
    for (int64_t r = 0; r < e * 8; ++r) acc[r] = _mm512_setzero_ps();
    constexpr int64_t kPiece = 4096;
    for (int64_t k0 = 0; k0 < in; k0 += kPiece) {
      const int64_t k1 = k0 + kPiece < in ? k0 + kPiece : in;
      for (int64_t j = 0; j < e; ++j) RowsPiece<8, kPrefetch>(w + j * in, e * in, k0, k1, x, acc + 8 * j);
    }
    for (int64_t r = 0; r < e * 8; ++r) sum = _mm512_add_ps(sum, acc[r]);
    return sum;
  }
  if (order == 3) {
    for (int64_t j = 0; j < e; ++j) sum = _mm512_add_ps(sum, Rows<8, kPrefetch>(w + j * in, e * in, in, x));
    return sum;
  }
  for (int64_t j = 0; j < q; ++j) {
    if (order == 0) {
      sum = _mm512_add_ps(sum, Rows<4, kPrefetch>(w + 4 * j * in, in, in, x));
    } else if (order == 1) {
      sum = _mm512_add_ps(sum, Rows<4, kPrefetch>(w + j * in, q * in, in, x));
    } else {
      for (int k = 0; k < 4; ++k) sum = _mm512_add_ps(sum, OneRow<kPrefetch>(w + (4 * j + k) * in, in, x));
    }
  }
  return sum;
}

void BM_StreamPattern(benchmark::State& state) {
  if (!__builtin_cpu_supports("avx512f") || !__builtin_cpu_supports("avx512bw")) {
    state.SkipWithError("no AVX-512 on this CPU");
    return;
  }
  const int64_t in = state.range(0) / 2;
  const int order = static_cast<int>(state.range(1));
  const int64_t prefetch = state.range(2);
  const int64_t rows = state.range(0) <= 3072 ? 12288 : 1536;  // gate_up_2x-like, or down-like
  const int64_t matrix = rows * in;
  const int64_t copies = static_cast<int64_t>(kBytes / 2) / matrix;
  const uint16_t* buf = Buffer();
  static float x[16384];
  for (int64_t i = 0; i < in; ++i) x[i] = 1e-3f * static_cast<float>(i % 7);
  int64_t copy = 0;
  for (auto _ : state) {
    const uint16_t* w = buf + copy * matrix;
    __m512 s = prefetch == 1   ? Matrix<1>(w, rows, in, order, x)
               : prefetch == 2 ? Matrix<2>(w, rows, in, order, x)
               : prefetch == 3 ? Matrix<3>(w, rows, in, order, x)
                               : Matrix<0>(w, rows, in, order, x);
    benchmark::DoNotOptimize(s);
    if (++copy == copies) copy = 0;
  }
  state.counters["GB/s"] = benchmark::Counter(static_cast<double>(matrix * 2) * static_cast<double>(state.iterations()) / 1e9,
                                              benchmark::Counter::kIsRate);
}
BENCHMARK(BM_StreamPattern)
    ->ArgsProduct({{3072, 6144, 12288, 24576}, {0, 1, 2, 3, 4, 5}, {0, 1, 2, 3}})
    ->ArgNames({"row_bytes", "order", "prefetch"})
    ->MinTime(0.5)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
