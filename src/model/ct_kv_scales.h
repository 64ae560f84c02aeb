// The static FP8 KV cache scales of a compressed-tensors checkpoint (spec quantized-checkpoints.md
// §1.9, §5): `quantization_config.kv_cache_scheme` and each attention module's `k_scale` /
// `v_scale` tensors (`q_scale`, the query's for FP8 attention kernels, is read past: gemmad's
// attention keeps the query in fp32, as vLLM's Triton backend does).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/ct_config.h"
#include "model/weight_source.h"

namespace gemmad::model {

// Element i of a scale tensor (BF16, F16 or F32) as float.
float ScaleAt(const tensor::TensorView& s, int64_t i);

// Checks `scheme` as vLLM does (float, 8 bits, symmetric, static, per tensor or per attention
// head) and reads every `<attention>.k_scale` / `.v_scale` of `source` (F32, BF16 or F16; [1] or a
// scalar per tensor, [num_kv_heads, 1, 1] per head; finite and > 0). Also the legacy names vLLM maps
// (spec quantized-checkpoints.md §5): `<attention>.kv_scale` (one scale for both K and V) and
// `<attention>.k_proj.output_scale` / `.v_proj.output_scale`, the latter only where `config` gives
// that projection no output activations (a mobile QAT file's o8 output scales are not KV scales; with
// no config they are left alone). An attention with both a legacy and a current name is an error.
// The names it read (and each q_scale) go into `consumed`. Errors are one line naming config_label
// or the tensor.
Result<std::vector<KvCacheScales>> ReadCtKvScales(const CtArgs& scheme, const WeightSource& source,
                                                  std::set<std::string, std::less<>>* consumed,
                                                  const CtConfig* config = nullptr);

}  // namespace gemmad::model
