// Grow-only step scratch over a kernels::Allocator.
#include "model/gemma4/step_buffers.h"

namespace gemmad::model::gemma4 {

void Scratch::Bind(kernels::Allocator& allocator) {
  if (allocator_ == &allocator) return;
  buffer_.Reset();
  allocator_ = &allocator;
}

tensor::TensorView Scratch::View(tensor::Shape shape, tensor::DType dtype) {
  const size_t bytes = static_cast<size_t>(shape.NumElements()) * tensor::DTypeSize(dtype);
  if (buffer_.size() < bytes) {
    buffer_.Reset();  // first, so that the old and the new buffer are never held at once
    buffer_ = kernels::DeviceBuffer(*allocator_, bytes);
    GEMMAD_CHECK(buffer_.data() != nullptr || bytes == 0, "step scratch: cannot allocate {} bytes on {}", bytes,
                 allocator_->device().ToString());
  }
  tensor::TensorView v;
  v.data = buffer_.data();
  v.dtype = dtype;
  v.shape = shape;
  v.device = allocator_->device();
  return v;
}

void StepBuffers::Bind(kernels::Allocator& allocator) {
  for (Scratch* s : {&x, &normed, &branch, &branch2, &q, &k, &v, &attn, &gate, &up, &router, &ple, &ple_tmp,
                     &ple_gate, &ple_slice, &head, &moe_weights, &moe_ids}) {
    s->Bind(allocator);
  }
}

}  // namespace gemmad::model::gemma4
