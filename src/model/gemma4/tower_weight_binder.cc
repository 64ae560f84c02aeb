// TowerWeightBinder (see tower_weight_binder.h).
#include "model/gemma4/tower_weight_binder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "tensor/half.h"

#include <algorithm>

namespace gemmad::model::gemma4 {
namespace {

using tensor::DType;
using tensor::TensorView;

std::string ShapeString(const std::vector<int64_t>& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

}  // namespace

Status TowerWeightBinder::Bind(const std::string& name, const std::vector<int64_t>& want, TensorView* out) {
  const WeightInfo* info = source_.Info(name);
  if (info == nullptr) return DataLossError(fmt::format("{}: missing tensor '{}'", source_.label(), name));
  const bool scalar_ok = want.empty() && info->shape == std::vector<int64_t>{1};
  if (info->shape != want && !scalar_ok) {
    return DataLossError(fmt::format("{}: tensor '{}' has shape {}, the {} config implies {}", info->origin, name,
                                     ShapeString(info->shape), what_, ShapeString(want)));
  }
  if (!info->dtype || (*info->dtype != DType::kF32 && *info->dtype != DType::kBF16 && *info->dtype != DType::kF16)) {
    return DataLossError(fmt::format("{}: tensor '{}' has dtype {}, expected BF16, F16 or F32", info->origin, name,
                                     info->dtype_name));
  }
  GEMMAD_ASSIGN_OR_RETURN(TensorView v, source_.View(name));
  if (v.dtype != DType::kF32) {
    auto& buf = Own(v.NumElements());
    const auto* h = v.As<const uint16_t>();
    for (int64_t i = 0; i < v.NumElements(); ++i) {
      buf[i] = v.dtype == DType::kBF16 ? tensor::Bf16ToFloat(h[i]) : tensor::F16ToFloat(h[i]);
    }
    v.data = buf.data();
    v.dtype = DType::kF32;
  }
  *out = v;
  return OkStatus();
}

Status TowerWeightBinder::Bound(const std::string& name, float absent, float* out) {
  *out = absent;
  if (source_.Info(name) == nullptr) return OkStatus();
  TensorView v;
  GEMMAD_RETURN_IF_ERROR(Bind(name, {}, &v));
  *out = *v.As<const float>();
  return OkStatus();
}

Status TowerWeightBinder::Linear(const std::string& name, const std::map<std::string, std::vector<int64_t>>& shapes,
                                 bool clipped, ClippedLinear* out) {
  const std::string w = name + ".linear.weight";
  GEMMAD_RETURN_IF_ERROR(Bind(w, shapes.at(w), &out->w));
  if (!clipped) return OkStatus();
  GEMMAD_RETURN_IF_ERROR(Bound(name + ".input_min", -ClippedLinear::kInf, &out->in_lo));
  GEMMAD_RETURN_IF_ERROR(Bound(name + ".input_max", ClippedLinear::kInf, &out->in_hi));
  GEMMAD_RETURN_IF_ERROR(Bound(name + ".output_min", -ClippedLinear::kInf, &out->out_lo));
  GEMMAD_RETURN_IF_ERROR(Bound(name + ".output_max", ClippedLinear::kInf, &out->out_hi));
  if (!(out->in_lo <= out->in_hi) || !(out->out_lo <= out->out_hi)) {
    return DataLossError(fmt::format("{}: clip bounds of '{}' are empty or NaN: input [{}, {}], output [{}, {}]",
                                     source_.label(), name, out->in_lo, out->in_hi, out->out_lo, out->out_hi));
  }
  return OkStatus();
}

void TowerWeightBinder::Drop(const TensorView& v) {
  std::erase_if(*owned_, [&](const std::unique_ptr<std::vector<float>>& b) { return b->data() == v.data; });
}

std::vector<float>& TowerWeightBinder::Own(int64_t n) {
  owned_->push_back(std::make_unique<std::vector<float>>(static_cast<size_t>(n)));
  return *owned_->back();
}

TensorView TowerWeightBinder::OwnedView(std::vector<float>& buf, tensor::Shape shape) {
  TensorView v;
  v.data = buf.data();
  v.dtype = DType::kF32;
  v.shape = shape;
  return v;
}

}  // namespace gemmad::model::gemma4
