// ParseAssistantConfig: the assistant fields, then the text_config through ParseConfig.
#include "model/gemma4/assistant_config.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

namespace gemmad::model::gemma4 {
namespace {

Status FieldError(std::string_view label, std::string_view field, std::string_view what) {
  return InvalidArgumentError(fmt::format("{}: {}: {}", label, field, what));
}

Result<int64_t> PositiveInt(const nlohmann::json& j, std::string_view label, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer() || it->get<int64_t>() <= 0) {
    return FieldError(label, key, "must be a positive integer");
  }
  return it->get<int64_t>();
}

}  // namespace

Result<AssistantConfig> ParseAssistantConfig(std::string_view json_text, std::string_view label) {
  nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object()) return InvalidArgumentError(fmt::format("{}: not a JSON object", label));
  auto type_it = j.find("model_type");
  const std::string model_type = type_it != j.end() && type_it->is_string() ? type_it->get<std::string>() : "";
  if (model_type != "gemma4_assistant") {
    return FieldError(label, "model_type", fmt::format("'{}' is not a Gemma 4 assistant (gemma4_assistant)", model_type));
  }
  AssistantConfig a;
  GEMMAD_ASSIGN_OR_RETURN(a.backbone_hidden_size, PositiveInt(j, label, "backbone_hidden_size"));
  auto ordered = j.find("use_ordered_embeddings");
  a.use_ordered_embeddings = ordered != j.end() && ordered->is_boolean() && ordered->get<bool>();
  auto text = j.find("text_config");
  if (text == j.end() || !text->is_object()) return FieldError(label, "text_config", "missing");
  nlohmann::json t = *text;
  auto int_field = [&](const char* key) {
    auto it = t.find(key);
    return it != t.end() && it->is_number_integer() ? it->get<int64_t>() : int64_t{-1};
  };
  const int64_t layers = int_field("num_hidden_layers"), shared = int_field("num_kv_shared_layers");
  if (shared != layers) {
    return FieldError(label, "text_config.num_kv_shared_layers",
                      fmt::format("{} must equal num_hidden_layers={} (every assistant layer reads the target's KV)",
                                  shared, layers));
  }
  t["num_kv_shared_layers"] = 0;
  t["model_type"] = "gemma4_text";
  GEMMAD_ASSIGN_OR_RETURN(a.text, ParseConfig(t.dump(), fmt::format("{}: text_config", label)));
  if (a.text.hidden_size_per_layer_input != 0 || a.text.enable_moe_block || a.text.use_double_wide_mlp) {
    return FieldError(label, "text_config", "an assistant has no per-layer embeddings, MoE or double-wide MLP");
  }
  if (a.use_ordered_embeddings) {
    GEMMAD_ASSIGN_OR_RETURN(a.num_centroids, PositiveInt(j, label, "num_centroids"));
    GEMMAD_ASSIGN_OR_RETURN(a.centroid_top_k, PositiveInt(j, label, "centroid_intermediate_top_k"));
    if (a.text.vocab_size % a.num_centroids != 0) {
      return FieldError(label, "num_centroids",
                        fmt::format("{} does not divide the vocabulary of {}", a.num_centroids, a.text.vocab_size));
    }
    if (a.centroid_top_k > a.num_centroids) {
      return FieldError(label, "centroid_intermediate_top_k",
                        fmt::format("{} is more than num_centroids={}", a.centroid_top_k, a.num_centroids));
    }
  }
  return a;
}

Status CheckAssistantFitsTarget(const AssistantConfig& a, const Config& target) {
  if (a.backbone_hidden_size != target.hidden_size) {
    return InvalidArgumentError(fmt::format("assistant backbone_hidden_size {} != the target's hidden_size {}",
                                            a.backbone_hidden_size, target.hidden_size));
  }
  if (a.text.vocab_size != target.vocab_size) {
    return InvalidArgumentError(
        fmt::format("assistant vocab_size {} != the target's {}", a.text.vocab_size, target.vocab_size));
  }
  for (int64_t l = 0; l < a.text.num_hidden_layers; ++l) {
    const bool sliding = a.text.is_sliding(l);
    int64_t donor = -1;
    for (int64_t t = target.first_kv_shared_layer() - 1; t >= 0 && donor < 0; --t) {
      if (target.is_sliding(t) == sliding) donor = t;
    }
    if (donor < 0) {
      return InvalidArgumentError(fmt::format("assistant layer {}: the target has no KV-owning {} layer", l,
                                              sliding ? "sliding" : "full"));
    }
    if (a.text.layer_head_dim(l) != target.layer_head_dim(donor) ||
        a.text.layer_num_kv_heads(l) != target.layer_num_kv_heads(donor)) {
      return InvalidArgumentError(fmt::format(
          "assistant layer {} ({}): head_dim {} and {} KV heads, the target's donor layer {} has {} and {}", l,
          sliding ? "sliding" : "full", a.text.layer_head_dim(l), a.text.layer_num_kv_heads(l), donor,
          target.layer_head_dim(donor), target.layer_num_kv_heads(donor)));
    }
    if (a.text.num_attention_heads % a.text.layer_num_kv_heads(l) != 0) {
      return InvalidArgumentError(fmt::format("assistant layer {}: {} heads over {} KV heads", l,
                                              a.text.num_attention_heads, a.text.layer_num_kv_heads(l)));
    }
  }
  return OkStatus();
}

}  // namespace gemmad::model::gemma4
