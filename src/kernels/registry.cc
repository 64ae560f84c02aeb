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
#endif

std::vector<const CpuKernelTable*> SupportedCpuKernelTables() {
  std::vector<const CpuKernelTable*> out = {&GenericCpuKernels()};
  if (const auto* avx2 = Avx2CpuKernels(); avx2 != nullptr && avx2->supported()) out.push_back(avx2);
  return out;
}

const CpuKernelTable& CpuKernels() {
  if (const auto* forced = g_forced.load(std::memory_order_acquire)) return *forced;
  static const CpuKernelTable* chosen = ChooseAuto();
  return *chosen;
}

void SetCpuKernelsForTesting(const CpuKernelTable* table) { g_forced.store(table, std::memory_order_release); }

}  // namespace gemmad::kernels
