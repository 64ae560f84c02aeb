// vision_config parsing (see vision_config.h) and its validation.
#include "model/gemma4/vision_config.h"

#include <fmt/format.h>

#include "io/json_fields.h"
#include "model/gemma4/config_internal.h"

namespace gemmad::model::gemma4 {
namespace internal {
namespace {

using io::JsonFields;
using nlohmann::json;

Status ReadRope(const JsonFields& f, VisionConfig* c) {
  const json* rope = nullptr;
  GEMMAD_RETURN_IF_ERROR(f.Object("rope_parameters", &rope));
  if (rope == nullptr) {  // the reference's defaults
    c->rope_type = "default";
    c->rope_theta = 100.0;
    return OkStatus();
  }
  JsonFields r(*rope, f.label(), f.ChildPath("rope_parameters"));
  GEMMAD_RETURN_IF_ERROR(r.String("rope_type", &c->rope_type));
  GEMMAD_RETURN_IF_ERROR(r.Double("rope_theta", &c->rope_theta));
  if (c->rope_type != "default" && c->rope_type != "axial") {
    return r.Error("rope_type", fmt::format("'{}' is not supported (expected default or axial: the 2-D RoPE)",
                                            c->rope_type));
  }
  if (!(c->rope_theta > 0)) return r.Error("rope_theta", "must be positive");
  return OkStatus();
}

Status Positive(const JsonFields& f, std::string_view key, int64_t v) {
  if (v <= 0) return f.Error(key, fmt::format("must be positive, got {}", v));
  return OkStatus();
}

Status Validate(const JsonFields& f, const VisionConfig& c) {
  for (auto [key, v] : {std::pair<std::string_view, int64_t>{"hidden_size", c.hidden_size},
                        {"intermediate_size", c.intermediate_size},
                        {"num_hidden_layers", c.num_hidden_layers},
                        {"num_attention_heads", c.num_attention_heads},
                        {"num_key_value_heads", c.num_key_value_heads},
                        {"head_dim", c.head_dim},
                        {"patch_size", c.patch_size},
                        {"pooling_kernel_size", c.pooling_kernel_size},
                        {"position_embedding_size", c.position_embedding_size},
                        {"default_output_length", c.default_output_length}}) {
    GEMMAD_RETURN_IF_ERROR(Positive(f, key, v));
  }
  if (c.head_dim % 4 != 0) {
    return f.Error("head_dim", fmt::format("must be a multiple of 4 (2-D RoPE: two NeoX halves), got {}", c.head_dim));
  }
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    return f.Error("num_key_value_heads", fmt::format("{} does not divide num_attention_heads {}",
                                                      c.num_key_value_heads, c.num_attention_heads));
  }
  if (!(c.rms_norm_eps > 0)) return f.Error("rms_norm_eps", "must be positive");
  if (c.hidden_activation != "gelu_pytorch_tanh" && c.hidden_activation != "gelu_new") {
    return f.Error("hidden_activation", fmt::format("'{}' is not supported (expected gelu_pytorch_tanh)",
                                                    c.hidden_activation));
  }
  return OkStatus();
}

}  // namespace

Status ReadVisionConfig(const JsonFields& top, std::optional<VisionConfig>* out) {
  const json* node = nullptr;
  GEMMAD_RETURN_IF_ERROR(top.Object("vision_config", &node));
  out->reset();
  if (node == nullptr) return OkStatus();
  JsonFields f(*node, top.label(), top.ChildPath("vision_config"));
  std::optional<std::string> model_type;
  GEMMAD_RETURN_IF_ERROR(f.StringOpt("model_type", &model_type));
  if (model_type && *model_type != "gemma4_vision") {
    return f.Error("model_type", fmt::format("'{}' is not supported (expected gemma4_vision)", *model_type));
  }
  VisionConfig c;
  GEMMAD_RETURN_IF_ERROR(f.Int("hidden_size", &c.hidden_size));
  GEMMAD_RETURN_IF_ERROR(f.Int("intermediate_size", &c.intermediate_size));
  GEMMAD_RETURN_IF_ERROR(f.Int("num_hidden_layers", &c.num_hidden_layers));
  GEMMAD_RETURN_IF_ERROR(f.Int("num_attention_heads", &c.num_attention_heads));
  GEMMAD_RETURN_IF_ERROR(f.Int("num_key_value_heads", &c.num_key_value_heads));
  GEMMAD_RETURN_IF_ERROR(f.Int("head_dim", &c.head_dim));
  GEMMAD_RETURN_IF_ERROR(f.Int("patch_size", &c.patch_size));
  GEMMAD_RETURN_IF_ERROR(f.Int("pooling_kernel_size", &c.pooling_kernel_size));
  GEMMAD_RETURN_IF_ERROR(f.Int("position_embedding_size", &c.position_embedding_size));
  GEMMAD_RETURN_IF_ERROR(f.Double("rms_norm_eps", &c.rms_norm_eps));
  GEMMAD_RETURN_IF_ERROR(f.String("hidden_activation", &c.hidden_activation));
  GEMMAD_RETURN_IF_ERROR(f.Bool("use_clipped_linears", &c.use_clipped_linears));
  GEMMAD_RETURN_IF_ERROR(f.Bool("standardize", &c.standardize));
  std::optional<int64_t> length;
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("default_output_length", &length));
  c.default_output_length = length.value_or(280);
  bool bias = false;
  if (!f.IsNull("attention_bias")) GEMMAD_RETURN_IF_ERROR(f.Bool("attention_bias", &bias));
  if (bias) return f.Error("attention_bias", "true is not supported (the Gemma 4 vision tower has no biases)");
  GEMMAD_RETURN_IF_ERROR(ReadRope(f, &c));
  GEMMAD_RETURN_IF_ERROR(Validate(f, c));
  *out = c;
  return OkStatus();
}

}  // namespace internal

Result<std::optional<VisionConfig>> ParseVisionConfig(std::string_view json_text, std::string_view label) {
  GEMMAD_ASSIGN_OR_RETURN(nlohmann::json doc, io::ParseJsonText(json_text, label));
  if (!doc.is_object()) return InvalidArgumentError(fmt::format("{}: not a JSON object", label));
  io::JsonFields top(doc, std::string(label));
  std::optional<VisionConfig> out;
  GEMMAD_RETURN_IF_ERROR(internal::ReadVisionConfig(top, &out));
  return out;
}

}  // namespace gemmad::model::gemma4
