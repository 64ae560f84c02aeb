// ClippedLinear: the towers' clippable linear (multimodal.md §3.6; the audio tower's linears too,
// §4.2): y = clamp(clamp(x, in_lo, in_hi) · wᵀ, out_lo, out_hi), and ClippedLinears, which runs
// several of them over one input.
#pragma once

#include <limits>
#include <span>

#include "kernels/context.h"
#include "model/gemma4/step_buffers.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

struct ClippedLinear {
  static constexpr float kInf = std::numeric_limits<float>::infinity();
  tensor::TensorView w;  // [out, in] f32 (with LinearKernel::kGemm also kernels::PackGemmWeights' form)
  float in_lo = -kInf, in_hi = kInf, out_lo = -kInf, out_hi = kInf;
  bool clamps_input() const { return in_lo != -kInf || in_hi != kInf; }
  bool clamps_output() const { return out_lo != -kInf || out_hi != kInf; }
};

// How ClippedLinears multiplies: kernels::LinearMany (any weight dtype), or kernels::LinearGemm
// per linear (f32 weights, many rows: the audio tower's frames).
enum class LinearKernel { kRows, kGemm };

// ys[i] = clamp_out(clamp_in(x) · ls[i].wᵀ). Linears with equal input bounds share one clamped copy
// of x (in `scratch`) and one LinearMany (at most 4 linears). scratch == nullptr: x is clamped in
// place (one linear).
void ClippedLinears(const kernels::ExecContext& ctx, const tensor::TensorView& x,
                    std::span<const ClippedLinear* const> ls, std::span<const tensor::TensorView> ys, Scratch* scratch,
                    LinearKernel kernel = LinearKernel::kRows);

}  // namespace gemmad::model::gemma4
