// ParseGemma3Config: a `gemma3_text` config.json (transformers 5.25's Gemma3TextConfig, the text
// decoder of Gemma3ForCausalLM) read into the shared Config with Gemma 3's defaults and switches:
// attention scale query_pre_attn_scalar^-0.5, no v_norm, norm weights meaning x̂·(1 + w), no layer
// scalars, PLE, MoE, KV sharing or k_eq_v, full rotary on both layer types (global head dim = head_dim).
// RoPE as Gemma3TextConfig.convert_rope_params_to_dict resolves it: `rope_parameters` per layer
// type, else the older top-level `rope_theta` (full layers, default 1e6), `rope_local_base_freq`
// (sliding layers, default 1e4) and `rope_scaling` (merged into the full layers' entry).
#include <fmt/format.h>

#include <cmath>
#include <optional>

#include "io/json_fields.h"
#include "model/gemma4/config_internal.h"

namespace gemmad::model::gemma4::internal {
namespace {

using io::JsonFields;
using nlohmann::json;

// Gemma3TextConfig's defaults for every field a config.json may omit.
Config Gemma3Defaults() {
  Config c;
  c.family = Family::kGemma3;
  c.model_type = "gemma3_text";
  c.vocab_size = 262208;
  c.hidden_size = 2304;
  c.intermediate_size = 9216;
  c.num_hidden_layers = 26;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 4;
  c.head_dim = 256;
  c.max_position_embeddings = 131072;
  c.sliding_window = 4096;
  c.rms_norm_eps = 1e-6;
  c.final_logit_softcapping = 0.0;
  c.query_pre_attn_scalar = 256.0;
  c.hidden_size_per_layer_input = 0;
  c.vocab_size_per_layer_input = 0;
  c.eos_token_ids = {1};
  c.v_norm = false;
  c.norm_weight_plus_one = true;
  c.has_layer_scalar = false;
  return c;
}

// One layer type's RoPE entry, with `overlay` (rope_scaling) merged in. As standardize_rope_params:
// rope_type, else the legacy "type" key, else "default"; rope_theta, else `theta_default`.
Status ReadGemma3Rope(const JsonFields& r, std::string_view type, const json* overlay, double theta_default,
                      RopeParams* out) {
  const json* obj = nullptr;
  GEMMAD_RETURN_IF_ERROR(r.Object(type, &obj));
  // An absent entry is {"rope_type": "default"} before the merge, so a legacy rope_scaling
  // {"type": "linear"} does not make it linear (transformers 5.25 keeps it default).
  json entry = obj != nullptr ? *obj : json{{"rope_type", "default"}};
  if (overlay != nullptr) entry.update(*overlay);  // rope_scaling: dict.update, as the reference does
  JsonFields e(entry, r.label(), r.ChildPath(type));
  RopeParams p;
  p.rope_theta = theta_default;
  std::string legacy_type = "default";
  GEMMAD_RETURN_IF_ERROR(e.String("type", &legacy_type));
  p.rope_type = legacy_type;
  GEMMAD_RETURN_IF_ERROR(e.String("rope_type", &p.rope_type));
  GEMMAD_RETURN_IF_ERROR(e.Double("rope_theta", &p.rope_theta));
  if (!(p.rope_theta > 0)) return e.Error("rope_theta", "must be positive");
  if (p.rope_type == "linear") {
    if (!e.Has("factor")) return e.Error("factor", "missing (required by rope_type linear)");
    GEMMAD_RETURN_IF_ERROR(e.Double("factor", &p.factor));
    if (!(p.factor > 0)) return e.Error("factor", "must be positive");
    GEMMAD_RETURN_IF_ERROR(e.Double("partial_rotary_factor", &p.partial_rotary_factor));
    if (p.partial_rotary_factor != 1.0) {
      return e.Error("partial_rotary_factor", "must be 1 (Gemma 3 rotates the whole head)");
    }
  } else if (p.rope_type != "default") {  // "default" ignores factor and partial_rotary_factor
    return e.Error("rope_type", fmt::format("'{}' is not supported for gemma3_text (expected default or linear)",
                                            p.rope_type));
  }
  *out = p;
  return OkStatus();
}

Status ReadRope(const JsonFields& f, Config* c) {
  const json* params = nullptr;
  const json* scaling = nullptr;
  GEMMAD_RETURN_IF_ERROR(f.Object("rope_parameters", &params));
  GEMMAD_RETURN_IF_ERROR(f.Object("rope_scaling", &scaling));
  std::optional<double> theta, local_theta;
  GEMMAD_RETURN_IF_ERROR(f.DoubleOpt("rope_theta", &theta));
  GEMMAD_RETURN_IF_ERROR(f.DoubleOpt("rope_local_base_freq", &local_theta));
  const json empty = json::object();
  JsonFields r(params != nullptr ? *params : empty, f.label(), f.ChildPath("rope_parameters"));
  GEMMAD_RETURN_IF_ERROR(ReadGemma3Rope(r, "full_attention", scaling, theta.value_or(1e6), &c->rope_full));
  return ReadGemma3Rope(r, "sliding_attention", nullptr, local_theta.value_or(1e4), &c->rope_sliding);
}

// The Gemma-3-only fields and the switches they imply.
Status ReadAttention(const JsonFields& f, Config* c) {
  GEMMAD_RETURN_IF_ERROR(f.Double("query_pre_attn_scalar", &c->query_pre_attn_scalar));
  if (!(c->query_pre_attn_scalar > 0)) return f.Error("query_pre_attn_scalar", "must be positive");
  c->attention_scale = std::pow(c->query_pre_attn_scalar, -0.5);
  std::optional<double> attn_cap;
  GEMMAD_RETURN_IF_ERROR(f.DoubleOpt("attn_logit_softcapping", &attn_cap));
  if (attn_cap) {
    return f.Error("attn_logit_softcapping", "attention logit soft-capping is not supported (expected null)");
  }
  if (f.Has("use_bidirectional_attention") && !f.IsNull("use_bidirectional_attention")) {
    bool bidi = false;
    GEMMAD_RETURN_IF_ERROR(f.Bool("use_bidirectional_attention", &bidi));
    if (bidi) return f.Error("use_bidirectional_attention", "true is not supported (a causal decoder is served)");
  }
  return OkStatus();
}

Status ReadGemma3LayerTypes(const JsonFields& f, Config* c) {
  int64_t pattern = 6;  // the older `sliding_window_pattern` (HF's default 6) when layer_types is absent
  GEMMAD_RETURN_IF_ERROR(f.Int("sliding_window_pattern", &pattern));
  if (pattern <= 0) return f.Error("sliding_window_pattern", "must be positive");
  GEMMAD_RETURN_IF_ERROR(ReadLayerTypes(f, pattern, c));
  for (LayerType t : c->layer_types) {
    if (t == LayerType::kFull) return OkStatus();
  }
  return f.Error("layer_types", "has no full_attention layer (gemmad's KV planning needs one)");
}

}  // namespace

Result<Config> ParseGemma3Config(const JsonFields& f) {
  Config c = Gemma3Defaults();
  GEMMAD_RETURN_IF_ERROR(f.StringList("architectures", &c.architectures));
  GEMMAD_RETURN_IF_ERROR(ReadCommonDims(f, &c));
  GEMMAD_RETURN_IF_ERROR(ReadTokens(f, f, &c));
  GEMMAD_RETURN_IF_ERROR(ReadAttention(f, &c));
  GEMMAD_RETURN_IF_ERROR(ReadGemma3LayerTypes(f, &c));
  GEMMAD_RETURN_IF_ERROR(ReadRope(f, &c));
  c.global_head_dim = c.head_dim;
  GEMMAD_RETURN_IF_ERROR(ValidateConfig(f, c));
  return c;
}

}  // namespace gemmad::model::gemma4::internal
