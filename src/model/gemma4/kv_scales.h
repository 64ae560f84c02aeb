// A checkpoint's static FP8 KV cache scales (compressed-tensors kv_cache_scheme, WeightSource::
// kv_cache_scales) on the Gemma 4 layers: bound to each KV-owning layer, read by the layers that
// share its cache (HF's KV-shared layers reuse the donor's quantized K/V; vLLM's read its cache).
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "kernels/ops.h"
#include "model/gemma4/config.h"
#include "model/gemma4/weights.h"
#include "model/kv_cache_spec.h"
#include "model/weight_source.h"

namespace gemmad::model::gemma4 {

// Checks that every KV-owning layer has scales (those of `<prefix>layers.<l>.self_attn`), one value
// or one per KV head; KV-shared layers' scales (written by calibration tools, never applied) and
// other attention modules' (the towers') are left unused. Errors name `label` and the module.
Status CheckKvScales(const Config& c, const std::string& prefix, const std::vector<KvCacheScales>& scales,
                     const std::string& label);
// CheckKvScales, then each KV-owning layer's scales into w->layers[l].k_scale / v_scale.
Status BindKvScales(const Config& c, const std::string& prefix, const std::vector<KvCacheScales>& scales,
                    const std::string& label, Weights* w);

// --calculate-kv-scales (vLLM's calculate_kv_scales, spec quantized-checkpoints.md §5): each
// KV-owning layer's per-tensor FP8 scales from the keys and values of the first forward, as they are
// written (after k_norm, RoPE and v_norm): s_k = amax(k) / 200, s_v = amax(v) / 100 (vLLM's
// K_SCALE_CONSTANT and V_SCALE_CONSTANT); a side that is all zeros keeps 1.0. k / v: [layers], one
// value each once the layer has been measured.
struct KvScaleCalibration {
  std::vector<std::vector<float>> k, v;
};
// Measures layer `layer` from its new keys and values (any shape, f32) into c.
void CalibrateKvScales(const tensor::TensorView& k, const tensor::TensorView& v, int64_t layer,
                       KvScaleCalibration* c);

// The KvScales a layer's attention passes to the kernels: its K/V source layer's, when its cache
// is FP8 and the checkpoint (or `calibration`, where it has measured that layer) has scales; empty
// otherwise.
kernels::KvScales KvScalesFor(const Weights& w, const KvCacheSpec& spec, int64_t layer, tensor::DType cache_dtype,
                              const KvScaleCalibration* calibration = nullptr);

}  // namespace gemmad::model::gemma4
