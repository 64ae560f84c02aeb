// The compressed-tensors W4A16 layout of a random checkpoint (`make-test-model --weight-format
// w4a16`), as Google's *-qat-w4a16-ct files are laid out (spec quantized-checkpoints.md §3.2):
// every text-decoder Linear whose rows are a multiple of 32 long (q/k/v/o, gate/up/down, the PLE
// gate and projections) is stored as int4 symmetric groups of 32 — weight_packed I32 [N, K/8],
// weight_scale BF16 [N, K/32], weight_shape I64 [2] — quantized from the very values the dense
// checkpoint of the same seed holds (bf16-rounded, then s = bf16(max|x| / 7.5), q = round(x / s)
// clamped to [-8, 7], as compressed-tensors' min-max observer does); embeddings, the router, the
// towers and MoE expert stacks stay bf16, and config.json gets the matching quantization_config.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/safetensors_writer.h"
#include "model/gemma4/weight_spec.h"

namespace gemmad::model::gemma4 {

// True when the W4A16 layout stores this tensor packed; a text Linear it leaves dense (rows not a
// multiple of 32) is listed by name in the config's ignore list, as the library saves it.
bool CtW4A16Packs(const WeightSpec& w);
bool IsTextLinear(const WeightSpec& w);
// The three tensors of a packed one (`full` is its checkpoint name, ending in ".weight").
std::vector<io::TensorToWrite> CtW4A16Tensors(const std::string& full, const WeightSpec& w, uint64_t seed);
// Bytes the packed tensors take.
uint64_t CtW4A16Bytes(const WeightSpec& w);
// config.json text with the W4A16 quantization_config added.
std::string AddCtW4A16QuantizationConfig(const std::string& config_json, const std::vector<std::string>& dense_linears);

}  // namespace gemmad::model::gemma4
