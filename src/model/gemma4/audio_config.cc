// audio_config parsing (see audio_config.h) and its validation.
#include "model/gemma4/audio_config.h"

#include <fmt/format.h>

#include <vector>

#include "io/json_fields.h"
#include "model/gemma4/config_internal.h"

namespace gemmad::model::gemma4 {
namespace internal {
namespace {

using io::JsonFields;
using nlohmann::json;

Status ReadChannels(const JsonFields& f, AudioConfig* c) {
  if (!f.Has("subsampling_conv_channels")) return OkStatus();
  std::vector<int64_t> ch;
  GEMMAD_RETURN_IF_ERROR(f.IntOrIntList("subsampling_conv_channels", &ch));
  if (ch.size() != 2) {
    return f.Error("subsampling_conv_channels", fmt::format("want a list of 2 channel counts, got {}", ch.size()));
  }
  c->subsampling_conv_channels = {ch[0], ch[1]};
  return OkStatus();
}

Status Validate(const JsonFields& f, const AudioConfig& c) {
  for (auto [key, v] : {std::pair<std::string_view, int64_t>{"hidden_size", c.hidden_size},
                        {"num_hidden_layers", c.num_hidden_layers},
                        {"num_attention_heads", c.num_attention_heads},
                        {"conv_kernel_size", c.conv_kernel_size},
                        {"attention_chunk_size", c.attention_chunk_size},
                        {"attention_context_left", c.attention_context_left},
                        {"output_proj_dims", c.output_proj_dims}}) {
    if (v <= 0) return f.Error(key, fmt::format("must be positive, got {}", v));
  }
  if (c.attention_context_right < 0) {
    return f.Error("attention_context_right", fmt::format("must not be negative, got {}", c.attention_context_right));
  }
  if (c.hidden_size % c.num_attention_heads != 0) {
    return f.Error("hidden_size", fmt::format("{} is not a multiple of num_attention_heads {}", c.hidden_size,
                                              c.num_attention_heads));
  }
  if (c.hidden_size % 2 != 0) {
    return f.Error("hidden_size", fmt::format("must be even (sin and cos halves of the relative table), got {}",
                                              c.hidden_size));
  }
  const auto [c0, c1] = c.subsampling_conv_channels;
  if (c0 <= 0 || c1 <= 0 || c0 % 4 != 0) {
    return f.Error("subsampling_conv_channels",
                   fmt::format("[{}, {}]: both must be positive and the first a multiple of 4 (two stride-2 convs "
                               "over as many mel bins)", c0, c1));
  }
  if (c.hidden_act != "silu" && c.hidden_act != "swish") {
    return f.Error("hidden_act", fmt::format("'{}' is not supported (expected silu)", c.hidden_act));
  }
  if (!(c.rms_norm_eps > 0)) return f.Error("rms_norm_eps", "must be positive");
  if (!(c.attention_logit_cap > 0)) return f.Error("attention_logit_cap", "must be positive");
  if (!(c.gradient_clipping > 0)) return f.Error("gradient_clipping", "must be positive");
  return OkStatus();
}

}  // namespace

Status ReadAudioConfig(const JsonFields& top, std::optional<AudioConfig>* out) {
  const json* node = nullptr;
  GEMMAD_RETURN_IF_ERROR(top.Object("audio_config", &node));
  out->reset();
  if (node == nullptr) return OkStatus();
  JsonFields f(*node, top.label(), top.ChildPath("audio_config"));
  std::optional<std::string> model_type;
  GEMMAD_RETURN_IF_ERROR(f.StringOpt("model_type", &model_type));
  if (model_type && *model_type != "gemma4_audio") {
    return f.Error("model_type", fmt::format("'{}' is not supported (expected gemma4_audio)", *model_type));
  }
  AudioConfig c;
  GEMMAD_RETURN_IF_ERROR(f.Int("hidden_size", &c.hidden_size));
  GEMMAD_RETURN_IF_ERROR(f.Int("num_hidden_layers", &c.num_hidden_layers));
  GEMMAD_RETURN_IF_ERROR(f.Int("num_attention_heads", &c.num_attention_heads));
  GEMMAD_RETURN_IF_ERROR(f.String("hidden_act", &c.hidden_act));
  GEMMAD_RETURN_IF_ERROR(ReadChannels(f, &c));
  GEMMAD_RETURN_IF_ERROR(f.Int("conv_kernel_size", &c.conv_kernel_size));
  GEMMAD_RETURN_IF_ERROR(f.Double("residual_weight", &c.residual_weight));
  GEMMAD_RETURN_IF_ERROR(f.Int("attention_chunk_size", &c.attention_chunk_size));
  GEMMAD_RETURN_IF_ERROR(f.Int("attention_context_left", &c.attention_context_left));
  GEMMAD_RETURN_IF_ERROR(f.Int("attention_context_right", &c.attention_context_right));
  GEMMAD_RETURN_IF_ERROR(f.Double("attention_logit_cap", &c.attention_logit_cap));
  GEMMAD_RETURN_IF_ERROR(f.Double("attention_invalid_logits_value", &c.attention_invalid_logits_value));
  GEMMAD_RETURN_IF_ERROR(f.Bool("use_clipped_linears", &c.use_clipped_linears));
  GEMMAD_RETURN_IF_ERROR(f.Double("rms_norm_eps", &c.rms_norm_eps));
  GEMMAD_RETURN_IF_ERROR(f.Double("gradient_clipping", &c.gradient_clipping));
  GEMMAD_RETURN_IF_ERROR(f.Int("output_proj_dims", &c.output_proj_dims));
  GEMMAD_RETURN_IF_ERROR(Validate(f, c));
  *out = c;
  return OkStatus();
}

}  // namespace internal

Result<std::optional<AudioConfig>> ParseAudioConfig(std::string_view json_text, std::string_view label) {
  GEMMAD_ASSIGN_OR_RETURN(nlohmann::json doc, io::ParseJsonText(json_text, label));
  if (!doc.is_object()) return InvalidArgumentError(fmt::format("{}: not a JSON object", label));
  io::JsonFields top(doc, std::string(label));
  std::optional<AudioConfig> out;
  GEMMAD_RETURN_IF_ERROR(internal::ReadAudioConfig(top, &out));
  return out;
}

}  // namespace gemmad::model::gemma4
