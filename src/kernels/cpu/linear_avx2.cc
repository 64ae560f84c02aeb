// AVX2+FMA linear kernels (this file is compiled with -mavx2 -mfma): 8 lanes per FMA; four tokens
// share each weight load (4x2 tiles), a lone token runs four rows at once (or eight, for long bf16
// rows where the StreamParams table asks for them), one from each part of the range; bf16 widened by
// a 16-bit shift. Unaligned loads throughout.
// Include no header with inline code here beyond intrinsics, the registry's declarations and the
// internal-linkage helpers for ISA files (kernels/cpu/stream_prefetch.h).
#include <cpuid.h>
#include <immintrin.h>

#include <cstdint>
#include <cstring>

#include "kernels/cpu/stream_prefetch.h"
#include "kernels/registry.h"

namespace gemmad::kernels {
namespace {

inline __m256 Load8(const float* p) { return _mm256_loadu_ps(p); }
inline __m256 Load8(const uint16_t* p) {
  __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
  return _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h), 16));
}
inline float Widen(float w) { return w; }
// Local (internal-linkage) widening: header inline functions must not be instantiated in an
// ISA-flagged file, or the linker could hand their AVX2 copy to generic code.
inline float Widen(uint16_t w) {
  uint32_t bits = static_cast<uint32_t>(w) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// Lane sums of four accumulators, [Σa, Σb, Σc, Σd], each as ((l0+l1)+(l2+l3))+((l4+l5)+(l6+l7)).
// Every dot product below is reduced by this one formula, whichever tile computed it, so an
// output does not depend on how many tokens or rows shared the pass (batch-invariant results).
inline __m128 Hsum4(__m256 a, __m256 b, __m256 c, __m256 d) {
  __m256 t = _mm256_hadd_ps(_mm256_hadd_ps(a, b), _mm256_hadd_ps(c, d));
  return _mm_add_ps(_mm256_castps256_ps128(t), _mm256_extractf128_ps(t, 1));
}
inline float Hsum1(__m256 a) { return _mm_cvtss_f32(Hsum4(a, a, a, a)); }

// The scalar tail of one dot product (in % 8 elements), added after the vector part.
template <typename W>
inline float Tail(const float* x, const W* wr, int64_t from, int64_t in) {
  float s = 0.0f;
  for (int64_t j = from; j < in; ++j) s += x[j] * Widen(wr[j]);
  return s;
}

// Four tokens against two weight rows: eight chains, each weight vector widened once for four
// tokens. out[k * 2 + r] = token k · row r.
template <typename W>
inline void Dot4x2(const float* x, int64_t in, const W* w0, const W* w1, float* out) {
  __m256 a[8];
  for (auto& v : a) v = _mm256_setzero_ps();
  int64_t i = 0;
  // The first token group streams the rows from memory: prefetch ahead (a fixed distance into L1).
  const int64_t row_bytes = in * static_cast<int64_t>(sizeof(W));
  const int64_t ahead = (row_bytes >= 8192 ? 4096 : 8192) / static_cast<int64_t>(sizeof(W));
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(W));
  for (; i + 8 <= in; i += 8) {
    if (i % kLine == 0) {
      _mm_prefetch(reinterpret_cast<const char*>(w0 + i + ahead), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(w1 + i + ahead), _MM_HINT_T0);
    }
    __m256 v0 = Load8(w0 + i), v1 = Load8(w1 + i);
    for (int k = 0; k < 4; ++k) {
      __m256 xv = Load8(x + k * in + i);
      a[k * 2] = _mm256_fmadd_ps(xv, v0, a[k * 2]);
      a[k * 2 + 1] = _mm256_fmadd_ps(xv, v1, a[k * 2 + 1]);
    }
  }
  float r[8];
  _mm_storeu_ps(r, Hsum4(a[0], a[1], a[2], a[3]));
  _mm_storeu_ps(r + 4, Hsum4(a[4], a[5], a[6], a[7]));
  for (int k = 0; k < 4; ++k) {
    out[k * 2] = r[k * 2] + Tail(x + k * in, w0, i, in);
    out[k * 2 + 1] = r[k * 2 + 1] + Tail(x + k * in, w1, i, in);
  }
}

// One token against S rows w0 + s·stride (s < S), S = 4 or 8: S independent FMA chains over S
// sequential streams (the rows of a lone token's tile come one from each of S parts of the range,
// kernels/cpu/stream_prefetch.h RowTiles / RowStreams), prefetched as the active StreamParams say
// (the bf16 tiles' distance and level_bf16, as the avx512 table's). Each output is reduced by Hsum4,
// as in every other tile. out[s] = x · row s.
template <typename W, int S>
inline void DotRows(const float* x, int64_t in, const W* w0, int64_t stride, float* out) {
  __m256 a[S];
  for (auto& v : a) v = _mm256_setzero_ps();
  const StreamParams& sp = ActiveStreamParams();
  const int64_t ahead = AheadBytes(sp, in * static_cast<int64_t>(sizeof(W))) / static_cast<int64_t>(sizeof(W));
  constexpr int64_t kLine = 64 / static_cast<int64_t>(sizeof(W));
  int64_t i = 0;
  for (; i + 8 <= in; i += 8) {
    if (i % kLine == 0) {
      for (int r = 0; r < S; ++r) PrefetchAt(w0 + r * stride + i + ahead, sp.level_bf16);
    }
    const __m256 xv = Load8(x + i);
#pragma GCC unroll 8
    for (int r = 0; r < S; ++r) a[r] = _mm256_fmadd_ps(xv, Load8(w0 + r * stride + i), a[r]);
  }
  for (int r = 0; r < S; r += 4) _mm_storeu_ps(out + r, Hsum4(a[r], a[r + 1], a[r + 2], a[r + 3]));
  for (int r = 0; r < S; ++r) out[r] += Tail(x, w0 + r * stride, i, in);
}

// One token against one row (leftover rows).
template <typename W>
inline float Dot1x1(const float* x, int64_t in, const W* wr) {
  __m256 a = _mm256_setzero_ps();
  int64_t i = 0;
  for (; i + 8 <= in; i += 8) a = _mm256_fmadd_ps(Load8(x + i), Load8(wr + i), a);
  return Hsum1(a) + Tail(x, wr, i, in);
}

// One token's rows [ob, oe) in tiles of S (stream_prefetch.h RowTiles: a lone token's tile takes one
// row from each of S parts of the range, otherwise S adjacent rows), the rows left over one by one.
template <typename W, int S>
void SmallRowTiles(const float* xt, int64_t in, const W* w, bool lone, int64_t ob, int64_t oe, float* yt) {
  RowTiles<S>(
      lone, ob, oe,
      [&](int64_t o, int64_t step) {
        float r[S];
        DotRows<W, S>(xt, in, w + o * in, step * in, r);
        for (int k = 0; k < S; ++k) yt[o + k * step] = r[k];
      },
      [&](int64_t o) { yt[o] = Dot1x1(xt, in, w + o * in); });
}

template <typename W>
void LinearAvx2(const float* x, int64_t n, int64_t in, const W* w, int64_t o_begin, int64_t o_end,
                float* y, int64_t ldy) {
  // Tokens in groups of four share each weight load (rows in pairs); the remaining 0-3 tokens
  // each take rows in fours. Rows are walked in blocks so that a block's weights stay in L2
  // between the token groups.
  const int64_t by_l2 = (int64_t{128} << 10) / (in * static_cast<int64_t>(sizeof(W)));
  // A lone token reads every row once: one block, so its streams are as long as the range allows.
  const int64_t row_block = n == 1 ? o_end - o_begin : by_l2 < 2 ? 2 : by_l2;
  // A lone token's tiles take one row from each of S equal parts of the range (RowStreams: 4, or 8
  // for long bf16 rows where the table says so): S long sequential streams, as on the avx512 table.
  // The 1-3 tokens after groups of four read rows the group left in L2: four adjacent ones a tile.
  const bool lone = n == 1;
  const int streams = lone && sizeof(W) == 2 ? RowStreams(ActiveStreamParams(), in * 2) : 4;
  for (int64_t ob = o_begin; ob < o_end; ob += row_block) {
    const int64_t oe = ob + row_block < o_end ? ob + row_block : o_end;
    int64_t t = 0;
    for (; t + 4 <= n; t += 4) {
      const float* xt = x + t * in;
      int64_t o = ob;
      float r[8];
      for (; o + 2 <= oe; o += 2) {
        Dot4x2(xt, in, w + o * in, w + (o + 1) * in, r);
        for (int k = 0; k < 4; ++k) {
          y[(t + k) * ldy + o] = r[k * 2];
          y[(t + k) * ldy + o + 1] = r[k * 2 + 1];
        }
      }
      for (; o < oe; ++o) {
        for (int k = 0; k < 4; ++k) y[(t + k) * ldy + o] = Dot1x1(xt + k * in, in, w + o * in);
      }
    }
    for (; t < n; ++t) {
      if (streams == 8) {
        SmallRowTiles<W, 8>(x + t * in, in, w, lone, ob, oe, y + t * ldy);
      } else {
        SmallRowTiles<W, 4>(x + t * in, in, w, lone, ob, oe, y + t * ldy);
      }
    }
  }
}

void LinearF32Avx2(const float* x, int64_t n, int64_t in, const float* w, int64_t o_begin, int64_t o_end,
                   float* y, int64_t ldy) {
  LinearAvx2(x, n, in, w, o_begin, o_end, y, ldy);
}
void LinearBf16Avx2(const float* x, int64_t n, int64_t in, const uint16_t* w, int64_t o_begin,
                    int64_t o_end, float* y, int64_t ldy) {
  LinearAvx2(x, n, in, w, o_begin, o_end, y, ldy);
}
// F16C by CPUID (leaf 1, ECX bit 29): clang before 15 does not know "f16c" in __builtin_cpu_supports.
bool F16cSupported() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  return __get_cpuid(1, &eax, &ebx, &ecx, &edx) != 0 && (ecx & (1u << 29)) != 0;
}
bool Avx2Supported() {
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && F16cSupported();
}

}  // namespace

const CpuKernelTable* Avx2CpuKernels() {
  static const CpuKernelTable table{.name = "avx2",
                                     .supported = &Avx2Supported,
                                     .linear_f32 = &LinearF32Avx2,
                                     .linear_bf16 = &LinearBf16Avx2,
                                     .softcap = &SoftCapAvx2,
                                     .quantize_int8 = &QuantizeInt8Avx2,
                                     .fake_quant_int8 = &FakeQuantInt8Avx2,
                                     .quantize_acts = &QuantizeActsAvx2,
                                     .linear_q8r = &LinearQ8RAvx2,
                                     .linear_q4_0 = &LinearQ4_0Avx2,
                                     .linear_q4_0x16 = &LinearQ4_0x16Avx2,
                                     .linear_ggml_q8_0 = &LinearGgmlQ8_0Avx2,
                                     .linear_ggml_q5_0 = &LinearGgmlQ5_0Avx2,
                                     .linear_ggml_q4_k = &LinearGgmlQ4_KAvx2,
                                     .linear_ggml_q6_k = &LinearGgmlQ6_KAvx2,
                                     .linear_f8r = &LinearF8RAvx2,
                                     .linear_lut4r = &LinearLut4RAvx2,
                                     .linear_lut2r = &LinearLut2RAvx2,
                                     .linear_i8br = &LinearI8BRAvx2,
                                     .linear_lut4r_int = &LinearLut4RIntAvx2,
                                     .linear_lut2r_int = &LinearLut2RIntAvx2,
                                     .quantize_row_q8r = &QuantizeRowQ8RAvx2,
                                     .quantize_row_q4_0 = &QuantizeRowQ4_0Avx2,
                                     .gelu_tanh_mul = &GeluTanhMulAvx2,
                                     .exp_shifted = &ExpShiftedAvx2,
                                     .gemm_f32 = &GemmF32Avx2};
  return &table;
}

}  // namespace gemmad::kernels
