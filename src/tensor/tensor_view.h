// TensorView: a non-owning, row-major, contiguous view of typed memory with up to 4 dims, on one
// device (the host unless said otherwise). Shapes are written outermost first, e.g.
// [num_tokens, hidden_size].
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "base/check.h"
#include "tensor/device.h"
#include "tensor/dtype.h"

namespace gemmad::tensor {

constexpr int kMaxDims = 4;

struct Shape {
  std::array<int64_t, kMaxDims> dims{};
  int rank = 0;

  Shape() = default;
  Shape(std::initializer_list<int64_t> d) {
    GEMMAD_CHECK(d.size() <= kMaxDims, "rank {} > {}", d.size(), kMaxDims);
    for (int64_t v : d) dims[rank++] = v;
  }
  int64_t operator[](int i) const { return dims[i]; }
  int64_t NumElements() const {
    int64_t n = 1;
    for (int i = 0; i < rank; ++i) n *= dims[i];
    return n;
  }
  bool operator==(const Shape& o) const {
    if (rank != o.rank) return false;
    for (int i = 0; i < rank; ++i) {
      if (dims[i] != o.dims[i]) return false;
    }
    return true;
  }
  // "[2, 3]".
  std::string ToString() const;
};

struct TensorView {
  void* data = nullptr;
  DType dtype = DType::kF32;
  Shape shape;
  Device device;  // where `data` lives; kernels check it against their backend's

  int64_t NumElements() const { return shape.NumElements(); }
  // Bytes of the whole view (the last dim is the row for the block-quantized types).
  size_t SizeBytes() const;
  template <typename T>
  T* As() const {
    return static_cast<T*>(data);
  }
  // Row r of a rank-2 view as a rank-1 view (same device).
  TensorView Row(int64_t r) const;
};

}  // namespace gemmad::tensor
