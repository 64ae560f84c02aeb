// The attention-geometry part of config parsing: RoPE per layer type, the full-attention head
// dim / KV heads in both config layouts, and the validation of the finished Config.
#include <fmt/format.h>

#include <cstdlib>
#include <optional>
#include <set>

#include "io/json_fields.h"
#include "model/gemma4/config_internal.h"

namespace gemmad::model::gemma4::internal {
namespace {

using io::JsonFields;
using nlohmann::json;

Status ReadOneRope(const JsonFields& f, std::string_view type, RopeParams* out) {
  const json* obj = nullptr;
  GEMMAD_RETURN_IF_ERROR(f.Object(type, &obj));
  if (obj == nullptr) return f.Error(type, "missing (every layer type in use needs RoPE parameters)");
  JsonFields r(*obj, f.label(), f.ChildPath(type));
  RopeParams p;
  if (!r.Has("rope_type")) return r.Error("rope_type", "missing");
  GEMMAD_RETURN_IF_ERROR(r.String("rope_type", &p.rope_type));
  if (!r.Has("rope_theta")) return r.Error("rope_theta", "missing");
  GEMMAD_RETURN_IF_ERROR(r.Double("rope_theta", &p.rope_theta));
  if (p.rope_type == "proportional") {
    GEMMAD_RETURN_IF_ERROR(r.Double("partial_rotary_factor", &p.partial_rotary_factor));
    GEMMAD_RETURN_IF_ERROR(r.Double("factor", &p.factor));
  } else if (p.rope_type != "default") {  // "default" ignores factor and partial_rotary_factor
    return r.Error("rope_type", fmt::format("'{}' is not supported (expected default or proportional)", p.rope_type));
  }
  if (!(p.rope_theta > 0)) return r.Error("rope_theta", "must be positive");
  if (!(p.partial_rotary_factor > 0 && p.partial_rotary_factor <= 1)) {
    return r.Error("partial_rotary_factor", "must be in (0, 1]");
  }
  if (!(p.factor > 0)) return r.Error("factor", "must be positive");
  *out = p;
  return OkStatus();
}

// Effective (head_dim, num_key_value_heads) of one layer under per_layer_config.
struct LayerGeometry {
  int64_t head_dim, num_kv_heads;
};

Status ReadOverrides(const JsonFields& f, const json& plc, const Config& c, std::vector<LayerGeometry>* geo) {
  for (const auto& [key, value] : plc.items()) {
    char* end = nullptr;
    long idx = std::strtol(key.c_str(), &end, 10);
    if (key.empty() || *end != '\0' || idx < 0 || idx >= c.num_hidden_layers) {
      return f.Error("per_layer_config", fmt::format("key '{}' is not a layer index below {}", key, c.num_hidden_layers));
    }
    if (!value.is_object()) return f.Error("per_layer_config", fmt::format("entry '{}' is not an object", key));
    JsonFields o(value, f.label(), f.ChildPath("per_layer_config." + key));
    for (const auto& [field, v] : value.items()) {
      if (field != "head_dim" && field != "num_key_value_heads") {
        return o.Error(field, "per-layer override not supported (only head_dim and num_key_value_heads)");
      }
    }
    GEMMAD_RETURN_IF_ERROR(o.Int("head_dim", &(*geo)[idx].head_dim));
    GEMMAD_RETURN_IF_ERROR(o.Int("num_key_value_heads", &(*geo)[idx].num_kv_heads));
  }
  return OkStatus();
}

Status ReadPerLayerConfig(const JsonFields& f, const json& plc, Config* c) {
  std::vector<LayerGeometry> geo(c->num_hidden_layers, {c->head_dim, c->num_key_value_heads});
  GEMMAD_RETURN_IF_ERROR(ReadOverrides(f, plc, *c, &geo));
  std::optional<LayerGeometry> full;
  for (int64_t l = 0; l < c->num_hidden_layers; ++l) {
    const LayerGeometry& g = geo[l];
    if (c->is_sliding(l)) {
      if (g.head_dim != c->head_dim || g.num_kv_heads != c->num_key_value_heads) {
        return f.Error("per_layer_config", fmt::format("sliding layer {} overrides its geometry (only full-attention "
                                                       "layers may differ)", l));
      }
    } else if (!full) {
      full = g;
    } else if (g.head_dim != full->head_dim || g.num_kv_heads != full->num_kv_heads) {
      return f.Error("per_layer_config", fmt::format("full-attention layer {} differs from the other full layers", l));
    }
  }
  c->global_head_dim = full->head_dim;
  if (c->attention_k_eq_v) {
    c->num_global_key_value_heads = full->num_kv_heads;
  } else if (full->num_kv_heads != c->num_key_value_heads) {
    return f.Error("per_layer_config", "full-attention layers override num_key_value_heads without attention_k_eq_v "
                                       "(not supported)");
  }
  c->per_layer_config_layout = true;
  return OkStatus();
}

}  // namespace

Status ReadRopeParameters(const JsonFields& f, Config* c) {
  const json* rope = nullptr;
  GEMMAD_RETURN_IF_ERROR(f.Object("rope_parameters", &rope));
  if (rope == nullptr) return OkStatus();  // reference defaults (already in *c)
  JsonFields r(*rope, f.label(), f.ChildPath("rope_parameters"));
  bool any_sliding = false, any_full = false;
  for (LayerType t : c->layer_types) (t == LayerType::kSliding ? any_sliding : any_full) = true;
  if (any_sliding) GEMMAD_RETURN_IF_ERROR(ReadOneRope(r, "sliding_attention", &c->rope_sliding));
  if (any_full) GEMMAD_RETURN_IF_ERROR(ReadOneRope(r, "full_attention", &c->rope_full));
  return OkStatus();
}

Status ReadGlobalAttention(const JsonFields& f, Config* c) {
  const json* plc = nullptr;
  GEMMAD_RETURN_IF_ERROR(f.Object("per_layer_config", &plc));
  if (plc != nullptr) return ReadPerLayerConfig(f, *plc, c);  // wins over global_head_dim, as in the reference
  GEMMAD_RETURN_IF_ERROR(f.Int("global_head_dim", &c->global_head_dim));
  std::optional<int64_t> nkvg;
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("num_global_key_value_heads", &nkvg));
  c->num_global_key_value_heads = c->attention_k_eq_v ? nkvg.value_or(c->num_key_value_heads) : 0;
  return OkStatus();
}

}  // namespace gemmad::model::gemma4::internal
