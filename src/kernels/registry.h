// CPU kernel registry: one table of function pointers per instruction set, chosen once at run
// time (the best one the CPU supports, or GEMMAD_CPU_ISA=generic|avx2 to force one). This is the
// single dispatch point optimised kernels plug into; every table is parity-tested against
// kernels/reference on every CPU that can run it.
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

struct CpuKernelTable {
  std::string_view name;  // "generic", "avx2"
  bool (*supported)();    // whether this CPU can run the table
  LinearF32Fn linear_f32;
  LinearBf16Fn linear_bf16;
  SoftCapFn softcap;
};

// The active table (chosen on first use; honours GEMMAD_CPU_ISA).
const CpuKernelTable& CpuKernels();
// Every compiled table this CPU can run, generic first.
std::vector<const CpuKernelTable*> SupportedCpuKernelTables();
// Forces a table (tests, benchmarks); nullptr restores the automatic choice.
void SetCpuKernelsForTesting(const CpuKernelTable* table);

// Per-ISA tables (defined in kernels/cpu/linear_<isa>.cc).
const CpuKernelTable& GenericCpuKernels();
const CpuKernelTable* Avx2CpuKernels();  // nullptr when not compiled for this architecture
// Table entries defined in their own ISA-flagged files (kernels/cpu/<op>_<isa>.cc).
void SoftCapAvx2(float* x, int64_t n, float cap);

}  // namespace gemmad::kernels
