// ParseConfig / LoadConfig: reads config.json (text-only `gemma4_text` or multimodal `gemma4` with
// `text_config`; the released field layout or the `per_layer_config` layout newer transformers
// writes; `gemma3_text` is handed to config_gemma3.cc) into Config, applying the reference
// defaults, and rejects what the forward pass cannot run. Every error names the file and the field.
#include "model/gemma4/config.h"

#include <fmt/format.h>

#include <set>

#include "base/files.h"
#include "io/json_fields.h"
#include "model/gemma4/config_internal.h"

namespace gemmad::model::gemma4 {
namespace {

using io::JsonFields;
using nlohmann::json;

// Defaults of the reference Gemma4TextConfig for every field a config.json may omit.
Config ReferenceDefaults() {
  Config c;
  c.vocab_size = 262144;
  c.hidden_size = 2304;
  c.intermediate_size = 9216;
  c.num_hidden_layers = 30;
  c.num_attention_heads = 8;
  c.num_key_value_heads = 4;
  c.head_dim = 256;
  c.global_head_dim = 512;
  c.max_position_embeddings = 131072;
  c.sliding_window = 512;
  c.hidden_size_per_layer_input = 256;
  c.vocab_size_per_layer_input = 262144;
  c.final_logit_softcapping = 0.0;
  c.rope_sliding = {"default", 10000.0, 1.0, 1.0};
  c.rope_full = {"proportional", 1000000.0, 0.25, 1.0};
  c.eos_token_ids = {1};
  return c;
}

Status ReadTopLevel(const JsonFields& top, const std::string& model_type, Config* c, const json** text) {
  c->model_type = model_type;
  if (model_type == "gemma4") {
    GEMMAD_RETURN_IF_ERROR(top.Object("text_config", text));
    if (*text == nullptr) return top.Error("text_config", "missing (required when model_type is gemma4)");
    c->multimodal = true;
    for (auto [key, out] : {std::pair{"image_token_id", &c->image_token_id}, std::pair{"audio_token_id", &c->audio_token_id},
                            std::pair{"video_token_id", &c->video_token_id}}) {
      std::optional<int64_t> v;
      GEMMAD_RETURN_IF_ERROR(top.IntOpt(key, &v));
      *out = v.value_or(0);  // null: the modality is absent
    }
    GEMMAD_RETURN_IF_ERROR(internal::ReadVisionConfig(top, &c->vision));
    GEMMAD_RETURN_IF_ERROR(internal::ReadAudioConfig(top, &c->audio));
  } else if (model_type == "gemma4_text") {
    *text = &top.node();
  } else {
    return top.Error("model_type", fmt::format("unsupported model_type '{}' (gemmad serves gemma4, gemma4_text and "
                                               "gemma3_text)", model_type));
  }
  GEMMAD_RETURN_IF_ERROR(top.StringList("architectures", &c->architectures));
  return OkStatus();
}

Status ReadDims(const JsonFields& f, Config* c) {
  GEMMAD_RETURN_IF_ERROR(internal::ReadCommonDims(f, c));
  GEMMAD_RETURN_IF_ERROR(f.Bool("attention_k_eq_v", &c->attention_k_eq_v));
  GEMMAD_RETURN_IF_ERROR(f.Bool("use_double_wide_mlp", &c->use_double_wide_mlp));
  GEMMAD_RETURN_IF_ERROR(f.Int("num_kv_shared_layers", &c->num_kv_shared_layers));
  GEMMAD_RETURN_IF_ERROR(f.Int("hidden_size_per_layer_input", &c->hidden_size_per_layer_input));
  GEMMAD_RETURN_IF_ERROR(f.Int("vocab_size_per_layer_input", &c->vocab_size_per_layer_input));
  return OkStatus();
}

}  // namespace

namespace internal {

Status ReadCommonDims(const JsonFields& f, Config* c) {
  GEMMAD_RETURN_IF_ERROR(f.Int("vocab_size", &c->vocab_size));
  GEMMAD_RETURN_IF_ERROR(f.Int("hidden_size", &c->hidden_size));
  GEMMAD_RETURN_IF_ERROR(f.Int("intermediate_size", &c->intermediate_size));
  GEMMAD_RETURN_IF_ERROR(f.Int("num_hidden_layers", &c->num_hidden_layers));
  GEMMAD_RETURN_IF_ERROR(f.Int("num_attention_heads", &c->num_attention_heads));
  GEMMAD_RETURN_IF_ERROR(f.Int("num_key_value_heads", &c->num_key_value_heads));
  GEMMAD_RETURN_IF_ERROR(f.Int("head_dim", &c->head_dim));
  GEMMAD_RETURN_IF_ERROR(f.Int("sliding_window", &c->sliding_window));
  GEMMAD_RETURN_IF_ERROR(f.Int("max_position_embeddings", &c->max_position_embeddings));
  GEMMAD_RETURN_IF_ERROR(f.Double("rms_norm_eps", &c->rms_norm_eps));
  std::optional<double> cap = c->final_logit_softcapping;
  GEMMAD_RETURN_IF_ERROR(f.DoubleOpt("final_logit_softcapping", &cap));
  c->final_logit_softcapping = cap.value_or(0.0);
  return OkStatus();
}

Status ReadTokens(const JsonFields& top, const JsonFields& f, Config* c) {
  std::optional<int64_t> pad = c->pad_token_id, bos = c->bos_token_id;
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("pad_token_id", &pad));
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("bos_token_id", &bos));
  c->pad_token_id = pad.value_or(-1);
  c->bos_token_id = bos.value_or(-1);
  GEMMAD_RETURN_IF_ERROR(f.IntOrIntList("eos_token_id", &c->eos_token_ids));
  GEMMAD_RETURN_IF_ERROR(f.Bool("tie_word_embeddings", &c->tie_word_embeddings));
  if (c->multimodal) {  // the wrapper's values govern the whole model
    GEMMAD_RETURN_IF_ERROR(top.IntOrIntList("eos_token_id", &c->eos_token_ids));
    GEMMAD_RETURN_IF_ERROR(top.Bool("tie_word_embeddings", &c->tie_word_embeddings));
  }
  for (const JsonFields* src : {&f, &top}) {  // top-level wins; "dtype" is the newer spelling
    GEMMAD_RETURN_IF_ERROR(src->String("torch_dtype", &c->torch_dtype));
    GEMMAD_RETURN_IF_ERROR(src->String("dtype", &c->torch_dtype));
  }
  GEMMAD_RETURN_IF_ERROR(f.String("hidden_activation", &c->hidden_activation));
  bool bias = false;
  GEMMAD_RETURN_IF_ERROR(f.Bool("attention_bias", &bias));
  if (bias) return f.Error("attention_bias", "true is not supported (Gemma has no attention biases)");
  return OkStatus();
}

Status ReadLayerTypes(const JsonFields& f, int64_t default_pattern, Config* c) {
  std::vector<std::string> names;
  GEMMAD_RETURN_IF_ERROR(f.StringList("layer_types", &names));
  c->layer_types.clear();
  if (names.empty()) {  // reference default: (pattern - 1) sliding + 1 full, repeating
    for (int64_t i = 0; i < c->num_hidden_layers; ++i) {
      c->layer_types.push_back((i + 1) % default_pattern != 0 ? LayerType::kSliding : LayerType::kFull);
    }
    return OkStatus();
  }
  if (static_cast<int64_t>(names.size()) != c->num_hidden_layers) {
    return f.Error("layer_types", fmt::format("has {} entries but num_hidden_layers is {}", names.size(),
                                              c->num_hidden_layers));
  }
  for (const auto& n : names) {
    if (n == "sliding_attention") {
      c->layer_types.push_back(LayerType::kSliding);
    } else if (n == "full_attention") {
      c->layer_types.push_back(LayerType::kFull);
    } else {
      return f.Error("layer_types", fmt::format("unknown layer type '{}'", n));
    }
  }
  return OkStatus();
}

}  // namespace internal

namespace {

Status ReadMoe(const JsonFields& f, Config* c) {
  GEMMAD_RETURN_IF_ERROR(f.Bool("enable_moe_block", &c->enable_moe_block));
  std::optional<int64_t> e, k, ie;
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("num_experts", &e));
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("top_k_experts", &k));
  GEMMAD_RETURN_IF_ERROR(f.IntOpt("moe_intermediate_size", &ie));
  if (!c->enable_moe_block) return OkStatus();  // the MoE fields are unused
  if (!e) return f.Error("num_experts", "must be set when enable_moe_block is true");
  if (!k) return f.Error("top_k_experts", "must be set when enable_moe_block is true");
  if (!ie) return f.Error("moe_intermediate_size", "must be set when enable_moe_block is true");
  c->num_experts = *e;
  c->top_k_experts = *k;
  c->moe_intermediate_size = *ie;
  return OkStatus();
}

Status ReadTokensAndMisc(const JsonFields& top, const JsonFields& f, Config* c) {
  GEMMAD_RETURN_IF_ERROR(internal::ReadTokens(top, f, c));
  std::optional<std::string> bidi;
  GEMMAD_RETURN_IF_ERROR(f.StringOpt("use_bidirectional_attention", &bidi));
  c->use_bidirectional_attention = bidi.value_or("");
  return OkStatus();
}

Status ReadLayerTypes(const JsonFields& f, Config* c) {
  GEMMAD_RETURN_IF_ERROR(internal::ReadLayerTypes(f, /*default_pattern=*/6, c));
  if (!c->layer_types.empty()) c->layer_types.back() = LayerType::kFull;  // forced by the reference
  return OkStatus();
}

Status ParseText(const JsonFields& top, const JsonFields& f, Config* c) {
  GEMMAD_RETURN_IF_ERROR(ReadDims(f, c));
  GEMMAD_RETURN_IF_ERROR(ReadMoe(f, c));
  GEMMAD_RETURN_IF_ERROR(ReadTokensAndMisc(top, f, c));
  GEMMAD_RETURN_IF_ERROR(ReadLayerTypes(f, c));
  GEMMAD_RETURN_IF_ERROR(internal::ReadRopeParameters(f, c));
  GEMMAD_RETURN_IF_ERROR(internal::ReadGlobalAttention(f, c));
  return internal::ValidateConfig(f, *c);
}

}  // namespace

Result<Config> ParseConfig(std::string_view json_text, std::string_view label) {
  GEMMAD_ASSIGN_OR_RETURN(json doc, io::ParseJsonText(json_text, label));
  if (!doc.is_object()) return InvalidArgumentError(fmt::format("{}: not a JSON object", label));
  JsonFields top(doc, std::string(label));
  std::string model_type;
  if (!top.Has("model_type")) {
    return top.Error("model_type", "missing (expected gemma4, gemma4_text or gemma3_text)");
  }
  GEMMAD_RETURN_IF_ERROR(top.String("model_type", &model_type));
  if (model_type == "gemma3_text") return internal::ParseGemma3Config(top);
  if (model_type == "gemma3") {
    return top.Error("model_type", "gemma3 (Gemma3ForConditionalGeneration, with a vision tower) is not supported: "
                                   "gemmad serves Gemma 3 text-only checkpoints (gemma3_text, Gemma3ForCausalLM)");
  }
  Config c = ReferenceDefaults();
  const json* text = nullptr;
  GEMMAD_RETURN_IF_ERROR(ReadTopLevel(top, model_type, &c, &text));
  JsonFields f(*text, std::string(label), c.multimodal ? "text_config" : "");
  GEMMAD_RETURN_IF_ERROR(ParseText(top, f, &c));
  return c;
}

Result<Config> ParseConfig(std::string_view json_text) { return ParseConfig(json_text, "config.json"); }

Result<Config> LoadConfig(const std::string& model_dir) {
  std::string path = JoinPath(model_dir, "config.json");
  GEMMAD_ASSIGN_OR_RETURN(std::string text, ReadFileToString(path));
  return ParseConfig(text, path);
}

int64_t Config::kv_donor(int64_t l) const {
  if (!is_kv_shared(l)) return -1;
  for (int64_t j = first_kv_shared_layer() - 1; j >= 0; --j) {
    if (layer_types[j] == layer_types[l]) return j;
  }
  return -1;
}

}  // namespace gemmad::model::gemma4
