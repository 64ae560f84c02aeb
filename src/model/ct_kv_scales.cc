// ReadCtKvScales (see ct_kv_scales.h).
#include "model/ct_kv_scales.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "tensor/half.h"

namespace gemmad::model {
namespace {

using tensor::DType;

constexpr std::string_view kSuffixes[] = {".k_scale", ".v_scale", ".q_scale"};
// Legacy names (vLLM's get_cache_scale / kv_scale remapping): suffix, and whether it scales K, V.
struct Legacy {
  std::string_view suffix;
  bool k, v;
};
constexpr Legacy kLegacy[] = {{".kv_scale", true, true},
                              {".k_proj.output_scale", true, false},
                              {".v_proj.output_scale", false, true}};

// The legacy name `name` stands for a KV scale: kv_scale always; a projection's output_scale when the
// config gives that projection no output activations.
const Legacy* LegacyOf(std::string_view name, const CtConfig* config) {
  for (const Legacy& l : kLegacy) {
    if (!name.ends_with(l.suffix)) continue;
    if (l.suffix == ".kv_scale") return &l;
    if (config == nullptr) return nullptr;
    const std::string_view module = name.substr(0, name.size() - std::string_view(".output_scale").size());
    const CtScheme* s = config->SchemeFor(module, CtKindOf(module));
    return s != nullptr && s->output_activations ? nullptr : &l;
  }
  return nullptr;
}

}  // namespace

float ScaleAt(const tensor::TensorView& s, int64_t i) {
  switch (s.dtype) {
    case DType::kBF16: return tensor::Bf16ToFloat(s.As<const uint16_t>()[i]);
    case DType::kF16: return tensor::F16ToFloat(s.As<const uint16_t>()[i]);
    default: return s.As<const float>()[i];
  }
}

Result<std::vector<KvCacheScales>> ReadCtKvScales(const CtArgs& scheme, const WeightSource& source,
                                                  std::set<std::string, std::less<>>* consumed,
                                                  const CtConfig* config) {
  const std::string& label = source.config_label();
  // vLLM's CompressedTensorsKVCacheMethod: only an 8-bit float, symmetric, static scheme per tensor
  // (or per attention head) describes an FP8 cache it can hold.
  if (!scheme.is_float || scheme.num_bits != 8) {
    return InvalidArgumentError(fmt::format(
        "{}: quantization_config.kv_cache_scheme is {}: only num_bits=8 and type=float are supported for the KV cache",
        label, scheme.ToString()));
  }
  if (!scheme.symmetric || scheme.dynamic ||
      (scheme.strategy != CtStrategy::kTensor && scheme.strategy != CtStrategy::kAttnHead)) {
    return InvalidArgumentError(fmt::format(
        "{}: quantization_config.kv_cache_scheme is {}: only static symmetric scales per tensor or per attention "
        "head are supported for the KV cache",
        label, scheme.ToString()));
  }
  std::map<std::string, KvCacheScales, std::less<>> by_attention, legacy;
  for (const std::string& name : source.tensor_names()) {
    std::string_view suffix;
    for (std::string_view s : kSuffixes) {
      if (name.ends_with(s)) suffix = s;
    }
    const Legacy* old = suffix.empty() ? LegacyOf(name, config) : nullptr;
    if (suffix.empty() && old == nullptr) continue;
    consumed->insert(name);
    if (suffix == ".q_scale") continue;
    const WeightInfo* info = source.Info(name);
    if (info == nullptr || !info->dtype ||
        (*info->dtype != DType::kF32 && *info->dtype != DType::kBF16 && *info->dtype != DType::kF16)) {
      return DataLossError(fmt::format("{}: tensor '{}' has dtype {}, expected F32, BF16 or F16",
                                       info ? info->origin : label, name, info ? info->dtype_name : "?"));
    }
    GEMMAD_ASSIGN_OR_RETURN(tensor::TensorView v, source.View(name));
    const int64_t n = v.NumElements();
    const bool head_shape = v.shape.rank == 3 && v.shape[1] == 1 && v.shape[2] == 1;
    if (scheme.strategy == CtStrategy::kTensor ? n != 1 : !(head_shape || n == 1)) {
      return DataLossError(fmt::format("{}: tensor '{}' is {}; kv_cache_scheme {} needs {}", info->origin, name,
                                       v.shape.ToString(), scheme.ToString(),
                                       scheme.strategy == CtStrategy::kTensor ? "one value" : "[num_kv_heads, 1, 1]"));
    }
    const std::string_view cut = old != nullptr ? old->suffix : suffix;
    KvCacheScales& s = (old != nullptr ? legacy : by_attention)[name.substr(0, name.size() - cut.size())];
    for (int64_t i = 0; i < n; ++i) {
      const float x = ScaleAt(v, i);
      if (!(x > 0.0f) || !std::isfinite(x)) {
        return DataLossError(fmt::format("{}: tensor '{}' holds {}: a KV cache scale must be finite and positive",
                                         info->origin, name, x));
      }
      if (old != nullptr ? old->k : suffix == ".k_scale") s.k.push_back(x);
      if (old != nullptr ? old->v : suffix == ".v_scale") s.v.push_back(x);
    }
  }
  for (auto& [attention, s] : legacy) {
    auto it = by_attention.find(attention);
    if (it != by_attention.end() && (!it->second.k.empty() || !it->second.v.empty())) {
      return DataLossError(fmt::format("{}: attention '{}' has both k_scale / v_scale and a legacy kv_scale or "
                                       "k_proj / v_proj output_scale",
                                       label, attention));
    }
    KvCacheScales& to = by_attention[attention];
    to.k = std::move(s.k);
    to.v = std::move(s.v);
  }
  std::vector<KvCacheScales> out;
  for (auto& [attention, s] : by_attention) {
    if (s.k.empty() != s.v.empty()) {
      return DataLossError(fmt::format("{}: attention '{}' has a {} but no {}", label, attention,
                                       s.k.empty() ? "v_scale" : "k_scale", s.k.empty() ? "k_scale" : "v_scale"));
    }
    if (s.k.empty()) continue;  // q_scale only
    s.attention = attention;
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace gemmad::model
