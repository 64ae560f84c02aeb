// Registry selection: the highest supported ISA unless GEMMAD_CPU_ISA names another.
#include "kernels/registry.h"

#include <atomic>
#include <cstdlib>

namespace gemmad::kernels {
namespace {

std::atomic<const CpuKernelTable*> g_forced{nullptr};

const CpuKernelTable* ChooseAuto() {
  auto tables = SupportedCpuKernelTables();
  const char* want = std::getenv("GEMMAD_CPU_ISA");
  if (want != nullptr && *want != '\0') {
    for (const auto* t : tables) {
      if (t->name == want) return t;
    }
  }
  return tables.back();
}

}  // namespace

#if !defined(__x86_64__) && !defined(_M_X64)
const CpuKernelTable* Avx2CpuKernels() { return nullptr; }
const CpuKernelTable* Avx512CpuKernels() { return nullptr; }
#endif
#if !defined(__aarch64__)
const CpuKernelTable* NeonCpuKernels() { return nullptr; }
#endif

std::vector<const CpuKernelTable*> SupportedCpuKernelTables() {
  // Ascending preference: the automatic choice is the last one this CPU supports.
  std::vector<const CpuKernelTable*> out = {&GenericCpuKernels()};
  for (const CpuKernelTable* t : {Avx2CpuKernels(), Avx512CpuKernels(), NeonCpuKernels()}) {
    if (t != nullptr && t->supported()) out.push_back(t);
  }
  return out;
}

const CpuKernelTable& CpuKernels() {
  if (const auto* forced = g_forced.load(std::memory_order_acquire)) return *forced;
  static const CpuKernelTable* chosen = ChooseAuto();
  return *chosen;
}

void SetCpuKernelsForTesting(const CpuKernelTable* table) { g_forced.store(table, std::memory_order_release); }

}  // namespace gemmad::kernels
