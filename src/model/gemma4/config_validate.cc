// ValidateConfig: the structural rules a parsed Config must satisfy before weights are planned.
#include <fmt/format.h>

#include "io/json_fields.h"
#include "model/gemma4/config_internal.h"

namespace gemmad::model::gemma4::internal {
namespace {

using io::JsonFields;

Status Positive(const JsonFields& f, std::string_view key, int64_t v) {
  if (v <= 0) return f.Error(key, fmt::format("must be positive, got {}", v));
  return OkStatus();
}

Status ValidateSizes(const JsonFields& f, const Config& c) {
  GEMMAD_RETURN_IF_ERROR(Positive(f, "vocab_size", c.vocab_size));
  GEMMAD_RETURN_IF_ERROR(Positive(f, "hidden_size", c.hidden_size));
  GEMMAD_RETURN_IF_ERROR(Positive(f, "intermediate_size", c.intermediate_size));
  GEMMAD_RETURN_IF_ERROR(Positive(f, "num_hidden_layers", c.num_hidden_layers));
  GEMMAD_RETURN_IF_ERROR(Positive(f, "num_attention_heads", c.num_attention_heads));
  GEMMAD_RETURN_IF_ERROR(Positive(f, "num_key_value_heads", c.num_key_value_heads));
  GEMMAD_RETURN_IF_ERROR(Positive(f, "head_dim", c.head_dim));
  GEMMAD_RETURN_IF_ERROR(Positive(f, "global_head_dim", c.global_head_dim));
  GEMMAD_RETURN_IF_ERROR(Positive(f, "sliding_window", c.sliding_window));
  GEMMAD_RETURN_IF_ERROR(Positive(f, "max_position_embeddings", c.max_position_embeddings));
  if (c.head_dim % 2 != 0) return f.Error("head_dim", "must be even (RoPE pairs lanes)");
  if (c.global_head_dim % 2 != 0) return f.Error("global_head_dim", "must be even (RoPE pairs lanes)");
  if (!(c.rms_norm_eps > 0)) return f.Error("rms_norm_eps", "must be positive");
  if (c.final_logit_softcapping < 0) return f.Error("final_logit_softcapping", "must not be negative");
  return OkStatus();
}

Status ValidateHeads(const JsonFields& f, const Config& c) {
  if (c.num_attention_heads % c.num_key_value_heads != 0) {
    return f.Error("num_key_value_heads", fmt::format("{} does not divide num_attention_heads {}",
                                                      c.num_key_value_heads, c.num_attention_heads));
  }
  if (c.attention_k_eq_v) {
    int64_t g = c.num_global_key_value_heads;
    if (g <= 0 || c.num_attention_heads % g != 0) {
      return f.Error("num_global_key_value_heads",
                     fmt::format("{} must be positive and divide num_attention_heads {}", g, c.num_attention_heads));
    }
  }
  return OkStatus();
}

Status ValidateSharing(const JsonFields& f, const Config& c) {
  int64_t s = c.num_kv_shared_layers;
  if (s < 0 || s >= c.num_hidden_layers) {
    return f.Error("num_kv_shared_layers", fmt::format("{} must be in [0, num_hidden_layers={}) (a model whose "
                                                       "every layer is KV-shared is an assistant, not a target)",
                                                       s, c.num_hidden_layers));
  }
  for (int64_t l = c.first_kv_shared_layer(); l < c.num_hidden_layers; ++l) {
    if (c.kv_donor(l) < 0) {
      return f.Error("num_kv_shared_layers",
                     fmt::format("KV-shared layer {} has no earlier non-shared layer of the same type", l));
    }
  }
  return OkStatus();
}

Status ValidateFeatures(const JsonFields& f, const Config& c) {
  if (c.hidden_size_per_layer_input < 0) return f.Error("hidden_size_per_layer_input", "must not be negative");
  if (c.hidden_size_per_layer_input > 0 && c.vocab_size_per_layer_input <= 0) {
    return f.Error("vocab_size_per_layer_input", "must be positive when hidden_size_per_layer_input is set");
  }
  if (c.enable_moe_block) {
    GEMMAD_RETURN_IF_ERROR(Positive(f, "num_experts", c.num_experts));
    GEMMAD_RETURN_IF_ERROR(Positive(f, "moe_intermediate_size", c.moe_intermediate_size));
    if (c.top_k_experts <= 0 || c.top_k_experts > c.num_experts) {
      return f.Error("top_k_experts", fmt::format("{} must be in [1, num_experts={}]", c.top_k_experts, c.num_experts));
    }
  }
  if (c.hidden_activation != "gelu_pytorch_tanh" && c.hidden_activation != "gelu_new") {
    return f.Error("hidden_activation", fmt::format("'{}' is not supported (expected gelu_pytorch_tanh)",
                                                    c.hidden_activation));
  }
  if (!c.use_bidirectional_attention.empty() && c.use_bidirectional_attention != "vision") {
    return f.Error("use_bidirectional_attention",
                   fmt::format("'{}' is not supported (expected null or \"vision\")", c.use_bidirectional_attention));
  }
  return OkStatus();
}

}  // namespace

Status ValidateConfig(const JsonFields& f, const Config& c) {
  GEMMAD_RETURN_IF_ERROR(ValidateSizes(f, c));
  GEMMAD_RETURN_IF_ERROR(ValidateHeads(f, c));
  GEMMAD_RETURN_IF_ERROR(ValidateSharing(f, c));
  return ValidateFeatures(f, c);
}

}  // namespace gemmad::model::gemma4::internal
