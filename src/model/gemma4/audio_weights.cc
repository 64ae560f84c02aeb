// LoadAudioWeights (see audio_weights.h).
#include "model/gemma4/audio_weights.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <string>
#include <unordered_set>

#include "kernels/ops.h"
#include "model/gemma4/audio_weight_spec.h"
#include "model/gemma4/tower_weight_binder.h"
#include "model/gemma4/tower_weight_spec.h"
#include "model/gemma4/view_helpers.h"

namespace gemmad::model::gemma4 {
namespace {

using tensor::TensorView;
using Shapes = std::map<std::string, std::vector<int64_t>>;

// Every model.audio_tower.* tensor must be one the config uses.
Status CheckNoStrayTensors(const WeightSource& source, const AudioConfig& c, const std::vector<WeightSpec>& spec) {
  std::unordered_set<std::string> known;
  for (const WeightSpec& w : spec) known.insert(w.name);
  for (const std::string& name : source.tensor_names()) {
    if (name.rfind(kAudioTowerPrefix, 0) != 0 || known.count(name) != 0) continue;
    const char* why = IsClipBound(name) && !c.use_clipped_linears ? " (audio_config.use_clipped_linears is false)" : "";
    return DataLossError(fmt::format("{}: unexpected tensor '{}': not part of the audio tower config.json describes{}",
                                     source.Info(name)->origin, name, why));
  }
  return OkStatus();
}

// w [out, in] in kernels::PackGemmWeights' layout (an owned copy; a converted w is freed).
TensorView PackForGemm(TowerWeightBinder& b, const TensorView& w) {
  const int64_t out = w.shape[0], in = w.shape[1], panels = (out + kernels::kGemmPanelCols - 1) / kernels::kGemmPanelCols;
  auto& buf = b.Own(panels * in * kernels::kGemmPanelCols);
  const TensorView packed = TowerWeightBinder::OwnedView(buf, {panels, in, kernels::kGemmPanelCols});
  kernels::PackGemmWeights(kernels::ExecContext{}, w, packed);
  b.Drop(w);
  return packed;
}

// The SSCP kernels as GEMM matrices over channel-last im2col rows.
Status BindSubsampling(TowerWeightBinder& b, const AudioConfig& c, const Shapes& shapes, AudioWeights* w) {
  const std::string s = std::string(kAudioTowerPrefix) + "subsample_conv_projection.";
  const int64_t c0 = c.subsampling_conv_channels[0], c1 = c.subsampling_conv_channels[1];
  TensorView conv0, conv1;
  GEMMAD_RETURN_IF_ERROR(b.Bind(s + "layer0.conv.weight", shapes.at(s + "layer0.conv.weight"), &conv0));
  GEMMAD_RETURN_IF_ERROR(b.Bind(s + "layer1.conv.weight", shapes.at(s + "layer1.conv.weight"), &conv1));
  w->conv0 = PackForGemm(b, Reshape(conv0, {c0, 9}));  // [c0, 1, 3, 3]: taps already (kt, kf)
  auto& k1 = b.Own(c1 * 9 * c0);      // [c1, c0, 3, 3] -> [c1, 3, 3, c0]
  const float* src = conv1.As<const float>();
  for (int64_t o = 0; o < c1; ++o) {
    for (int64_t i = 0; i < c0; ++i) {
      for (int64_t tap = 0; tap < 9; ++tap) k1[(o * 9 + tap) * c0 + i] = src[(o * c0 + i) * 9 + tap];
    }
  }
  w->conv1 = TowerWeightBinder::OwnedView(k1, {c1, 9 * c0});
  GEMMAD_RETURN_IF_ERROR(b.Bind(s + "layer0.norm.weight", {c0}, &w->norm0));
  GEMMAD_RETURN_IF_ERROR(b.Bind(s + "layer1.norm.weight", {c1}, &w->norm1));
  TensorView proj;
  GEMMAD_RETURN_IF_ERROR(b.Bind(s + "input_proj_linear.weight", shapes.at(s + "input_proj_linear.weight"), &proj));
  w->input_proj = PackForGemm(b, proj);
  return OkStatus();
}

// q_scale = dh^-0.5 / ln 2 · softplus(per_dim_scale) (torch softplus: x above 20 is kept).
Status BindQueryScale(TowerWeightBinder& b, const AudioConfig& c, const std::string& name, TensorView* out) {
  TensorView raw;
  const int64_t dh = c.head_dim();
  GEMMAD_RETURN_IF_ERROR(b.Bind(name, {dh}, &raw));
  const float q_scale = static_cast<float>(std::pow(static_cast<double>(dh), -0.5) / std::log(2.0));
  auto& qs = b.Own(dh);
  for (int64_t i = 0; i < dh; ++i) {
    const float x = raw.As<const float>()[i];
    const auto softplus = static_cast<float>(x > 20.0f ? x : std::log1p(std::exp(static_cast<double>(x))));
    qs[i] = q_scale * softplus;
  }
  *out = TowerWeightBinder::OwnedView(qs, {dh});
  return OkStatus();
}

Status BindLayer(TowerWeightBinder& b, const AudioConfig& c, const Shapes& shapes, int64_t l, AudioLayerWeights* lw) {
  const std::string p = fmt::format("{}layers.{}.", kAudioTowerPrefix, l);
  const int64_t d = c.hidden_size;
  const bool clip = c.use_clipped_linears;
  for (auto [n, ffn] : {std::pair{"feed_forward1.", &lw->ffn1}, {"feed_forward2.", &lw->ffn2}}) {
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + n + "pre_layer_norm.weight", {d}, &ffn->pre_norm));
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + n + "post_layer_norm.weight", {d}, &ffn->post_norm));
    GEMMAD_RETURN_IF_ERROR(b.Linear(p + n + "ffw_layer_1", shapes, clip, &ffn->up));
    GEMMAD_RETURN_IF_ERROR(b.Linear(p + n + "ffw_layer_2", shapes, clip, &ffn->down));
  }
  for (auto [n, v] : {std::pair{"norm_pre_attn", &lw->norm_pre_attn}, {"norm_post_attn", &lw->norm_post_attn},
                      {"norm_out", &lw->norm_out}, {"lconv1d.pre_layer_norm", &lw->lconv_pre_norm},
                      {"lconv1d.conv_norm", &lw->conv_norm}}) {
    GEMMAD_RETURN_IF_ERROR(b.Bind(p + n + ".weight", {d}, v));
  }
  for (auto [n, lin] : {std::pair{"self_attn.q_proj", &lw->q}, {"self_attn.k_proj", &lw->k}, {"self_attn.v_proj", &lw->v},
                        {"self_attn.post", &lw->post}, {"lconv1d.linear_start", &lw->linear_start},
                        {"lconv1d.linear_end", &lw->linear_end}}) {
    GEMMAD_RETURN_IF_ERROR(b.Linear(p + n, shapes, clip, lin));
  }
  for (ClippedLinear* l : {&lw->ffn1.up, &lw->ffn1.down, &lw->ffn2.up, &lw->ffn2.down, &lw->q, &lw->k, &lw->v, &lw->post,
                           &lw->linear_start, &lw->linear_end}) {
    l->w = PackForGemm(b, l->w);
  }
  GEMMAD_RETURN_IF_ERROR(b.Bind(p + "self_attn.relative_k_proj.weight", {d, d}, &lw->relative_k));
  GEMMAD_RETURN_IF_ERROR(BindQueryScale(b, c, p + "self_attn.per_dim_scale", &lw->q_scale));
  TensorView dw;
  GEMMAD_RETURN_IF_ERROR(b.Bind(p + "lconv1d.depthwise_conv1d.weight", {d, 1, c.conv_kernel_size}, &dw));
  lw->depthwise = Reshape(dw, {d, c.conv_kernel_size});
  return OkStatus();
}

}  // namespace

Result<AudioWeights> LoadAudioWeights(const WeightSource& source, const AudioConfig& c, int64_t text_hidden) {
  if (text_hidden <= 0) return InvalidArgumentError(fmt::format("audio projector: text hidden size {}", text_hidden));
  const std::vector<WeightSpec> spec = AudioWeightSpec(c, text_hidden);
  Shapes shapes;
  for (const WeightSpec& s : spec) shapes[s.name] = s.shape;
  GEMMAD_RETURN_IF_ERROR(CheckNoStrayTensors(source, c, spec));
  AudioWeights w;
  TowerWeightBinder b(source, "audio", &w.owned);
  GEMMAD_RETURN_IF_ERROR(BindSubsampling(b, c, shapes, &w));
  w.layers.resize(static_cast<size_t>(c.num_hidden_layers));
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    GEMMAD_RETURN_IF_ERROR(BindLayer(b, c, shapes, l, &w.layers[static_cast<size_t>(l)]));
  }
  const std::string t(kAudioTowerPrefix);
  GEMMAD_RETURN_IF_ERROR(b.Bind(t + "output_proj.weight", {c.output_proj_dims, c.hidden_size}, &w.output_proj));
  w.output_proj = PackForGemm(b, w.output_proj);
  TensorView bias;
  GEMMAD_RETURN_IF_ERROR(b.Bind(t + "output_proj.bias", {c.output_proj_dims}, &bias));
  w.output_bias = Reshape(bias, {1, c.output_proj_dims});
  GEMMAD_RETURN_IF_ERROR(b.Bind(std::string(kAudioProjection), {text_hidden, c.output_proj_dims}, &w.projection));
  return w;
}

}  // namespace gemmad::model::gemma4
