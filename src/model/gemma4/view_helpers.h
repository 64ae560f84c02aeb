// Small TensorView helpers the forward passes share (internal to model/gemma4): a view with
// another shape of the same size, an f32 (or other dtype) view of host memory, and a host copy of
// a device view.
#pragma once

#include <vector>

#include "base/check.h"
#include "kernels/context.h"
#include "kernels/ops.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

inline tensor::TensorView Reshape(tensor::TensorView v, tensor::Shape s) {
  GEMMAD_CHECK(v.NumElements() == s.NumElements(), "reshape {} -> {}", v.shape.ToString(), s.ToString());
  v.shape = s;
  return v;
}

inline tensor::TensorView HostView(const void* p, tensor::Shape shape, tensor::DType dtype = tensor::DType::kF32) {
  tensor::TensorView v;
  v.data = const_cast<void*>(p);
  v.dtype = dtype;
  v.shape = shape;
  v.device = tensor::kHost;
  return v;
}

// A host copy of an f32 view on the context's device (traces, recorded hidden states).
inline std::vector<float> ToHost(const kernels::ExecContext& ctx, const tensor::TensorView& v) {
  std::vector<float> out(static_cast<size_t>(v.NumElements()));
  if (!out.empty()) kernels::Copy(ctx, v, HostView(out.data(), v.shape));
  return out;
}

}  // namespace gemmad::model::gemma4
