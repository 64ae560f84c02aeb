// TowerWeightBinder: binds the tensors of a vision or audio tower from a WeightSource as float32
// (f32 tensors zero-copy, bf16/f16 widened once into owned copies), shape-checked, with clippable
// linears' optional scalar bounds (absent: ±inf, no clipping). Errors name the tensor.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/gemma4/clipped_linear.h"
#include "model/weight_source.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

class TowerWeightBinder {
 public:
  // `what` names the config in shape errors ("vision", "audio"); converted and prepared tensors
  // are kept in `owned`, which must outlive the views.
  TowerWeightBinder(const WeightSource& source, std::string what,
                    std::vector<std::unique_ptr<std::vector<float>>>* owned)
      : source_(source), what_(std::move(what)), owned_(owned) {}

  // `name` as float32 with shape `want` (scalars: [] or [1]).
  Status Bind(const std::string& name, const std::vector<int64_t>& want, tensor::TensorView* out);
  // A clip bound's value; absent -> `absent`.
  Status Bound(const std::string& name, float absent, float* out);
  // `name`.linear.weight with the shape shapes[that name], and its bounds when `clipped`.
  Status Linear(const std::string& name, const std::map<std::string, std::vector<int64_t>>& shapes, bool clipped,
                ClippedLinear* out);

  // Frees the owned buffer that holds `v`'s data (a converted tensor replaced by a prepared one);
  // no-op for a view of the source's memory.
  void Drop(const tensor::TensorView& v);
  // A new owned buffer of n floats, and an f32 host view of one.
  std::vector<float>& Own(int64_t n);
  static tensor::TensorView OwnedView(std::vector<float>& buf, tensor::Shape shape);

 private:
  const WeightSource& source_;
  std::string what_;
  std::vector<std::unique_ptr<std::vector<float>>>* owned_;
};

}  // namespace gemmad::model::gemma4
