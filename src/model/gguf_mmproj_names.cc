// MapMmprojTensorName (see gguf_mmproj_names.h).
#include "model/gguf_mmproj_names.h"

#include <array>
#include <utility>

namespace gemmad::model {
namespace {

struct Rule {
  std::string_view gguf;  // the part after "v.blk.N." / "a.blk.N." (or the whole name)
  std::string_view hf;    // the part after "...layers.N." (or the whole name)
  bool linear = false;    // a clippable linear: ".weight" is HF's ".linear.weight", clip bounds follow
  MmprojTransform transform = MmprojTransform::kNone;
};

constexpr std::string_view kVisionLayers = "model.vision_tower.encoder.layers.";
constexpr std::string_view kAudioLayers = "model.audio_tower.layers.";

constexpr std::array<Rule, 14> kVisionBlock = {{
    {"ln1", "input_layernorm"},
    {"ln2", "pre_feedforward_layernorm"},
    {"attn_post_norm", "post_attention_layernorm"},
    {"ffn_post_norm", "post_feedforward_layernorm"},
    {"attn_q_norm", "self_attn.q_norm"},
    {"attn_k_norm", "self_attn.k_norm"},
    {"attn_q", "self_attn.q_proj", true},
    {"attn_k", "self_attn.k_proj", true},
    {"attn_v", "self_attn.v_proj", true},
    {"attn_out", "self_attn.o_proj", true},
    {"ffn_gate", "mlp.gate_proj", true},
    {"ffn_up", "mlp.up_proj", true},
    {"ffn_down", "mlp.down_proj", true},
    {"out_scale", "layer_scalar", false, MmprojTransform::kUnitLayerScale},
}};

constexpr std::array<Rule, 22> kAudioBlock = {{
    {"ffn_norm", "feed_forward1.pre_layer_norm"},
    {"ffn_up", "feed_forward1.ffw_layer_1", true},
    {"ffn_down", "feed_forward1.ffw_layer_2", true},
    {"ffn_post_norm", "feed_forward1.post_layer_norm"},
    {"ffn_norm_1", "feed_forward2.pre_layer_norm"},
    {"ffn_up_1", "feed_forward2.ffw_layer_1", true},
    {"ffn_down_1", "feed_forward2.ffw_layer_2", true},
    {"ffn_post_norm_1", "feed_forward2.post_layer_norm"},
    {"attn_pre_norm", "norm_pre_attn"},
    {"attn_post_norm", "norm_post_attn"},
    {"ln2", "norm_out"},
    {"attn_q", "self_attn.q_proj", true},
    {"attn_k", "self_attn.k_proj", true},
    {"attn_v", "self_attn.v_proj", true},
    {"attn_out", "self_attn.post", true},
    {"attn_k_rel", "self_attn.relative_k_proj"},
    {"per_dim_scale", "self_attn.per_dim_scale", false, MmprojTransform::kSoftplus},
    {"per_dim_k_scale", "self_attn.per_dim_key_scale", false, MmprojTransform::kSoftplus},
    {"conv_norm", "lconv1d.pre_layer_norm"},
    {"conv_pw1", "lconv1d.linear_start", true},
    {"conv_dw", "lconv1d.depthwise_conv1d", false, MmprojTransform::kDepthwiseConv},
    {"conv_pw2", "lconv1d.linear_end", true},
}};
// "a.blk.N.norm_conv" is the lconv1d's conv_norm (after the depthwise conv); listed apart because
// "conv_norm" above is the block's pre-norm (the converter's names, not ours).
constexpr Rule kAudioConvNorm = {"norm_conv", "lconv1d.conv_norm"};

struct Whole {
  std::string_view gguf, hf;
  MmprojTransform transform = MmprojTransform::kNone;
};
constexpr std::array<Whole, 13> kWhole = {{
    {"v.patch_embd.weight", "model.vision_tower.patch_embedder.input_proj.weight", MmprojTransform::kPatchEmbed},
    {"v.position_embd.weight", "model.vision_tower.patch_embedder.position_embedding_table"},
    {"v.std_bias", "model.vision_tower.std_bias"},
    {"v.std_scale", "model.vision_tower.std_scale"},
    {"mm.input_projection.weight", "model.embed_vision.embedding_projection.weight"},
    {"a.conv1d.0.weight", "model.audio_tower.subsample_conv_projection.layer0.conv.weight"},
    {"a.conv1d.0.norm.weight", "model.audio_tower.subsample_conv_projection.layer0.norm.weight"},
    {"a.conv1d.1.weight", "model.audio_tower.subsample_conv_projection.layer1.conv.weight"},
    {"a.conv1d.1.norm.weight", "model.audio_tower.subsample_conv_projection.layer1.norm.weight"},
    {"a.input_projection.weight", "model.audio_tower.subsample_conv_projection.input_proj_linear.weight"},
    {"a.pre_encode.out.weight", "model.audio_tower.output_proj.weight"},
    {"a.pre_encode.out.bias", "model.audio_tower.output_proj.bias"},
    {"mm.a.input_projection.weight", "model.embed_audio.embedding_projection.weight"},
}};

constexpr std::array<std::string_view, 4> kBounds = {"input_min", "input_max", "output_min", "output_max"};

// "N.rest" -> (N, rest) for a decimal N without leading zeros.
std::optional<std::pair<std::string_view, std::string_view>> SplitIndex(std::string_view s) {
  const size_t dot = s.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 5) return std::nullopt;
  const std::string_view index = s.substr(0, dot);
  if (index.size() > 1 && index[0] == '0') return std::nullopt;
  for (char ch : index) {
    if (ch < '0' || ch > '9') return std::nullopt;
  }
  return std::pair{index, s.substr(dot + 1)};
}

std::optional<MmprojTensorMapping> MapBlock(std::string_view rest, std::string_view index, std::string_view hf_prefix,
                                            const Rule* rules, size_t n) {
  const size_t dot = rest.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const std::string_view base = rest.substr(0, dot), suffix = rest.substr(dot + 1);
  for (size_t i = 0; i < n; ++i) {
    const Rule& r = rules[i];
    if (base != r.gguf) continue;
    const std::string hf = std::string(hf_prefix) + std::string(index) + "." + std::string(r.hf);
    if (suffix == "weight") {
      if (r.transform == MmprojTransform::kSoftplus || r.transform == MmprojTransform::kUnitLayerScale) {
        return MmprojTensorMapping{hf, r.transform};  // HF names these without ".weight"
      }
      return MmprojTensorMapping{hf + (r.linear ? ".linear.weight" : ".weight"), r.transform};
    }
    if (!r.linear) return std::nullopt;
    for (std::string_view b : kBounds) {
      if (suffix == b) return MmprojTensorMapping{hf + "." + std::string(b), MmprojTransform::kScalar};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<MmprojTensorMapping> MapMmprojTensorName(std::string_view name) {
  for (const Whole& w : kWhole) {
    if (name == w.gguf) return MmprojTensorMapping{std::string(w.hf), w.transform};
  }
  if (name.starts_with("v.blk.")) {
    auto split = SplitIndex(name.substr(6));
    if (!split) return std::nullopt;
    return MapBlock(split->second, split->first, kVisionLayers, kVisionBlock.data(), kVisionBlock.size());
  }
  if (name.starts_with("a.blk.")) {
    auto split = SplitIndex(name.substr(6));
    if (!split) return std::nullopt;
    if (auto m = MapBlock(split->second, split->first, kAudioLayers, &kAudioConvNorm, 1)) return m;
    return MapBlock(split->second, split->first, kAudioLayers, kAudioBlock.data(), kAudioBlock.size());
  }
  return std::nullopt;
}

}  // namespace gemmad::model
