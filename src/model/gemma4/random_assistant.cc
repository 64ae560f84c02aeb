// WriteRandomAssistant: config.json from the target's geometry, tensors from one seeded stream.
#include "model/gemma4/random_assistant.h"

#include <fmt/format.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <vector>

#include "base/rng.h"
#include "io/safetensors_writer.h"
#include "tensor/half.h"

namespace gemmad::model::gemma4 {
namespace {

nlohmann::ordered_json Rope(const RopeParams& r) {
  nlohmann::ordered_json j = {{"rope_type", r.rope_type}, {"rope_theta", r.rope_theta}};
  if (r.partial_rotary_factor != 1.0) j["partial_rotary_factor"] = r.partial_rotary_factor;
  return j;
}

std::string Bytes(const std::vector<float>& v, tensor::DType dtype) {
  std::string out;
  if (dtype == tensor::DType::kF32) {
    out.resize(v.size() * 4);
    std::memcpy(out.data(), v.data(), out.size());
  } else {
    out.resize(v.size() * 2);
    for (size_t i = 0; i < v.size(); ++i) {
      const uint16_t b = tensor::FloatToBf16(v[i]);
      std::memcpy(out.data() + 2 * i, &b, 2);
    }
  }
  return out;
}

}  // namespace

Status WriteRandomAssistant(const std::string& out_dir, const Config& target, const RandomAssistantOptions& o) {
  if (o.dtype != tensor::DType::kBF16 && o.dtype != tensor::DType::kF32) {
    return InvalidArgumentError("WriteRandomAssistant: dtype must be BF16 or F32");
  }
  bool has_sliding = false, has_full = false;
  for (int64_t l = 0; l < target.first_kv_shared_layer(); ++l) (target.is_sliding(l) ? has_sliding : has_full) = true;
  std::vector<std::string> types;
  for (int i = 0; i < 3 && has_sliding; ++i) types.push_back("sliding_attention");
  if (has_full) types.push_back("full_attention");
  const bool real = target.hidden_size >= 1024, e_model = target.hidden_size_per_layer_input > 0;
  const int64_t Hb = target.hidden_size, V = target.vocab_size, L = static_cast<int64_t>(types.size());
  const int64_t Hd = real ? (e_model ? 256 : 1024) : 64;
  const int64_t nH = real && e_model ? 4 : target.num_attention_heads;
  const int64_t I = real ? (e_model ? 2048 : 8192) : 2 * Hd;
  const int64_t C = real ? 2048 : 16, top_k = real ? 32 : 4;
  const bool ordered = (!real || e_model) && V % C == 0 && V >= 4 * C;
  nlohmann::ordered_json text = {
      {"model_type", "gemma4_text"}, {"hidden_size", Hd}, {"intermediate_size", I}, {"num_hidden_layers", L},
      {"layer_types", types}, {"num_attention_heads", nH}, {"num_key_value_heads", target.num_key_value_heads},
      {"head_dim", target.head_dim}, {"global_head_dim", target.global_head_dim},
      {"attention_k_eq_v", target.attention_k_eq_v},
      {"num_global_key_value_heads",
       target.attention_k_eq_v ? nlohmann::ordered_json(target.num_global_key_value_heads) : nlohmann::ordered_json()},
      {"num_kv_shared_layers", L}, {"hidden_size_per_layer_input", 0}, {"vocab_size_per_layer_input", 0},
      {"use_double_wide_mlp", false}, {"enable_moe_block", false}, {"vocab_size", V},
      {"sliding_window", target.sliding_window}, {"max_position_embeddings", target.max_position_embeddings},
      {"rms_norm_eps", target.rms_norm_eps}, {"final_logit_softcapping", nullptr},
      {"hidden_activation", "gelu_pytorch_tanh"}, {"tie_word_embeddings", true},
      {"rope_parameters", {{"full_attention", Rope(target.rope_full)}, {"sliding_attention", Rope(target.rope_sliding)}}}};
  nlohmann::ordered_json cfg = {{"architectures", {"Gemma4AssistantForCausalLM"}},
                                {"model_type", "gemma4_assistant"},
                                {"backbone_hidden_size", Hb},
                                {"use_ordered_embeddings", ordered},
                                {"num_centroids", C},
                                {"centroid_intermediate_top_k", top_k},
                                {"tie_word_embeddings", true},
                                {"dtype", o.dtype == tensor::DType::kF32 ? "float32" : "bfloat16"},
                                {"text_config", text}};
  Rng rng(o.seed * 0x9E3779B97F4A7C15ull + 11);
  const std::string dt = o.dtype == tensor::DType::kF32 ? "F32" : "BF16";
  io::SafetensorsWriter w;
  auto add = [&](const std::string& name, std::vector<int64_t> shape, double lo, double hi) {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    std::vector<float> v(static_cast<size_t>(n));
    for (float& x : v) x = static_cast<float>(rng.Uniform(lo, hi));
    w.AddBytes(name, dt, std::move(shape), Bytes(v, o.dtype));
  };
  auto matrix = [&](const std::string& name, int64_t out, int64_t in) {
    const double a = std::sqrt(3.0 / static_cast<double>(in));
    add(name, {out, in}, -a, a);
  };
  add("model.embed_tokens.weight", {V, Hd}, -0.05, 0.05);
  add("model.norm.weight", {Hd}, 0.5, 1.5);
  matrix("pre_projection.weight", Hd, 2 * Hb);
  matrix("post_projection.weight", Hb, Hd);
  for (int64_t l = 0; l < L; ++l) {
    const std::string p = fmt::format("model.layers.{}.", l);
    const int64_t d = types[static_cast<size_t>(l)] == "sliding_attention" ? target.head_dim : target.global_head_dim;
    for (const char* norm : {"input_layernorm", "post_attention_layernorm", "pre_feedforward_layernorm",
                             "post_feedforward_layernorm"}) {
      add(p + norm + ".weight", {Hd}, 0.5, 1.5);
    }
    add(p + "layer_scalar", {1}, 0.5, 1.5);
    matrix(p + "self_attn.q_proj.weight", nH * d, Hd);
    add(p + "self_attn.q_norm.weight", {d}, 0.5, 1.5);
    matrix(p + "self_attn.o_proj.weight", Hd, nH * d);
    matrix(p + "mlp.gate_proj.weight", I, Hd);
    matrix(p + "mlp.up_proj.weight", I, Hd);
    matrix(p + "mlp.down_proj.weight", Hd, I);
  }
  if (ordered) {
    matrix("masked_embedding.centroids.weight", C, Hd);
    std::vector<int64_t> perm(static_cast<size_t>(V));
    std::iota(perm.begin(), perm.end(), 0);
    for (int64_t i = V - 1; i > 0; --i) std::swap(perm[static_cast<size_t>(i)], perm[rng.Below(static_cast<uint64_t>(i) + 1)]);
    std::string b(perm.size() * 8, '\0');
    std::memcpy(b.data(), perm.data(), b.size());
    w.AddBytes("masked_embedding.token_ordering", "I64", {V}, std::move(b));
  }
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) return InternalError(fmt::format("{}: {}", out_dir, ec.message()));
  {
    std::ofstream f(out_dir + "/config.json");
    f << cfg.dump(2) << "\n";
    if (!f) return InternalError(out_dir + "/config.json: write failed");
  }
  return w.WriteFile(out_dir + "/model.safetensors");
}

}  // namespace gemmad::model::gemma4
