// Helpers for kernel parity tests: misaligned buffers of random values and view construction.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "base/rng.h"
#include "kernels/registry.h"
#include "tensor/half.h"
#include "tensor/tensor_view.h"

namespace gemmad::kernels::testing {

// A buffer whose data() is offset by one element from the allocation, so SIMD code cannot rely
// on alignment.
template <typename T>
class Misaligned {
 public:
  explicit Misaligned(int64_t n) : buf_(static_cast<size_t>(n) + 1) {}
  T* data() { return buf_.data() + 1; }
  const T* data() const { return buf_.data() + 1; }
  T& operator[](int64_t i) { return data()[i]; }
  int64_t size() const { return static_cast<int64_t>(buf_.size()) - 1; }

 private:
  std::vector<T> buf_;
};

// A copy of `src` one byte past an aligned allocation (quantized weight bytes for the kernels).
inline Misaligned<uint8_t> OddBytes(const std::vector<uint8_t>& src) {
  Misaligned<uint8_t> m(static_cast<int64_t>(src.size()));
  std::copy(src.begin(), src.end(), m.data());
  return m;
}

inline Misaligned<float> RandomFloats(Rng& rng, int64_t n, double scale = 1.0) {
  Misaligned<float> m(n);
  for (int64_t i = 0; i < n; ++i) m[i] = static_cast<float>(rng.Normal() * scale);
  return m;
}

// bf16 copies of random values; `as_float` receives the exactly representable floats.
inline Misaligned<uint16_t> RandomBf16(Rng& rng, int64_t n, std::vector<float>* as_float, double scale = 1.0) {
  Misaligned<uint16_t> m(n);
  as_float->resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    m[i] = tensor::FloatToBf16(static_cast<float>(rng.Normal() * scale));
    (*as_float)[i] = tensor::Bf16ToFloat(m[i]);
  }
  return m;
}

inline tensor::TensorView View(const void* p, tensor::DType dt, tensor::Shape s) {
  tensor::TensorView v;
  v.data = const_cast<void*>(p);
  v.dtype = dt;
  v.shape = s;
  return v;
}

inline void ExpectClose(const float* got, const float* want, int64_t n, double atol, double rtol,
                        const std::string& what) {
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_NEAR(got[i], want[i], atol + rtol * std::fabs(want[i])) << what << " at " << i;
  }
}

// Runs body once per supported CPU kernel table, restoring the automatic choice afterwards.
template <typename F>
void ForEachKernelTable(F body) {
  for (const CpuKernelTable* t : SupportedCpuKernelTables()) {
    SCOPED_TRACE(std::string(t->name));
    SetCpuKernelsForTesting(t);
    body(*t);
  }
  SetCpuKernelsForTesting(nullptr);
}

}  // namespace gemmad::kernels::testing
