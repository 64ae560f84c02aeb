// AudioWeightSpec: tensor names and shapes per multimodal.md §4.2.
#include "model/gemma4/audio_weight_spec.h"

#include <fmt/format.h>

#include <string>

namespace gemmad::model::gemma4 {

std::vector<WeightSpec> AudioWeightSpec(const AudioConfig& c, int64_t text_hidden) {
  std::vector<WeightSpec> out;
  const std::string t(kAudioTowerPrefix);
  const int64_t d = c.hidden_size, c0 = c.subsampling_conv_channels[0], c1 = c.subsampling_conv_channels[1];
  const bool clip = c.use_clipped_linears;
  const std::string s = t + "subsample_conv_projection.";
  AddTowerTensor(&out, s + "layer0.conv.weight", {c0, 1, 3, 3});
  AddTowerTensor(&out, s + "layer0.norm.weight", {c0});
  AddTowerTensor(&out, s + "layer1.conv.weight", {c1, c0, 3, 3});
  AddTowerTensor(&out, s + "layer1.norm.weight", {c1});
  // HF sizes it (c0 / 4) · c1: the flattened (freq, channel) width when n_mels == c0 (§4.3).
  AddTowerTensor(&out, s + "input_proj_linear.weight", {d, (c0 / 4) * c1});
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format("{}layers.{}.", t, l);
    for (const char* ff : {"feed_forward1.", "feed_forward2."}) {
      AddTowerTensor(&out, p + ff + "pre_layer_norm.weight", {d});
      AddClippableLinear(&out, clip, p + ff + "ffw_layer_1", 4 * d, d);
      AddClippableLinear(&out, clip, p + ff + "ffw_layer_2", d, 4 * d);
      AddTowerTensor(&out, p + ff + "post_layer_norm.weight", {d});
    }
    for (const char* n : {"norm_pre_attn", "norm_post_attn", "norm_out"}) AddTowerTensor(&out, p + n + ".weight", {d});
    for (const char* n : {"q_proj", "k_proj", "v_proj", "post"}) {
      AddClippableLinear(&out, clip, p + "self_attn." + n, d, d);
    }
    AddTowerTensor(&out, p + "self_attn.relative_k_proj.weight", {d, d});
    AddTowerTensor(&out, p + "self_attn.per_dim_scale", {c.head_dim()});
    AddTowerTensor(&out, p + "lconv1d.pre_layer_norm.weight", {d});
    AddClippableLinear(&out, clip, p + "lconv1d.linear_start", 2 * d, d);
    AddTowerTensor(&out, p + "lconv1d.depthwise_conv1d.weight", {d, 1, c.conv_kernel_size});
    AddTowerTensor(&out, p + "lconv1d.conv_norm.weight", {d});
    AddClippableLinear(&out, clip, p + "lconv1d.linear_end", d, d);
  }
  AddTowerTensor(&out, t + "output_proj.weight", {c.output_proj_dims, d});
  AddTowerTensor(&out, t + "output_proj.bias", {c.output_proj_dims});
  AddTowerTensor(&out, std::string(kAudioProjection), {text_hidden, c.output_proj_dims});
  return out;
}

}  // namespace gemmad::model::gemma4
