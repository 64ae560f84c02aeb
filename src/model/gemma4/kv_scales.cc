// BindKvScales, CalibrateKvScales and KvScalesFor (see kv_scales.h).
#include "model/gemma4/kv_scales.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

namespace gemmad::model::gemma4 {

namespace {

// Each KV-owning layer's scales; errors as CheckKvScales documents.
Result<std::vector<const KvCacheScales*>> LayerScales(const Config& c, const std::string& prefix,
                                                      const std::vector<KvCacheScales>& scales,
                                                      const std::string& label) {
  std::map<std::string, const KvCacheScales*, std::less<>> by_name;
  for (const KvCacheScales& s : scales) by_name[s.attention] = &s;
  std::vector<const KvCacheScales*> out(static_cast<size_t>(c.num_hidden_layers), nullptr);
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    if (c.is_kv_shared(l)) continue;
    const std::string name = fmt::format("{}layers.{}.self_attn", prefix, l);
    auto it = by_name.find(name);
    if (it == by_name.end()) {
      return DataLossError(fmt::format("{}: quantization_config.kv_cache_scheme is set but attention '{}' has no "
                                       "k_scale / v_scale",
                                       label, name));
    }
    const int64_t nkv = c.layer_num_kv_heads(l);
    for (const std::vector<float>* v : {&it->second->k, &it->second->v}) {
      if (v->size() != 1 && static_cast<int64_t>(v->size()) != nkv) {
        return DataLossError(fmt::format("{}: attention '{}' has {} KV cache scales for its {} KV heads", label, name,
                                         v->size(), nkv));
      }
    }
    out[static_cast<size_t>(l)] = it->second;
  }
  return out;
}

}  // namespace

Status CheckKvScales(const Config& c, const std::string& prefix, const std::vector<KvCacheScales>& scales,
                     const std::string& label) {
  return LayerScales(c, prefix, scales, label).status();
}

Status BindKvScales(const Config& c, const std::string& prefix, const std::vector<KvCacheScales>& scales,
                    const std::string& label, Weights* w) {
  GEMMAD_ASSIGN_OR_RETURN(std::vector<const KvCacheScales*> by_layer, LayerScales(c, prefix, scales, label));
  for (size_t l = 0; l < by_layer.size(); ++l) {
    if (by_layer[l] == nullptr) continue;
    w->layers[l].k_scale = by_layer[l]->k;
    w->layers[l].v_scale = by_layer[l]->v;
  }
  return OkStatus();
}

void CalibrateKvScales(const tensor::TensorView& k, const tensor::TensorView& v, int64_t layer,
                       KvScaleCalibration* c) {
  const auto amax = [](const tensor::TensorView& t) {
    float m = 0.0f;
    const float* p = t.As<const float>();
    for (int64_t i = 0; i < t.NumElements(); ++i) m = std::max(m, std::fabs(p[i]));
    return m;
  };
  const auto l = static_cast<size_t>(layer);
  if (c->k.size() <= l) c->k.resize(l + 1);
  if (c->v.size() <= l) c->v.resize(l + 1);
  const float ak = amax(k), av = amax(v);
  c->k[l] = {ak > 0.0f && std::isfinite(ak) ? ak / 200.0f : 1.0f};
  c->v[l] = {av > 0.0f && std::isfinite(av) ? av / 100.0f : 1.0f};
}

kernels::KvScales KvScalesFor(const Weights& w, const KvCacheSpec& spec, int64_t layer, tensor::DType cache_dtype,
                              const KvScaleCalibration* calibration) {
  if (cache_dtype != tensor::DType::kF8E4M3) return {};
  const auto s = static_cast<size_t>(spec.layer_kv_source[static_cast<size_t>(layer)]);
  if (calibration != nullptr && s < calibration->k.size() && !calibration->k[s].empty()) {
    return {calibration->k[s], calibration->v[s]};
  }
  const LayerWeights& src = w.layers[s];
  return {src.k_scale, src.v_scale};
}

}  // namespace gemmad::model::gemma4
