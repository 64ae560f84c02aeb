// The audio tower's SSCP subsampling (multimodal.md §4.3): two Conv2d 3×3 stride 2 pad 1, each as
// a channel-last im2col plus one GEMM, LayerNorm over channels (weight only), ReLU; the second
// conv's [T, F2, c1] output is already the (freq, channel)-flattened row input_proj reads. Every
// frame is valid, so the reference's masks zero nothing (its zero padding is Im2Col's).
#include "kernels/ops.h"
#include "model/gemma4/view_helpers.h"
#include "model/gemma4/audio_blocks.h"

namespace gemmad::model::gemma4::audio {
namespace {

using tensor::TensorView;

// out [Ho, Wo, Cout] = relu(LayerNorm_c(conv3x3s2(x [H, W, Cin]))); kernel: [Cout, 9·Cin] or packed.
void ConvLayer(const kernels::ExecContext& ctx, const TensorView& x, const TensorView& kernel, const TensorView& norm,
               float eps, Scratch& cols_buf, const TensorView& out) {
  const int64_t ho = out.shape[0], wo = out.shape[1], cin = x.shape[2], cout = out.shape[2];
  const TensorView cols = cols_buf.View({ho, wo, 9 * cin});
  kernels::Im2Col(ctx, x, 3, 2, 1, cols);
  const TensorView flat = Reshape(out, {ho * wo, cout});
  kernels::LinearGemm(ctx, Reshape(cols, {ho * wo, 9 * cin}), kernel, flat);
  kernels::LayerNorm(ctx, flat, norm, flat, eps);
  kernels::Relu(ctx, flat, flat);
}

}  // namespace

void Subsample(const kernels::ExecContext& ctx, const AudioConfig& c, const AudioWeights& w, const TensorView& features,
               Buffers& b, const TensorView& h) {
  const int64_t f = features.shape[0], m = features.shape[1];
  const int64_t c0 = c.subsampling_conv_channels[0], c1 = c.subsampling_conv_channels[1];
  const int64_t t1 = (f + 1) / 2, m1 = (m + 1) / 2, t2 = (t1 + 1) / 2, m2 = (m1 + 1) / 2;
  const auto eps = static_cast<float>(c.rms_norm_eps);
  const TensorView z1 = b.conv.View({t1, m1, c0});
  ConvLayer(ctx, Reshape(features, {f, m, 1}), w.conv0, w.norm0, eps, b.cols, z1);
  const TensorView z2 = b.normed.View({t2, m2, c1});
  ConvLayer(ctx, z1, w.conv1, w.norm1, eps, b.cols, z2);
  kernels::LinearGemm(ctx, Reshape(z2, {t2, m2 * c1}), w.input_proj, h);
}

}  // namespace gemmad::model::gemma4::audio
