// ProjLinear / ProjLinearMany (see layer_blocks.h): the Linears of a layer, with the static int8
// activation fake quantization of compressed-tensors a8/o8 schemes (Google's *-qat-mobile-ct, as
// vLLM's WNA8O8 scheme runs them): x' = clamp(round(x / s_in), -128, 127) · s_in (kernels::
// LinearStaticInt8, which multiplies the integers by code-table weights directly where it can), the
// product on the reference weights, then the same on y with s_out (round half to even; a scale of 0
// leaves that side as it is). Weights without scales go straight to the kernels.
#include <array>

#include "kernels/ops.h"
#include "model/gemma4/layer_blocks.h"

namespace gemmad::model::gemma4 {
namespace {

const Weights::ActScales* ScalesOf(const LayerContext& lc, const TensorView& w) {
  if (lc.weights.act_quant.empty()) return nullptr;
  auto it = lc.weights.act_quant.find(w.data);
  return it == lc.weights.act_quant.end() ? nullptr : &it->second;
}

}  // namespace

void ProjLinear(const LayerContext& lc, const TensorView& x, const TensorView& w, const TensorView& y) {
  const Weights::ActScales* s = ScalesOf(lc, w);
  if (s == nullptr || s->input <= 0.0f) {
    kernels::Linear(lc.exec, x, w, y);
  } else {
    kernels::LinearStaticInt8(lc.exec, x, s->input, w, y);  // the input fake-quantized with s_in
  }
  if (s != nullptr && s->output > 0.0f) kernels::FakeQuantInt8(lc.exec, y, s->output);
}

void ProjLinearMany(const LayerContext& lc, const TensorView& x, std::span<const TensorView> ws,
                    std::span<const TensorView> ys) {
  // Each weight's scales, looked up once: none at all is LinearMany; an input scale on every weight (at
  // most four) is one pool job (kernels::LinearStaticInt8Many), then each output's own fake
  // quantization; anything else goes weight by weight.
  std::array<const Weights::ActScales*, 4> scales{};
  std::array<float, 4> in{};
  bool any = false, all_static = ws.size() <= scales.size();
  for (size_t i = 0; i < ws.size(); ++i) {
    const Weights::ActScales* s = ScalesOf(lc, ws[i]);
    any = any || s != nullptr;
    all_static = all_static && s != nullptr && s->input > 0.0f;
    if (all_static) {
      scales[i] = s;
      in[i] = s->input;
    }
  }
  if (!any) {
    kernels::LinearMany(lc.exec, x, ws, ys);
  } else if (!all_static) {
    for (size_t i = 0; i < ws.size(); ++i) ProjLinear(lc, x, ws[i], ys[i]);
  } else {
    kernels::LinearStaticInt8Many(lc.exec, x, std::span<const float>(in.data(), ws.size()), ws, ys);
    for (size_t i = 0; i < ws.size(); ++i) {
      if (scales[i]->output > 0.0f) kernels::FakeQuantInt8(lc.exec, ys[i], scales[i]->output);
    }
  }
}

}  // namespace gemmad::model::gemma4
