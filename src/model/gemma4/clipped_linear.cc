// ClippedLinears (see clipped_linear.h).
#include "model/gemma4/clipped_linear.h"

#include <array>

#include "kernels/ops.h"

namespace gemmad::model::gemma4 {
namespace {

using tensor::TensorView;

constexpr size_t kMaxGroup = 4;  // LinearMany's limit

}  // namespace

void ClippedLinears(const kernels::ExecContext& ctx, const TensorView& x, std::span<const ClippedLinear* const> ls,
                    std::span<const TensorView> ys, Scratch* scratch, LinearKernel kernel) {
  GEMMAD_CHECK(ls.size() == ys.size() && ls.size() <= kMaxGroup, "ClippedLinears: {} linears, {} outputs", ls.size(),
               ys.size());
  GEMMAD_CHECK(scratch != nullptr || ls.size() == 1, "ClippedLinears: in-place clamping needs a single linear");
  std::array<bool, kMaxGroup> done{};
  for (size_t i = 0; i < ls.size(); ++i) {
    if (done[i]) continue;
    // Group i: every later linear with the same input bounds.
    std::array<TensorView, kMaxGroup> ws, outs;
    size_t n = 0;
    for (size_t j = i; j < ls.size(); ++j) {
      if (done[j] || ls[j]->in_lo != ls[i]->in_lo || ls[j]->in_hi != ls[i]->in_hi) continue;
      done[j] = true;
      ws[n] = ls[j]->w;
      outs[n++] = ys[j];
    }
    TensorView in = x;
    if (ls[i]->clamps_input()) {
      if (scratch != nullptr) in = scratch->View(x.shape);
      kernels::Clamp(ctx, x, ls[i]->in_lo, ls[i]->in_hi, in);
    }
    if (kernel == LinearKernel::kGemm) {
      for (size_t j = 0; j < n; ++j) kernels::LinearGemm(ctx, in, ws[j], outs[j]);
    } else {
      kernels::LinearMany(ctx, in, std::span<const TensorView>(ws.data(), n), std::span<const TensorView>(outs.data(), n));
    }
  }
  for (size_t i = 0; i < ls.size(); ++i) {
    if (ls[i]->clamps_output()) kernels::Clamp(ctx, ys[i], ls[i]->out_lo, ls[i]->out_hi, ys[i]);
  }
}

}  // namespace gemmad::model::gemma4
