// WeightSource: where a model's configuration, weights and tokenizer hints come from. The model
// layer reads checkpoints only through this interface. A Hugging Face directory of config.json +
// safetensors (model/safetensors_source.h) is one implementation; a GGUF file or a
// compressed-tensors checkpoint is another: it presents its configuration in config.json form and
// its tensors under the Hugging Face names, each with the dtype or quantized format it is stored in.
// Invariant: every name in tensor_names() has Info() and, when Info()->dtype is set, a View().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/generation_config.h"
#include "tensor/dtype.h"
#include "tensor/tensor_view.h"

namespace gemmad::model {

struct WeightInfo {
  std::vector<int64_t> shape;
  std::optional<tensor::DType> dtype;  // unset: a dtype or format gemmad cannot compute with
  std::string dtype_name;              // as the source spells it ("BF16", "F8_E4M3", "Q4_K", ...)
  uint64_t size_bytes = 0;
  std::string origin;                  // the file holding it (for error messages)
};

// Static per-tensor int8 fake quantization around one Linear (compressed-tensors schemes with
// int8 `input_activations` / `output_activations`, Google's *-qat-mobile-ct): the input becomes
// clamp(round(x / input_scale), -128, 127) · input_scale before the product, the output likewise
// with output_scale after it; a scale of 0 (uncalibrated) leaves that side as it is.
struct ActivationQuant {
  std::string weight;  // the weight's tensor name ("….q_proj.weight")
  float input_scale = 0.0f, output_scale = 0.0f;
};

// A checkpoint's static FP8 KV cache scales (compressed-tensors kv_cache_scheme, spec §1.9): per
// attention module ("model.language_model.layers.3.self_attn"), one value (strategy tensor) or one
// per KV head (attn_head) for K and for V. The cache then stores e4m3(x / s) and reads e4m3 · s.
struct KvCacheScales {
  std::string attention;
  std::vector<float> k, v;
};

// What the tokenizer and the chat template are loaded from, when the checkpoint ships them.
struct TokenizerHints {
  std::string tokenizer_dir;                 // holds tokenizer.json ("" when the source has none)
  std::optional<std::string> chat_template;  // the checkpoint's own chat template (Jinja source)
  std::string gguf_file;                     // the tokenizer is this GGUF file's metadata ("" if not)
};

class WeightSource {
 public:
  virtual ~WeightSource() = default;
  // The directory or file errors should name, and the name of the config's origin.
  virtual const std::string& label() const = 0;
  virtual const std::string& config_label() const = 0;
  // config.json text (Hugging Face layout; a GGUF source writes its metadata in that form).
  virtual const std::string& config_json() const = 0;
  virtual const GenerationConfig& generation_config() const = 0;
  // Sorted names of every tensor the source holds (decoder, vision, audio, ...).
  virtual const std::vector<std::string>& tensor_names() const = 0;
  // nullptr when absent.
  virtual const WeightInfo* Info(std::string_view name) const = 0;
  // A zero-copy view of the stored data (errors: absent, unreadable dtype).
  virtual Result<tensor::TensorView> View(std::string_view name) const = 0;
  // The files the weights live in (for `gemmad inspect` and messages).
  virtual std::vector<std::string> files() const = 0;
  virtual const TokenizerHints& tokenizer_hints() const = 0;
  // The Linears whose activations the checkpoint quantizes statically (none for most sources).
  virtual std::vector<ActivationQuant> activation_quant() const { return {}; }
  // The checkpoint's KV cache scales, when its config declares them (nullopt: it does not).
  virtual std::optional<std::vector<KvCacheScales>> kv_cache_scales() const { return std::nullopt; }
};

}  // namespace gemmad::model
