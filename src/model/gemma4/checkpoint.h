// Checkpoint: an opened Gemma 4 checkpoint — its WeightSource (today a model directory of
// config.json, generation_config.json and (sharded) safetensors) with every text-decoder tensor
// validated against the config before anything runs. Invariant: after Open succeeds every used WeightSpec tensor is present
// with the implied shape and a float dtype (BF16, F16 or F32; bf16 stays bf16, zero-copy), and
// no tensor outside the spec exists except skipped vision/audio tensors.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/result.h"
#include <memory>

#include "model/weight_source.h"
#include "model/gemma4/config.h"
#include "model/gemma4/weight_spec.h"
#include "model/generation_config.h"
#include "tensor/tensor_view.h"

namespace gemmad::model::gemma4 {

struct CheckpointOptions {
  bool show_progress = false;  // a progress bar over the shards on stderr (use when it is a terminal)
};

struct CheckpointStats {
  int64_t num_text_tensors = 0, num_skipped_tensors = 0;  // skipped = vision/audio
  uint64_t text_bytes = 0, skipped_bytes = 0;
  uint64_t unused_text_bytes = 0;  // present but never read (KV-shared layers' K/V)
};

class Checkpoint {
 public:
  // An empty checkpoint (no tensors); only Open() yields a usable one.
  Checkpoint() = default;
  // Opens and validates `model_dir` (a SafetensorsDirSource). Errors are one line naming the
  // file and the problem: missing/truncated shard, bad header, missing/unexpected tensor, wrong
  // shape or dtype, unsupported model_type.
  static Result<Checkpoint> Open(const std::string& model_dir, const CheckpointOptions& options = {});
  // Validates any weight source against the config it carries.
  static Result<Checkpoint> FromSource(std::shared_ptr<const WeightSource> source);

  const Config& config() const { return config_; }
  const GenerationConfig& generation_config() const { return generation_config_; }
  const std::string& dir() const { return dir_; }
  // "model." or "model.language_model." (detected from the tensors).
  const std::string& prefix() const { return prefix_; }
  const WeightSource& source() const { return *source_; }
  const CheckpointStats& stats() const { return stats_; }

  // A tensor by spec name ("embed_tokens.weight", "layers.3.mlp.up_proj.weight", "lm_head.weight").
  // nullptr when the name is not in the spec or an unused tensor is absent.
  const tensor::TensorView* Find(std::string_view spec_name) const;
  // The same, for tensors the forward pass needs: GEMMAD_CHECK-fails when absent (validated).
  const tensor::TensorView& Tensor(std::string_view spec_name) const;
  // Tensor(fmt::format("layers.{}.{}", layer, suffix)).
  const tensor::TensorView& LayerTensor(int64_t layer, std::string_view suffix) const;

 private:
  Config config_;
  GenerationConfig generation_config_;
  std::string dir_, prefix_;
  std::shared_ptr<const WeightSource> source_;  // shared: Checkpoint stays copyable
  CheckpointStats stats_;
  std::unordered_map<std::string, tensor::TensorView> tensors_;  // spec name -> view
};

// Validates `source`'s tensors against the spec of `config` (what FromSource does after reading
// the config). "Missing tensor" errors name source.label(). On success fills `tensors` (spec
// name -> view), `prefix` and `stats`.
Status ValidateTensors(const Config& config, const WeightSource& source,
                       std::unordered_map<std::string, tensor::TensorView>* tensors, std::string* prefix,
                       CheckpointStats* stats);

}  // namespace gemmad::model::gemma4
