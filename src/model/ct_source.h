// CtSource: the WeightSource of a compressed-tensors checkpoint (spec quantized-checkpoints.md):
// a Hugging Face safetensors directory whose config.json carries a `quantization_config` with
// quant_method "compressed-tensors". It wraps the directory's own source and presents every
// quantized module `X` under the name `X.weight`, shape [N, K], as the kernels read it:
// - int2..int4 symmetric weight-only (Google's *-qat-w4a16-ct: int4 group 32; the mobile files'
//   int2 per-row embeddings; any group size that is a multiple of 32, or per channel / per tensor)
//   with K a multiple of 32 and every scale exact in f16: gemmad's kQ4_0 (tensor/quant_blocks.h),
//   the same integers and scales moved into Q4_0 blocks (u = q + 8 is the Q4_0 nibble); the
//   --quantization int4 kernels (and the embedding gather) then read the
//   checkpoint's own 4.5 bits per weight. They compute w = q·s exactly in fp32 where the
//   reference rounds q·s to bf16, and meet int8-quantized activations (the int4 kernels' recipe).
// - FP8 E4M3 weights per channel or per tensor with dynamic per-token FP8 activations (RedHat's
//   *-FP8-dynamic, FP8_DYNAMIC): kF8R rows {fp32 scale; the checkpoint's E4M3 bytes}; the FP8
//   Linear kernels quantize the activations per token as vLLM does.
// - int2..int4 per channel (or per tensor) packed rows of whole 32-groups that are not kQ4_0 (the
//   mobile QAT Linears, with static int8 activations; zero points allowed): kLut4R / kLut2R code-table
//   rows (tensor/lut_rows.h) whose tables hold exactly the library's reference values.
// - int8 `int-quantized` symmetric weights with bf16 scales per channel or tensor and static int8
//   activations (the mobile files' PLE gates): kI8BR rows {fp32 scale; the checkpoint's int8 bytes}
//   (tensor/i8b_rows.h), each weight bf16(q·s) as the library rounds it.
// - every other integer layout (2..8 bits, asymmetric zero points, groups that do not tile 32, rows
//   not a multiple of 32, scales outside f16): dequantized at open into the scale's dtype exactly
//   as the library does, bf16((q - zp)·s) for bf16 scales: the reference weights.
// Static int8 input / output activations (a8 / o8) are listed by activation_quant() for the model's
// fake quantization. The packed tensors themselves (weight_packed, weight_scale, weight_shape,
// weight_zero_point) (and FP8 weight scales) are not listed. Schemes gemmad cannot run yet (dynamic
// int8 activations, FP8 weights without dynamic per-token activations, block and microscale
// formats, activation ordering) are one-line load errors naming the module. A kv_cache_scheme's
// k_scale / v_scale / q_scale tensors are not listed either: kv_cache_scales() holds them.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "model/weight_source.h"

namespace gemmad::model {

struct CtSourceOptions {
  bool dequantize_all = false;  // every quantized module to the reference weights (no kQ4_0)
};

// The `quantization_config` object of config.json as JSON text, nullopt when there is none (or
// when config.json is not a JSON object: the config parser reports that). DataLoss when it is there
// but not an object.
Result<std::optional<std::string>> FindQuantizationConfig(const std::string& config_json, const std::string& label);

// The quant_method of a quantization_config object ("" when absent or not a string).
std::string QuantizationMethodOf(const std::string& quantization_config_json);

// Wraps `base` (whose config.json holds `quantization_config_json`, a compressed-tensors config).
Result<std::unique_ptr<WeightSource>> OpenCtSource(std::unique_ptr<WeightSource> base,
                                                   const std::string& quantization_config_json,
                                                   const CtSourceOptions& options = {});

}  // namespace gemmad::model
