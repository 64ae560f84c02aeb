// The compressed-tensors W4A16 layout of random checkpoints (see random_ct_tensors.h).
#include "model/gemma4/random_ct_tensors.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>

#include "model/gemma4/random_values.h"
#include "tensor/ct_pack.h"
#include "tensor/fp8.h"
#include "tensor/half.h"

namespace gemmad::model::gemma4 {
namespace {

constexpr int64_t kGroup = 32;

bool EndsWith(std::string_view s, std::string_view suffix) { return s.ends_with(suffix); }

// Quantizes row after row of the tensor's values (symmetric `bits`-bit integers in groups of
// `group` along the row; group = the row length for per-channel scales) and writes what `emit`
// picks of each.
template <typename Emit>
io::TensorFill RowFill(const WeightSpec& w, uint64_t seed, int64_t group, int bits, Emit emit) {
  return [name = w.name, shape = w.shape, seed, group, bits, emit](io::ByteSink& sink) -> Status {
    RandomValueStream values(name, shape, seed);
    const int64_t rows = shape[0], k = shape[1];
    const float qmax = static_cast<float>((1 << (bits - 1)) - 1), qmin = -qmax - 1.0f;
    const float divisor = (static_cast<float>(1 << bits) - 1.0f) / 2.0f;  // the library's min-max observer
    std::vector<float> x(static_cast<size_t>(k));
    std::vector<int8_t> q(static_cast<size_t>(k));
    std::vector<uint16_t> s(static_cast<size_t>(k / group));
    std::string buf;
    for (int64_t r = 0; r < rows; ++r) {
      values.Next(k, x.data());
      for (int64_t g = 0; g < k / group; ++g) {
        float amax = 0.0f;
        for (int64_t j = 0; j < group; ++j) {
          float& v = x[static_cast<size_t>(g * group + j)];
          v = tensor::RoundToBf16(v);  // the dense checkpoint's bf16 value
          amax = std::max(amax, std::abs(v));
        }
        const float scale = tensor::RoundToBf16(amax > 0.0f ? amax / divisor : 0x1.0p-7f);
        s[static_cast<size_t>(g)] = tensor::FloatToBf16(scale);
        for (int64_t j = 0; j < group; ++j) {
          const float v = std::nearbyint(x[static_cast<size_t>(g * group + j)] / scale);
          q[static_cast<size_t>(g * group + j)] = static_cast<int8_t>(std::clamp(v, qmin, qmax));
        }
      }
      emit(q, s, &buf);
      if (buf.size() >= (size_t{1} << 20) || r + 1 == rows) {
        GEMMAD_RETURN_IF_ERROR(sink.Write(buf));
        buf.clear();
      }
    }
    return OkStatus();
  };
}

}  // namespace

namespace {

// A text MoE expert stack ([E, rows, in]: experts.gate_up_proj, experts.down_proj).
bool IsExpertStack(const WeightSpec& w) {
  return w.shape.size() == 3 && !w.top_level &&
         (EndsWith(w.name, "experts.gate_up_proj") || EndsWith(w.name, "experts.down_proj"));
}

// The per-expert 2-D matrices an unfused stack becomes, as llm-compressor saves the 26B-A4B:
// (member name without prefix, its spec) for experts.<e>.{gate,up}_proj [Ie, H] or down_proj [H, Ie].
std::vector<WeightSpec> ExpertMembers(const WeightSpec& w) {
  const std::string base = w.name.substr(0, w.name.rfind('.'));  // "layers.3.experts"
  const bool gate_up = EndsWith(w.name, "gate_up_proj");
  std::vector<WeightSpec> out;
  for (int64_t e = 0; e < w.shape[0]; ++e) {
    if (gate_up) {
      out.push_back({fmt::format("{}.{}.gate_proj.weight", base, e), {w.shape[1] / 2, w.shape[2]}});
      out.push_back({fmt::format("{}.{}.up_proj.weight", base, e), {w.shape[1] / 2, w.shape[2]}});
    } else {
      out.push_back({fmt::format("{}.{}.down_proj.weight", base, e), {w.shape[1], w.shape[2]}});
    }
  }
  return out;
}

}  // namespace

bool CtQuantizes(CtWeightFormat f, const WeightSpec& w) {
  if (f == CtWeightFormat::kFp8Dynamic && IsExpertStack(w)) return true;
  if (f == CtWeightFormat::kMobile) {
    return w.name == "embed_tokens.weight" || w.name == "embed_tokens_per_layer.weight" ||
           (IsTextLinear(w) && !EndsWith(w.name, "per_layer_model_projection.weight"));
  }
  if (f == CtWeightFormat::kDense || !IsTextLinear(w)) return false;
  return f == CtWeightFormat::kFp8Dynamic || w.shape[1] % kGroup == 0;
}

bool IsTextLinear(const WeightSpec& w) {
  if (w.shape.size() != 2 || w.top_level) return false;
  if (w.name.find("tower.") != std::string::npos || w.name.find("embed_") != std::string::npos) return false;
  for (const char* m : {"q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight", "gate_proj.weight",
                        "up_proj.weight", "down_proj.weight", "per_layer_input_gate.weight", "per_layer_projection.weight",
                        "per_layer_model_projection.weight"}) {
    if (EndsWith(w.name, m)) return true;
  }
  return false;
}

namespace {

// FP8 rows: {E4M3 bytes} and their bf16 scale, from the dense checkpoint's bf16 values.
template <typename Emit>
io::TensorFill Fp8Fill(const WeightSpec& w, uint64_t seed, Emit emit) {
  return [name = w.name, shape = w.shape, seed, emit](io::ByteSink& sink) -> Status {
    RandomValueStream values(name, shape, seed);
    const int64_t rows = shape[0], k = shape[1];
    std::vector<float> x(static_cast<size_t>(k));
    std::vector<uint8_t> q(static_cast<size_t>(k));
    std::string buf;
    for (int64_t r = 0; r < rows; ++r) {
      values.Next(k, x.data());
      float amax = 0.0f;
      for (float& v : x) {
        v = tensor::RoundToBf16(v);
        amax = std::max(amax, std::abs(v));
      }
      const float scale = tensor::RoundToBf16(amax > 0.0f ? amax / tensor::kE4M3Max : 0x1.0p-7f);
      for (int64_t i = 0; i < k; ++i) q[static_cast<size_t>(i)] = tensor::FloatToE4M3(x[static_cast<size_t>(i)] / scale);
      emit(q, tensor::FloatToBf16(scale), &buf);
      if (buf.size() >= (size_t{1} << 20) || r + 1 == rows) {
        GEMMAD_RETURN_IF_ERROR(sink.Write(buf));
        buf.clear();
      }
    }
    return OkStatus();
  };
}

std::vector<io::TensorToWrite> Fp8Tensors(const std::string& full, const WeightSpec& w, uint64_t seed) {
  const std::string module = full.substr(0, full.size() - std::string_view(".weight").size());
  std::vector<io::TensorToWrite> out;
  out.push_back({full, "F8_E4M3", w.shape, Fp8Fill(w, seed, [](const std::vector<uint8_t>& q, uint16_t, std::string* buf) {
                   buf->append(reinterpret_cast<const char*>(q.data()), q.size());
                 })});
  out.push_back({module + ".weight_scale", "BF16", {w.shape[0], 1},
                 Fp8Fill(w, seed, [](const std::vector<uint8_t>&, uint16_t s, std::string* buf) {
                   buf->append(reinterpret_cast<const char*>(&s), 2);
                 })});
  return out;
}

// The mobile layout's bits for a quantized tensor: int2 embeddings, int8 PLE gates/projections,
// int2 MLPs from layer 15 on (E2B's split), int4 for the rest.
int MobileBits(const WeightSpec& w) {
  if (w.name == "embed_tokens.weight") return 2;
  if (EndsWith(w.name, "per_layer_input_gate.weight") || EndsWith(w.name, "per_layer_projection.weight")) return 8;
  if (w.name.find(".mlp.") != std::string::npos && w.name.starts_with("layers.")) {
    const int64_t layer = std::atoll(w.name.c_str() + 7);
    if (layer >= 15) return 2;
  }
  return 4;
}

// Static activation scales of the mobile test layout: a fixed ±16 range (amax 16, s = 16 / 127)
// for every quantized Linear's input and output, wide enough for these random models' RMS-normed
// inputs and unit-scale outputs (real files carry calibrated scales).
constexpr float kMobileActScale = 16.0f / 127.0f;

std::vector<io::TensorToWrite> MobileTensors(const std::string& full, const WeightSpec& w, uint64_t seed) {
  const std::string module = full.substr(0, full.size() - std::string_view(".weight").size());
  const int64_t rows = w.shape[0], k = w.shape[1];
  const int bits = MobileBits(w);
  std::vector<io::TensorToWrite> out;
  if (bits == 8) {  // int-quantized: the integers as an int8 tensor
    out.push_back({full, "I8", w.shape, RowFill(w, seed, k, 8, [](const std::vector<int8_t>& q, const std::vector<uint16_t>&, std::string* buf) {
                     buf->append(reinterpret_cast<const char*>(q.data()), q.size());
                   })});
  } else {
    out.push_back({module + ".weight_packed", "I32", {rows, tensor::CtPackedWords(k, bits)},
                   RowFill(w, seed, k, bits, [bits](const std::vector<int8_t>& q, const std::vector<uint16_t>&, std::string* buf) {
                     std::vector<int32_t> words(static_cast<size_t>(tensor::CtPackedWords(static_cast<int64_t>(q.size()), bits)));
                     tensor::CtPackRow(q.data(), static_cast<int64_t>(q.size()), bits, words.data());
                     buf->append(reinterpret_cast<const char*>(words.data()), words.size() * 4);
                   })});
    out.push_back({module + ".weight_shape", "I64", {2}, [rows, k](io::ByteSink& sink) -> Status {
                     const int64_t shape[2] = {rows, k};
                     return sink.Write(std::string_view(reinterpret_cast<const char*>(shape), sizeof(shape)));
                   }});
  }
  out.push_back({module + ".weight_scale", "BF16", {rows, 1},
                 RowFill(w, seed, k, bits, [](const std::vector<int8_t>&, const std::vector<uint16_t>& s, std::string* buf) {
                   buf->append(reinterpret_cast<const char*>(s.data()), s.size() * 2);
                 })});
  if (w.name != "embed_tokens.weight" && w.name != "embed_tokens_per_layer.weight") {  // weight-only tables
    for (const char* suffix : {".input_scale", ".output_scale"}) {
      out.push_back({module + suffix, "BF16", {1}, [](io::ByteSink& sink) -> Status {
                       const uint16_t s = tensor::FloatToBf16(kMobileActScale);
                       return sink.Write(std::string_view(reinterpret_cast<const char*>(&s), 2));
                     }});
    }
  }
  return out;
}

}  // namespace

std::vector<io::TensorToWrite> CtTensors(CtWeightFormat f, const std::string& full, const WeightSpec& w, uint64_t seed) {
  if (f == CtWeightFormat::kFp8Dynamic && IsExpertStack(w)) {
    // Unfused per expert, each member's values its own (named) stream: RedHat's 26B-A4B layout.
    const std::string prefix = full.substr(0, full.size() - w.name.size());
    std::vector<io::TensorToWrite> out;
    for (const WeightSpec& m : ExpertMembers(w)) {
      for (io::TensorToWrite& t : Fp8Tensors(prefix + m.name, m, seed)) out.push_back(std::move(t));
    }
    return out;
  }
  if (f == CtWeightFormat::kFp8Dynamic) return Fp8Tensors(full, w, seed);
  if (f == CtWeightFormat::kMobile) return MobileTensors(full, w, seed);
  const std::string module = full.substr(0, full.size() - std::string_view(".weight").size());
  const int64_t rows = w.shape[0], k = w.shape[1];
  std::vector<io::TensorToWrite> out;
  out.push_back({module + ".weight_packed", "I32", {rows, tensor::CtPackedWords(k, 4)},
                 RowFill(w, seed, kGroup, 4, [](const std::vector<int8_t>& q, const std::vector<uint16_t>&, std::string* buf) {
                   std::vector<int32_t> words(static_cast<size_t>(tensor::CtPackedWords(static_cast<int64_t>(q.size()), 4)));
                   tensor::CtPackRow(q.data(), static_cast<int64_t>(q.size()), 4, words.data());
                   buf->append(reinterpret_cast<const char*>(words.data()), words.size() * 4);
                 })});
  out.push_back({module + ".weight_scale", "BF16", {rows, k / kGroup},
                 RowFill(w, seed, kGroup, 4, [](const std::vector<int8_t>&, const std::vector<uint16_t>& s, std::string* buf) {
                   buf->append(reinterpret_cast<const char*>(s.data()), s.size() * 2);
                 })});
  out.push_back({module + ".weight_shape", "I64", {2}, [rows, k](io::ByteSink& sink) -> Status {
                   const int64_t shape[2] = {rows, k};
                   return sink.Write(std::string_view(reinterpret_cast<const char*>(shape), sizeof(shape)));
                 }});
  return out;
}

uint64_t CtBytes(CtWeightFormat f, const WeightSpec& w) {
  if (f == CtWeightFormat::kFp8Dynamic && IsExpertStack(w)) {
    const auto rows = static_cast<uint64_t>(w.shape[0] * w.shape[1]), k = static_cast<uint64_t>(w.shape[2]);
    return rows * k + rows * 2;
  }
  const auto rows = static_cast<uint64_t>(w.shape[0]), k = static_cast<uint64_t>(w.shape[1]);
  if (f == CtWeightFormat::kMobile) {
    const int bits = MobileBits(w);
    return rows * (bits == 8 ? k : static_cast<uint64_t>(tensor::CtPackedWords(static_cast<int64_t>(k), bits)) * 4) +
           rows * 2 + 20;
  }
  if (f == CtWeightFormat::kFp8Dynamic) return rows * k + rows * 2;
  return rows * k / 2 + rows * (k / kGroup) * 2 + 16;
}

std::string AddCtQuantizationConfig(CtWeightFormat f, const std::string& config_json,
                                    const std::vector<std::string>& dense_linears) {
  auto j = nlohmann::ordered_json::parse(config_json);
  if (f == CtWeightFormat::kMobile) {
    using J = nlohmann::ordered_json;
    const J a8 = {{"num_bits", 8}, {"type", "int"}, {"symmetric", true}, {"strategy", "tensor"}, {"dynamic", false}};
    auto group = [&](const char* target, int bits, bool act, const char* format) {
      return J{{"targets", {target}},
               {"weights", {{"num_bits", bits}, {"type", "int"}, {"symmetric", true}, {"strategy", "channel"}, {"dynamic", false}}},
               {"input_activations", act ? a8 : J()},
               {"output_activations", act ? a8 : J()},
               {"format", format}};
    };
    J ignore = {"lm_head", "re:.*router.*", "re:.*vision_tower.*", "re:.*audio_tower.*", "re:.*embed_vision.*",
                "re:.*embed_audio.*", "re:.*per_layer_model_projection$"};
    for (const std::string& m : dense_linears) ignore.push_back(m);
    j["quantization_config"] = {
        {"config_groups",
         {{"attn", group("re:.*self_attn\\.(q|k|v|o)_proj$", 4, true, "pack-quantized")},
          {"mlp_int4", group("re:.*layers\\.([0-9]|1[0-4])\\.mlp\\..*_proj$", 4, true, "pack-quantized")},
          {"mlp_int2", group("re:.*layers\\.(1[5-9]|[2-9][0-9])\\.mlp\\..*_proj$", 2, true, "pack-quantized")},
          {"ple", group("re:.*per_layer_(input_gate|projection)$", 8, true, "int-quantized")},
          {"embed", group("re:.*embed_tokens$", 2, false, "pack-quantized")},
          {"ple_table", group("re:.*embed_tokens_per_layer$", 4, false, "pack-quantized")}}},
        {"format", "mixed-precision"},
        {"ignore", ignore},
        {"kv_cache_scheme", nullptr},
        {"quant_method", "compressed-tensors"},
        {"quantization_status", "compressed"},
        {"sparsity_config", J::object()},
        {"transform_config", J::object()},
        {"version", "0.20.1"}};
    return j.dump(2) + "\n";
  }
  const bool fp8 = f == CtWeightFormat::kFp8Dynamic;
  nlohmann::ordered_json weights = {{"num_bits", fp8 ? 8 : 4},
                                    {"type", fp8 ? "float" : "int"},
                                    {"symmetric", true},
                                    {"strategy", fp8 ? "channel" : "group"},
                                    {"group_size", fp8 ? nlohmann::ordered_json() : nlohmann::ordered_json(32)},
                                    {"dynamic", false},
                                    {"actorder", nullptr},
                                    {"observer", "minmax"}};
  nlohmann::ordered_json inputs;  // null for W4A16
  if (fp8) {
    inputs = {{"num_bits", 8}, {"type", "float"}, {"symmetric", true}, {"strategy", "token"}, {"dynamic", true}};
  }
  const char* format = fp8 ? "float-quantized" : "pack-quantized";
  j["quantization_config"] = {
      {"config_groups",
       {{"group_0",
         {{"targets", {"Linear"}}, {"weights", weights}, {"input_activations", inputs}, {"output_activations", nullptr},
          {"format", format}}}}},
      {"format", format},
      {"ignore", {"lm_head", "re:.*router.*", "re:.*vision_tower.*", "re:.*audio_tower.*", "re:.*embed_vision.*",
                  "re:.*embed_audio.*"}},
      {"kv_cache_scheme", nullptr},
      {"quant_method", "compressed-tensors"},
      {"quantization_status", "compressed"},
      {"sparsity_config", nlohmann::ordered_json::object()},
      {"transform_config", nlohmann::ordered_json::object()},
      {"version", "0.20.1"}};
  for (const std::string& m : dense_linears) j["quantization_config"]["ignore"].push_back(m);
  return j.dump(2) + "\n";
}

std::vector<io::TensorToWrite> CtKvScaleTensors(const Config& c, const std::string& prefix, const std::string& strategy,
                                                uint64_t seed) {
  std::vector<io::TensorToWrite> out;
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    if (c.is_kv_shared(l)) continue;
    const int64_t n = strategy == "attn_head" ? c.layer_num_kv_heads(l) : 1;
    const std::vector<int64_t> shape =
        strategy == "attn_head" ? std::vector<int64_t>{n, 1, 1} : std::vector<int64_t>{1};
    for (const char* which : {"k_scale", "v_scale"}) {
      const std::string name = fmt::format("{}layers.{}.self_attn.{}", prefix, l, which);
      out.push_back({name, "F32", shape, [name, n, seed](io::ByteSink& sink) -> Status {
                       RandomValueStream values(name, {n}, seed);
                       std::vector<float> u(static_cast<size_t>(n));
                       values.Next(n, u.data());
                       std::string buf;
                       for (float x : u) {  // x ~ the recipe of a 1-D tensor: symmetric around 0
                         const float amax = 4.5f + 1.5f * std::tanh(x);
                         const float scale = amax / tensor::kE4M3Max;
                         buf.append(reinterpret_cast<const char*>(&scale), sizeof(scale));
                       }
                       return sink.Write(buf);
                     }});
    }
  }
  return out;
}

std::string AddCtKvCacheScheme(const std::string& config_json, const std::string& strategy) {
  auto j = nlohmann::ordered_json::parse(config_json);
  j["quantization_config"]["kv_cache_scheme"] = {{"num_bits", 8},         {"type", "float"},
                                                 {"symmetric", true},      {"strategy", strategy},
                                                 {"dynamic", false},       {"group_size", nullptr},
                                                 {"observer", "minmax"}};
  return j.dump(2) + "\n";
}

}  // namespace gemmad::model::gemma4
