// GgufConfigFromFile (see gguf_config.h).
#include "model/gguf_config.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <optional>

#include "io/gguf_per_layer.h"

namespace gemmad::model {
namespace {

using nlohmann::json;

class Keys {
 public:
  Keys(const GgufShards& f, std::string arch) : f_(f), md_(f.metadata()), arch_(std::move(arch)) {}
  std::string K(std::string_view k) const { return arch_ + "." + std::string(k); }
  Status Err(const Status& s) const { return s.WithPrefix(f_.path()); }

  Result<int64_t> U32(std::string_view k) const {
    auto r = md_.GetU32(K(k));
    if (!r.ok()) return Err(r.status());
    return static_cast<int64_t>(*r);
  }
  Result<std::optional<int64_t>> OptU32(std::string_view k) const {
    if (!md_.Has(K(k))) return std::optional<int64_t>();
    GEMMAD_ASSIGN_OR_RETURN(int64_t v, U32(k));
    return std::optional<int64_t>(v);
  }
  Result<double> F64(std::string_view k, std::optional<double> def = std::nullopt) const {
    if (def && !md_.Has(K(k))) return *def;
    auto r = md_.GetF64(K(k));
    if (!r.ok()) return Err(r.status());
    if (!std::isfinite(*r)) return Err(InvalidArgumentError(fmt::format("key '{}': not finite", K(k))));
    return *r;
  }
  Result<std::vector<uint32_t>> PerLayer(std::string_view k, int64_t n) const {
    auto r = io::GetPerLayerU32(md_, K(k), n);
    if (!r.ok()) return Err(r.status());
    return std::move(*r);
  }
  Result<std::vector<bool>> Pattern(int64_t n, std::optional<uint32_t> default_period) const {
    if (!md_.Has(K("attention.sliding_window_pattern"))) {
      std::vector<bool> out(static_cast<size_t>(n), false);
      if (default_period) {
        for (int64_t i = 0; i < n; ++i) out[i] = (i % *default_period) < *default_period - 1;
      }
      return out;
    }
    auto r = io::GetPerLayerBool(md_, K("attention.sliding_window_pattern"), n);
    if (!r.ok()) return Err(r.status());
    return std::move(*r);
  }
  const io::GgufMetadata& md() const { return md_; }
  const GgufShards& file() const { return f_; }

 private:
  const GgufShards& f_;
  const io::GgufMetadata& md_;
  std::string arch_;
};

Status Positive(const Keys& k, std::string_view key, int64_t v, int64_t max) {
  if (v < 1 || v > max) {
    return k.Err(InvalidArgumentError(fmt::format("key '{}': {} is out of range [1, {}]", k.K(key), v, max)));
  }
  return OkStatus();
}

json LayerTypes(const std::vector<bool>& sliding) {
  json out = json::array();
  for (bool s : sliding) out.push_back(s ? "sliding_attention" : "full_attention");
  return out;
}

// Rows of token_embd (the vocabulary the model computes logits over).
Result<int64_t> VocabRows(const GgufShards& f) {
  const ShardTensor* st = f.FindTensor("token_embd.weight");
  const io::GgufTensorInfo* t = st == nullptr ? nullptr : st->info;
  if (t == nullptr || t->ne.size() != 2) {
    return DataLossError(fmt::format("{}: no 2-D tensor 'token_embd.weight'", f.path()));
  }
  return t->ne[1];
}

// Stop ids: the file's eos plus Gemma's end-of-turn ids (spec §2.7, chat-format.md).
GenerationConfig StopIds(const io::GgufMetadata& md, std::vector<int64_t> extra) {
  GenerationConfig g;
  if (auto eos = md.GetU32("tokenizer.ggml.eos_token_id"); eos.ok()) g.eos_token_ids.push_back(*eos);
  for (int64_t id : extra) {
    if (std::find(g.eos_token_ids.begin(), g.eos_token_ids.end(), id) == g.eos_token_ids.end()) {
      g.eos_token_ids.push_back(id);
    }
  }
  if (auto bos = md.GetU32("tokenizer.ggml.bos_token_id"); bos.ok()) g.bos_token_id = *bos;
  if (auto pad = md.GetU32("tokenizer.ggml.padding_token_id"); pad.ok()) g.pad_token_id = *pad;
  return g;
}

void Common(const GenerationConfig& g, json* c) {
  (*c)["bos_token_id"] = g.bos_token_id.value_or(2);
  (*c)["pad_token_id"] = g.pad_token_id.value_or(0);
  (*c)["eos_token_id"] = g.eos_token_ids;
  (*c)["tie_word_embeddings"] = true;
  (*c)["hidden_activation"] = "gelu_pytorch_tanh";
  (*c)["dtype"] = "float32";
}

Result<GgufModelConfig> Gemma3(const Keys& k) {
  GgufModelConfig out;
  out.arch = GgufArch::kGemma3;
  json c;
  GEMMAD_ASSIGN_OR_RETURN(int64_t L, k.U32("block_count"));
  GEMMAD_RETURN_IF_ERROR(Positive(k, "block_count", L, io::kGgufMaxLayers));
  GEMMAD_ASSIGN_OR_RETURN(int64_t H, k.U32("embedding_length"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t F, k.U32("feed_forward_length"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t nH, k.U32("attention.head_count"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t nKV, k.U32("attention.head_count_kv"));
  GEMMAD_RETURN_IF_ERROR(Positive(k, "attention.head_count", nH, 1 << 16));
  GEMMAD_ASSIGN_OR_RETURN(std::optional<int64_t> d, k.OptU32("attention.key_length"));
  const int64_t head_dim = d.value_or(256);
  GEMMAD_ASSIGN_OR_RETURN(std::optional<int64_t> dv, k.OptU32("attention.value_length"));
  if (dv && *dv != head_dim) {
    return k.Err(InvalidArgumentError(fmt::format("key '{}': {} differs from key_length {}",
                                                  k.K("attention.value_length"), *dv, head_dim)));
  }
  GEMMAD_ASSIGN_OR_RETURN(std::optional<int64_t> window, k.OptU32("attention.sliding_window"));
  const bool swa = window.value_or(0) > 0;
  GEMMAD_ASSIGN_OR_RETURN(std::vector<bool> sliding, k.Pattern(L, swa ? std::optional<uint32_t>(6) : std::nullopt));
  if (!swa) std::fill(sliding.begin(), sliding.end(), false);
  GEMMAD_ASSIGN_OR_RETURN(double theta, k.F64("rope.freq_base", 1e6));
  GEMMAD_ASSIGN_OR_RETURN(double theta_swa, k.F64("rope.freq_base_swa", 1e4));
  json full = {{"rope_type", "default"}, {"rope_theta", theta}};
  if (k.md().Has(k.K("rope.scaling.type"))) {
    auto type = k.md().GetString(k.K("rope.scaling.type"));
    if (!type.ok()) return k.Err(type.status());
    GEMMAD_ASSIGN_OR_RETURN(double factor, k.F64("rope.scaling.factor", 1.0));
    if (*type == "linear" && factor != 1.0) {
      full = {{"rope_type", "linear"}, {"rope_theta", theta}, {"factor", factor}};
    } else if (*type != "none" && *type != "linear") {
      return k.Err(InvalidArgumentError(fmt::format("key '{}': rope scaling '{}' is not supported",
                                                    k.K("rope.scaling.type"), *type)));
    }
  }
  c["architectures"] = {"Gemma3ForCausalLM"};
  c["model_type"] = "gemma3_text";
  c["num_hidden_layers"] = L;
  c["hidden_size"] = H;
  c["intermediate_size"] = F;
  c["num_attention_heads"] = nH;
  c["num_key_value_heads"] = nKV;
  c["head_dim"] = head_dim;
  // Not stored in a GGUF; llama.cpp's rule (gemma3.cpp): 1/sqrt(head_dim), 1/sqrt(H/nH) for 27B.
  c["query_pre_attn_scalar"] = L == 62 ? H / nH : head_dim;
  c["sliding_window"] = swa ? *window : 0;
  c["layer_types"] = LayerTypes(sliding);
  c["rope_parameters"] = {{"sliding_attention", {{"rope_type", "default"}, {"rope_theta", theta_swa}}},
                          {"full_attention", full}};
  GEMMAD_ASSIGN_OR_RETURN(double eps, k.F64("attention.layer_norm_rms_epsilon", 1e-6));
  c["rms_norm_eps"] = eps;
  if (k.md().Has(k.K("final_logit_softcapping"))) {
    GEMMAD_ASSIGN_OR_RETURN(double cap, k.F64("final_logit_softcapping"));
    c["final_logit_softcapping"] = cap;
  } else {
    c["final_logit_softcapping"] = nullptr;
  }
  c["attn_logit_softcapping"] = nullptr;
  GEMMAD_ASSIGN_OR_RETURN(std::optional<int64_t> ctx, k.OptU32("context_length"));
  c["max_position_embeddings"] = ctx.value_or(32768);
  GEMMAD_ASSIGN_OR_RETURN(int64_t vocab, VocabRows(k.file()));
  c["vocab_size"] = vocab;
  out.generation_config = StopIds(k.md(), {1, 106});
  Common(out.generation_config, &c);
  out.config_json = c.dump(2);
  return out;
}

// Gemma 4's proportional RoPE fraction from rope_freqs (spec §3.6): the leading 1.0 entries rotate,
// the rest carry a huge divisor (identity).
Result<double> PartialRotaryFactor(const GgufShards& f, int64_t global_head_dim) {
  const ShardTensor* st = f.FindTensor("rope_freqs.weight");
  if (st == nullptr) return 1.0;
  const io::GgufTensorInfo* t = st->info;
  if (t->type == nullptr || t->type->name != "F32" || t->ne.size() != 1 || t->ne[0] * 2 != global_head_dim) {
    return DataLossError(fmt::format("{}: tensor 'rope_freqs.weight' must be F32 [{}]", f.path(), global_head_dim / 2));
  }
  const std::string_view bytes = st->bytes();
  int64_t ones = 0;
  bool tail = false;
  for (int64_t i = 0; i < t->ne[0]; ++i) {
    float v;
    std::memcpy(&v, bytes.data() + 4 * i, 4);
    if (v == 1.0f && !tail) {
      ++ones;
    } else if (v >= 1e20f) {
      tail = true;
    } else {
      return DataLossError(fmt::format("{}: rope_freqs.weight[{}] = {}: only 1.0 then >= 1e20 is supported "
                                       "(Gemma 4 proportional RoPE)", f.path(), i, v));
    }
  }
  return 2.0 * static_cast<double>(ones) / static_cast<double>(global_head_dim);
}

Result<GgufModelConfig> Gemma4(const Keys& k) {
  GgufModelConfig out;
  out.arch = GgufArch::kGemma4;
  json c;
  GEMMAD_ASSIGN_OR_RETURN(int64_t L, k.U32("block_count"));
  GEMMAD_RETURN_IF_ERROR(Positive(k, "block_count", L, io::kGgufMaxLayers));
  GEMMAD_ASSIGN_OR_RETURN(int64_t H, k.U32("embedding_length"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t nH, k.U32("attention.head_count"));
  GEMMAD_ASSIGN_OR_RETURN(std::vector<uint32_t> ff, k.PerLayer("feed_forward_length", L));
  GEMMAD_ASSIGN_OR_RETURN(std::vector<uint32_t> kv, k.PerLayer("attention.head_count_kv", L));
  GEMMAD_ASSIGN_OR_RETURN(int64_t d_full, k.U32("attention.key_length"));
  GEMMAD_ASSIGN_OR_RETURN(std::optional<int64_t> d_swa, k.OptU32("attention.key_length_swa"));
  GEMMAD_ASSIGN_OR_RETURN(std::vector<bool> sliding, k.Pattern(L, std::nullopt));
  GEMMAD_ASSIGN_OR_RETURN(std::optional<int64_t> shared, k.OptU32("attention.shared_kv_layers"));
  const int64_t S = shared.value_or(0);
  if (S < 0 || S >= L) return k.Err(InvalidArgumentError(fmt::format("key '{}': {} is not below block_count {}",
                                                                      k.K("attention.shared_kv_layers"), S, L)));
  // KV heads: sliding layers' value, and the full layers' when it differs (31B, 26B-A4B).
  int64_t nkv_s = -1, nkv_f = -1;
  for (int64_t l = 0; l < L; ++l) {
    int64_t& slot = sliding[l] ? nkv_s : nkv_f;
    if (slot >= 0 && slot != kv[l]) {
      return k.Err(InvalidArgumentError(fmt::format("key '{}': layer {} has {} KV heads, other layers of its type {}",
                                                    k.K("attention.head_count_kv"), l, kv[l], slot)));
    }
    slot = kv[l];
  }
  if (nkv_s < 0) nkv_s = nkv_f;
  // Feed-forward widths: I, and 2·I on KV-shared layers when use_double_wide_mlp (E2B).
  const int64_t I = ff[0];
  bool double_wide = false;
  for (int64_t l = 0; l < L; ++l) {
    const bool is_shared = S > 0 && l >= L - S;
    if (ff[l] == I) continue;
    if (is_shared && ff[l] == 2 * I) {
      double_wide = true;
      continue;
    }
    return k.Err(InvalidArgumentError(fmt::format("key '{}': layer {} width {} is neither {} nor (KV-shared) {}",
                                                  k.K("feed_forward_length"), l, ff[l], I, 2 * I)));
  }
  // attention_k_eq_v: full layers that own their KV store no V (KV-shared layers may store none either).
  bool k_eq_v = false;
  for (int64_t l = 0; l < L - S; ++l) {
    if (!sliding[l] && k.file().FindTensor(fmt::format("blk.{}.attn_v.weight", l)) == nullptr) k_eq_v = true;
  }
  GEMMAD_ASSIGN_OR_RETURN(double partial, PartialRotaryFactor(k.file(), d_full));
  GEMMAD_ASSIGN_OR_RETURN(double theta, k.F64("rope.freq_base", 1e6));
  GEMMAD_ASSIGN_OR_RETURN(double theta_swa, k.F64("rope.freq_base_swa", 1e4));
  GEMMAD_ASSIGN_OR_RETURN(std::optional<int64_t> window, k.OptU32("attention.sliding_window"));
  GEMMAD_ASSIGN_OR_RETURN(std::optional<int64_t> ple, k.OptU32("embedding_length_per_layer_input"));
  GEMMAD_ASSIGN_OR_RETURN(std::optional<int64_t> experts, k.OptU32("expert_count"));
  c["architectures"] = {"Gemma4ForCausalLM"};
  c["model_type"] = "gemma4_text";
  c["num_hidden_layers"] = L;
  c["hidden_size"] = H;
  c["num_attention_heads"] = nH;
  c["num_key_value_heads"] = nkv_s;
  c["num_global_key_value_heads"] = (nkv_f >= 0 && nkv_f != nkv_s) ? json(nkv_f) : json(nullptr);
  c["attention_k_eq_v"] = k_eq_v;
  c["head_dim"] = d_swa.value_or(d_full);
  c["global_head_dim"] = d_full;
  c["layer_types"] = LayerTypes(sliding);
  c["sliding_window"] = window.value_or(512);
  c["intermediate_size"] = I;
  c["use_double_wide_mlp"] = double_wide;
  c["num_kv_shared_layers"] = S;
  GEMMAD_ASSIGN_OR_RETURN(int64_t vocab, VocabRows(k.file()));
  c["vocab_size"] = vocab;
  c["hidden_size_per_layer_input"] = ple.value_or(0);
  c["vocab_size_per_layer_input"] = vocab;
  if (experts.value_or(0) > 0) {
    GEMMAD_ASSIGN_OR_RETURN(int64_t used, k.U32("expert_used_count"));
    GEMMAD_ASSIGN_OR_RETURN(int64_t width, k.U32("expert_feed_forward_length"));
    c["enable_moe_block"] = true;
    c["num_experts"] = *experts;
    c["top_k_experts"] = used;
    c["moe_intermediate_size"] = width;
  } else {
    c["enable_moe_block"] = false;
  }
  json full = {{"rope_type", "proportional"}, {"rope_theta", theta}, {"partial_rotary_factor", partial}};
  c["rope_parameters"] = {{"sliding_attention", {{"rope_type", "default"}, {"rope_theta", theta_swa}}},
                          {"full_attention", full}};
  GEMMAD_ASSIGN_OR_RETURN(double eps, k.F64("attention.layer_norm_rms_epsilon", 1e-6));
  c["rms_norm_eps"] = eps;
  GEMMAD_ASSIGN_OR_RETURN(double cap, k.F64("final_logit_softcapping", 30.0));
  c["final_logit_softcapping"] = cap;
  GEMMAD_ASSIGN_OR_RETURN(std::optional<int64_t> ctx, k.OptU32("context_length"));
  c["max_position_embeddings"] = ctx.value_or(131072);
  out.generation_config = StopIds(k.md(), {1, 106, 50});
  Common(out.generation_config, &c);
  out.config_json = c.dump(2);
  return out;
}

}  // namespace

Result<GgufModelConfig> GgufConfigFromFile(const GgufShards& file) {
  auto arch = file.metadata().GetString("general.architecture");
  if (!arch.ok()) return arch.status().WithPrefix(file.path());
  if (*arch == "gemma3") return Gemma3(Keys(file, *arch));
  if (*arch == "gemma4") return Gemma4(Keys(file, *arch));
  if (*arch == "clip") {
    return InvalidArgumentError(fmt::format("{}: an mmproj file (the encoders of a model, general.architecture "
                                            "'clip'): serve the text model's GGUF and name this one with --mmproj",
                                            file.path()));
  }
  return InvalidArgumentError(fmt::format("{}: general.architecture '{}' is not supported (gemmad serves gemma3 "
                                          "and gemma4 GGUF files)", file.path(), *arch));
}

}  // namespace gemmad::model
