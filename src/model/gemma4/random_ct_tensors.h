// The compressed-tensors layouts of a random checkpoint (`make-test-model --weight-format w4a16|fp8`).
// W4A16, as Google's *-qat-w4a16-ct files are laid out (spec quantized-checkpoints.md §3.2):
// every text-decoder Linear whose rows are a multiple of 32 long (q/k/v/o, gate/up/down, the PLE
// gate and projections) is stored as int4 symmetric groups of 32 — weight_packed I32 [N, K/8],
// weight_scale BF16 [N, K/32], weight_shape I64 [2] — quantized from the very values the dense
// checkpoint of the same seed holds (bf16-rounded, then s = bf16(max|x| / 7.5), q = round(x / s)
// clamped to [-8, 7], as compressed-tensors' min-max observer does); embeddings, the router, the
// towers and MoE expert stacks stay bf16, and config.json gets the matching quantization_config.
// FP8, as RedHat's *-FP8-dynamic files are (§3.1): every text-decoder Linear as an F8_E4M3 weight
// [N, K] with a BF16 weight_scale [N, 1] (s = bf16(max|x| / 448) per row, e4m3 = RNE(x / s)), the
// FP8_DYNAMIC scheme (dynamic per-token FP8 activations) in a float-quantized config; MoE expert
// stacks unfused per expert (experts.<e>.{gate,up,down}_proj, FP8 per channel, each expert's values
// drawn for its own name), as llm-compressor saves the 26B-A4B.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/safetensors_writer.h"
#include "model/gemma4/config.h"
#include "model/gemma4/weight_spec.h"

namespace gemmad::model::gemma4 {

// Mobile, as Google's *-qat-mobile-ct files are (§3.3): int4 attention, int4 MLP up to layer 14
// and int2 from layer 15 on, int8 PLE gates/projections stored int-quantized, all per channel with
// static int8 input/output activation scales (a fixed ±16 range here), int2 per-row embeddings (tied
// LM head) and an int4 per-row PLE table (E2B's) weight-only; the PLE model projection stays dense.
enum class CtWeightFormat { kDense, kW4A16, kFp8Dynamic, kMobile };

// True when the layout stores this tensor quantized; a text Linear it leaves dense (W4A16: rows not
// a multiple of 32) is listed by name in the config's ignore list, as the library saves it.
bool CtQuantizes(CtWeightFormat f, const WeightSpec& w);
bool IsTextLinear(const WeightSpec& w);
// The tensors of a quantized one (`full` is its checkpoint name, ending in ".weight").
std::vector<io::TensorToWrite> CtTensors(CtWeightFormat f, const std::string& full, const WeightSpec& w, uint64_t seed);
// Bytes they take.
uint64_t CtBytes(CtWeightFormat f, const WeightSpec& w);
// A static FP8 KV cache scheme (compressed-tensors kv_cache_scheme, strategy "tensor" or
// "attn_head"): each KV-owning layer's `<prefix>layers.<l>.self_attn.k_scale` / `v_scale`, F32 [1]
// or [nkv, 1, 1], as a min-max calibration of post-RoPE keys and unit-RMS values would give them
// (amax / 448 with amax drawn from [3, 6] by the seed; the random model is never run to measure).
std::vector<io::TensorToWrite> CtKvScaleTensors(const Config& c, const std::string& prefix, const std::string& strategy,
                                                uint64_t seed);
// config.json text (with a quantization_config) given that kv_cache_scheme.
std::string AddCtKvCacheScheme(const std::string& config_json, const std::string& strategy);

// config.json text with the format's quantization_config added.
std::string AddCtQuantizationConfig(CtWeightFormat f, const std::string& config_json,
                                    const std::vector<std::string>& dense_linears);

}  // namespace gemmad::model::gemma4
