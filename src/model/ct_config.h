// The compressed-tensors `quantization_config` of a checkpoint's config.json (spec
// quantized-checkpoints.md §1.1-1.5) as plain data, and the rule that gives a module its scheme.
// Parsing follows the library's validation (strategy inference, group/token/block rules, presets
// expanded); unknown keys are ignored so that newer writers still load. Matching follows vLLM:
// ignore list first (exact names, `re:` regexes anchored at the start only), then the targets of
// the groups in file order — names and regexes before class names, class names matched as a
// case-insensitive substring of the vLLM layer class the module becomes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace gemmad::model {

enum class CtStrategy { kTensor, kChannel, kGroup, kBlock, kToken, kTensorGroup, kAttnHead };
std::string_view CtStrategyName(CtStrategy s);

// One QuantizationArgs (weights, input or output activations, or the KV cache scheme).
struct CtArgs {
  int num_bits = 8;
  bool is_float = false;  // "float": 8 = FP8 E4M3, 4 = FP4 E2M1
  bool symmetric = true;
  CtStrategy strategy = CtStrategy::kTensor;
  int64_t group_size = 0;             // > 0 for group / tensor_group
  int64_t block_rows = 0, block_cols = 0;  // block strategy
  bool dynamic = false;               // scales computed at run time ("local" counts as dynamic)
  std::string actorder;               // "", "weight"/"static", "group"/"dynamic"
  std::string ToString() const;       // "int4 group 32 symmetric", for messages and logs
};

struct CtScheme {
  std::string name;                     // the config_groups key
  std::vector<std::string> targets;
  std::optional<CtArgs> weights, input_activations, output_activations;
  std::string format;                   // the group's own format, else the global one
};

// The vLLM layer class a module becomes, for class-name targets ("Linear", "Embedding", ...).
enum class CtModuleKind { kLinear, kEmbedding, kLmHead, kAttention, kRouter };

struct CtConfig {
  std::string format;                   // global format ("pack-quantized", "mixed-precision", ...)
  std::string quantization_status;      // "compressed" when the tensors are stored packed
  std::vector<CtScheme> groups;         // in file order
  std::vector<std::string> ignore;
  std::optional<CtArgs> kv_cache_scheme;

  bool compressed() const { return quantization_status == "compressed"; }
  // The scheme that applies to `module` (a checkpoint module name, e.g.
  // "model.layers.3.mlp.down_proj"); nullptr when the module is ignored or no target matches.
  const CtScheme* SchemeFor(std::string_view module, CtModuleKind kind) const;
  bool Ignored(std::string_view module) const;
};

// The kind of a Gemma 4 checkpoint module by its name (…embed_tokens[_per_layer] -> embedding,
// lm_head, …router.proj -> router, …self_attn -> attention, anything else -> linear).
CtModuleKind CtKindOf(std::string_view module);

// Parses `quantization_config` (the JSON text of that object). Errors (InvalidArgument, the
// message naming the group and field) for what the library or vLLM would refuse, and for what
// gemmad cannot read: sparsity or transform configs, microscale formats.
Result<CtConfig> ParseCtConfig(std::string_view quantization_config_json);

}  // namespace gemmad::model
