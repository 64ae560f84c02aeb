// CPU kernel registry: one table of function pointers per instruction set, chosen once at run
// time (the best one the CPU supports, or GEMMAD_CPU_ISA=generic|avx2|avx512|neon to force one). This is the
// CPU backend's inner dispatch (kernels/backend.h is the outer one, between backends): the ops of
// kernels/cpu/ call these micro-kernels; code outside kernels/ reaches them only through ops.h.
// Every table is parity-tested against kernels/reference on every CPU that can run it.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace gemmad::kernels {

// y[t, o] = Σ_i x[t, i] · w[o, i] for t in [0, n) and o in [o_begin, o_end); fp32 accumulation.
// x: [n, in] (row stride in); w: [out, in]; y: row stride ldy. No alignment is assumed.
using LinearF32Fn = void (*)(const float* x, int64_t n, int64_t in, const float* w,
                             int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
// The same with w holding bf16 bit patterns (widened to fp32 in registers).
using LinearBf16Fn = void (*)(const float* x, int64_t n, int64_t in, const uint16_t* w,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy);

// x[i] <- cap * tanh(x[i] / cap) for i in [0, n) (final-logit soft-capping).
using SoftCapFn = void (*)(float* x, int64_t n, float cap);

// Static int8 activation rounding (compressed-tensors a8/o8 schemes; tensor/int8_round.h RoundClampInt8):
// - QuantizeInt8: k[i] = RoundClampInt8(x[i] / s) for i in [0, n) (a NaN gives 0); returns Σ k (n < 2^24).
// - FakeQuantInt8: y[i] = RoundClampInt8(x[i] / s) · s (NaN stays NaN; y may alias x).
// Every table gives the bits of the scalar formula (the same IEEE division, clamp and rounding).
using QuantizeInt8Fn = int64_t (*)(const float* x, int64_t n, float s, int8_t* k);
using FakeQuantInt8Fn = void (*)(const float* x, int64_t n, float s, float* y);

// Activation quantization for the quantized Linear (tensor/quant_blocks.h): x: [n, in] f32 with
// in % 32 == 0 -> q: [n, in] int8, d: [n, in / 32] f32, per block of 32: d = max|x| / 127,
// q = round-half-even(x · (1 / d)) (q = 0 where d = 0). Every table produces identical bits.
using QuantizeActsFn = void (*)(const float* x, int64_t n, int64_t in, int8_t* q, float* d);
// y[t, o] = Σ_b d[t, b] · (weight block scale) · Σ_j q[t, 32b + j] · w_q[o, 32b + j] for the
// kQ8R, kQ4_0 or kQ4_0x16 matrix w of `out` rows (layouts: tensor/quant_blocks.h), o in [o_begin, o_end).
// The ggml types (tensor/ggml_blocks.h; rows one after the other, RowBytes apart) use the same
// signature: Σ_b d[t, b] · Σ_j q[t, 32b + j] · w_deq[o, 32b + j], where w_deq is the exact
// dequantized weight (tensor/ggml_quants.h) and the K types' per-sub-block scales and minimums
// are applied to exact integer partial sums.
using LinearQuantFn = void (*)(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w,
                               int64_t out, int64_t o_begin, int64_t o_end, float* y, int64_t ldy);

// FP8 Linear (kF8R weights, tensor/quant_blocks.h): xq [n, in] holds each token's activations
// quantized to E4M3 values (as floats, QuantizeActsF8), s [n] their scales; y[t, o] = s[t] · d[o] ·
// Σ_i xq[t, i] · e4m3(w[o, i]) for o in [o_begin, o_end), summed in fp32 (order per kernel).
using LinearF8Fn = void (*)(const float* xq, const float* s, int64_t n, int64_t in, const uint8_t* w,
                            int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
// vLLM's dynamic per-token FP8 quantization: s[t] = max(max_i |x[t, i]| / 448, 1 / (448 · 512)),
// xq[t, i] = RoundToE4M3(x[t, i] / s[t]) (tensor/fp8.h). Portable; the same bits everywhere.
void QuantizeActsF8(const float* x, int64_t n, int64_t in, float* xq, float* s);

// Table-row Linear (kLut4R / kLut2R weights, tensor/lut_rows.h; one entry per code width): y[t, o] =
// Σ_i x[t, i] · lut_o[code_o(i)] for o in [o_begin, o_end), x f32 as given, summed in fp32 (order
// per kernel; every tile of a kernel in the same order, so results are batch-invariant).
using LinearLutFn = void (*)(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin,
                             int64_t o_end, float* y, int64_t ldy);
// The same rows meeting int8 activations k (LinearStaticInt8): y[t, o] = (s · unit_o) · Σ_i k[t, i] ·
// n_o[code_o(i)], the products and their sums exact in integers (see each kernel for where its partial
// sums meet fp32). The activations come prepared once per call, in two lane orders (LutIntActs):
// - words: each token's k as int16, per pair of code groups p (2·G elements, G = LutGroupElements(bits);
//   a missing second group reads as zeros) and code position h < 8 / bits, 32 words: the first group's
//   elements 16·h .. 16·h + 15, then the second's; a token takes LutIntWords(in, bits) words.
// - bytes: each token's k as int8 for the byte kernels (rows whose table is linear in the code, or
//   nearly: see the kernel), per chunk c of 4 code groups (4·G elements) and code position h < 8 / bits,
//   64 bytes: byte 16·g + j is element 4·G·c + G·g + 16·h + j (zeros past in); a token takes
//   LutIntBytes(in, bits) bytes. sums[t] = Σ_i k[t, i].
struct LutIntActs {
  const int16_t* words = nullptr;  // [n, LutIntWords(in, bits)]
  const int8_t* bytes = nullptr;   // [n, LutIntBytes(in, bits)]
  const int32_t* sums = nullptr;   // [n]
};
using LinearLutIntFn = void (*)(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w,
                                int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
inline int64_t LutIntWords(int64_t in, int bits) {
  const int64_t pair = 2 * (16 * 8 / bits);
  return (in + pair - 1) / pair * pair;
}
inline int64_t LutIntBytes(int64_t in, int bits) {
  const int64_t chunk = 4 * (16 * 8 / bits);
  return (in + chunk - 1) / chunk * chunk;
}

// Load-time weight quantization of one row x [in] f32 (in % 32 == 0), bit-identical in every
// table. Q8_R: writes {d, q[in]} at row. Q4_0: block b's f16 scale goes to scale + b·stride and
// its 16 nibble bytes to qs + b·stride (stride 36 inside a row pair, 18 for a lone row).
using QuantizeRowQ8RFn = void (*)(const float* x, int64_t in, uint8_t* row);
using QuantizeRowQ4_0Fn = void (*)(const float* x, int64_t in, uint8_t* scale, uint8_t* qs, size_t stride);

// out[i] = gelu_tanh(gate[i]) · up[i] for i in [0, n) (GeGLU), gelu_tanh(z) =
// 0.5·z·(1 + tanh(√(2/π)·(z + 0.044715·z³))), with the tables' vector tanh (softcap_<isa>.cc).
using GeluTanhMulFn = void (*)(const float* gate, const float* up, float* out, int64_t n);

// out[i] = exp((x[i] - shift) · scale) for i in [0, n), for arguments <= 0 (softmax weights,
// sampling): 0 where the argument is below kExpShiftedFloor (no denormals, -inf included), within
// 3 ulp of std::exp elsewhere. A NaN argument gives an unspecified value. out may alias x.
using ExpShiftedFn = void (*)(const float* x, int64_t n, float shift, float scale, float* out);
inline constexpr float kExpShiftedFloor = -87.0f;

// C[i, j] = Σ_k A[i, k] · B[k, j] for i in [0, m), j in [0, n) (C overwritten; k == 0 gives 0); fp32
// accumulation, in k order per element. A: [m, k] (row stride lda); B: [k, n] row-major (row
// stride ldb); C: row stride ldc. The outer-product form for products whose right-hand side is
// naturally [k, n] (attention's Kᵀ and V). No alignment is assumed; nothing outside the three
// matrices is read or written.
using GemmF32Fn = void (*)(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc,
                           int64_t m, int64_t n, int64_t k);

struct CpuKernelTable {
  std::string_view name;  // "generic", "avx2", "avx512", "neon"
  bool (*supported)();    // whether this CPU can run the table
  LinearF32Fn linear_f32;
  LinearBf16Fn linear_bf16;
  SoftCapFn softcap;
  QuantizeInt8Fn quantize_int8;
  FakeQuantInt8Fn fake_quant_int8;
  QuantizeActsFn quantize_acts;
  LinearQuantFn linear_q8r;   // kQ8R weights
  LinearQuantFn linear_q4_0;  // kQ4_0 weights
  // kQ4_0x16 weights (may be null: the model then keeps int4 matrices as kQ4_0). y as linear_q4_0's
  // formula; rows of [o_begin, o_end) only are written.
  LinearQuantFn linear_q4_0x16;
  LinearQuantFn linear_ggml_q8_0;  // kGgmlQ8_0 weights (GGUF)
  LinearQuantFn linear_ggml_q5_0;  // kGgmlQ5_0
  LinearQuantFn linear_ggml_q4_k;  // kGgmlQ4_K
  LinearQuantFn linear_ggml_q6_k;  // kGgmlQ6_K
  LinearF8Fn linear_f8r;           // kF8R weights (compressed-tensors FP8)
  LinearLutFn linear_lut4r;        // kLut4R weights (compressed-tensors mobile QAT int4/int3)
  LinearLutFn linear_lut2r;        // kLut2R weights (compressed-tensors mobile QAT int2)
  LinearLutFn linear_i8br;         // kI8BR weights (compressed-tensors mobile QAT int8, tensor/i8b_rows.h)
  LinearLutIntFn linear_lut4r_int;  // kLut4R weights, int8 activations (may be null)
  LinearLutIntFn linear_lut2r_int;  // kLut2R weights, int8 activations (may be null)
  QuantizeRowQ8RFn quantize_row_q8r;
  QuantizeRowQ4_0Fn quantize_row_q4_0;
  GeluTanhMulFn gelu_tanh_mul;
  ExpShiftedFn exp_shifted;
  GemmF32Fn gemm_f32;
};

// The active table (chosen on first use; honours GEMMAD_CPU_ISA).
const CpuKernelTable& CpuKernels();
// Every compiled table this CPU can run, generic first.
std::vector<const CpuKernelTable*> SupportedCpuKernelTables();
// Forces a table (tests, benchmarks); nullptr restores the automatic choice.
void SetCpuKernelsForTesting(const CpuKernelTable* table);

// Per-ISA tables (defined in kernels/cpu/linear_<isa>.cc).
const CpuKernelTable& GenericCpuKernels();
// Each returns nullptr when not compiled for this architecture (x86-64: avx2, avx512; aarch64: neon).
const CpuKernelTable* Avx2CpuKernels();
const CpuKernelTable* Avx512CpuKernels();
const CpuKernelTable* NeonCpuKernels();
// Table entries defined in their own ISA-flagged files (kernels/cpu/<op>_<isa>.cc).
int64_t QuantizeInt8Generic(const float* x, int64_t n, float s, int8_t* k);
int64_t QuantizeInt8Avx2(const float* x, int64_t n, float s, int8_t* k);
int64_t QuantizeInt8Avx512(const float* x, int64_t n, float s, int8_t* k);
void FakeQuantInt8Generic(const float* x, int64_t n, float s, float* y);
void FakeQuantInt8Avx2(const float* x, int64_t n, float s, float* y);
void FakeQuantInt8Avx512(const float* x, int64_t n, float s, float* y);
void SoftCapAvx2(float* x, int64_t n, float cap);
void SoftCapAvx512(float* x, int64_t n, float cap);
void SoftCapNeon(float* x, int64_t n, float cap);
void GeluTanhMulAvx2(const float* gate, const float* up, float* out, int64_t n);
void GeluTanhMulAvx512(const float* gate, const float* up, float* out, int64_t n);
void GeluTanhMulNeon(const float* gate, const float* up, float* out, int64_t n);
void ExpShiftedAvx2(const float* x, int64_t n, float shift, float scale, float* out);
void ExpShiftedAvx512(const float* x, int64_t n, float shift, float scale, float* out);
void ExpShiftedNeon(const float* x, int64_t n, float shift, float scale, float* out);
void GemmF32Generic(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
                    int64_t n, int64_t k);
void GemmF32Avx2(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
                 int64_t n, int64_t k);
void GemmF32Avx512(const float* a, int64_t lda, const float* b, int64_t ldb, float* c, int64_t ldc, int64_t m,
                   int64_t n, int64_t k);
void LinearLut4RGeneric(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                        float* y, int64_t ldy);
void LinearI8BRGeneric(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                       float* y, int64_t ldy);
void LinearI8BRAvx2(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                    float* y, int64_t ldy);
void LinearI8BRAvx512(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                      float* y, int64_t ldy);
void LinearLut2RGeneric(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                        float* y, int64_t ldy);
void LinearLut4RAvx2(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                     float* y, int64_t ldy);
void LinearLut2RAvx2(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                     float* y, int64_t ldy);
void LinearLut4RIntAvx2(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w, int64_t o_begin,
                        int64_t o_end, float* y, int64_t ldy);
void LinearLut2RIntAvx2(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w, int64_t o_begin,
                        int64_t o_end, float* y, int64_t ldy);
void LinearLut4RIntAvx512Vnni(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearLut2RIntAvx512Vnni(const LutIntActs& k, int64_t n, int64_t in, float s, const uint8_t* w,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearLut4RAvx512(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                       float* y, int64_t ldy);
void LinearLut2RAvx512(const float* x, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin, int64_t o_end,
                       float* y, int64_t ldy);
void QuantizeActsGeneric(const float* x, int64_t n, int64_t in, int8_t* q, float* d);
void LinearQ8RGeneric(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                      int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearQ4_0Generic(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                       int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
// The ggml types' portable kernels (kernels/cpu/linear_ggml_generic.cc).
void LinearGgmlQ8_0Generic(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                           int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ5_0Generic(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                           int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
// ggml Q8_0 / Q5_0 fast kernels (kernels/cpu/linear_ggml_q8_q5_{avx2,avx512vnni}.cc; the avx512
// table takes the VNNI ones where the CPU has VNNI, else the AVX2 ones).
void LinearGgmlQ8_0Avx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ5_0Avx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ8_0Avx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ5_0Avx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ4_KGeneric(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                           int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ6_KGeneric(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                           int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void QuantizeRowQ8RGeneric(const float* x, int64_t in, uint8_t* row);
// FP8 Linear kernels (kernels/cpu/linear_fp8_<isa>.cc).
void LinearF8RGeneric(const float* xq, const float* s, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin,
                      int64_t o_end, float* y, int64_t ldy);
void LinearF8RAvx2(const float* xq, const float* s, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin,
                   int64_t o_end, float* y, int64_t ldy);
void LinearF8RAvx512(const float* xq, const float* s, int64_t n, int64_t in, const uint8_t* w, int64_t o_begin,
                     int64_t o_end, float* y, int64_t ldy);
// AVX512-BF16 and AVX512-VBMI (VDPBF16PS, VPERMI2B); the avx512 table's FP8 Linear where both exist.
void LinearF8RAvx512Bf16(const float* xq, const float* s, int64_t n, int64_t in, const uint8_t* w,
                         int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void QuantizeRowQ4_0Generic(const float* x, int64_t in, uint8_t* scale, uint8_t* qs, size_t stride);
void QuantizeRowQ8RAvx2(const float* x, int64_t in, uint8_t* row);
void QuantizeRowQ4_0Avx2(const float* x, int64_t in, uint8_t* scale, uint8_t* qs, size_t stride);
void QuantizeActsAvx2(const float* x, int64_t n, int64_t in, int8_t* q, float* d);
void LinearQ8RAvx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                   int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearQ4_0Avx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                    int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearQ4_0x16Avx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                       int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
// AVX-512 VNNI (the avx512 table's quantized Linear where the CPU has VNNI, else the AVX2 ones).
void LinearQ8RAvx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                         int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearQ4_0Avx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                          int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearQ4_0x16Avx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                             int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
// ggml Q4_K / Q6_K fast kernels (kernels/cpu/linear_ggml_qk_avx2.cc, linear_ggml_qk_avx512vnni.cc).
void LinearGgmlQ4_KAvx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ6_KAvx2(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ4_KAvx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ6_KAvx512Vnni(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                              int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
// NEON kernels for kQ4_0 and the ggml Q8_0 / Q5_0 / Q4_K / Q6_K types (kernels/cpu/linear_q4_neon.cc,
// linear_ggml_neon.cc; aarch64 builds only; bit-identical to the portable ones).
void LinearQ4_0Neon(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                    int64_t o_begin, int64_t o_end, float* y, int64_t ldy);  // linear_q4_neon.cc
void LinearGgmlQ8_0Neon(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ5_0Neon(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ4_KNeon(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy);
void LinearGgmlQ6_KNeon(const int8_t* q, const float* d, int64_t n, int64_t in, const uint8_t* w, int64_t out,
                        int64_t o_begin, int64_t o_end, float* y, int64_t ldy);

}  // namespace gemmad::kernels
