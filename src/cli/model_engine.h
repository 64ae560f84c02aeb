// CreateModelEngine: the one-call composition of a serving engine over a Gemma 4 checkpoint:
// load the model, plan the KV blocks per group under a byte budget, allocate the paged cache,
// build the ModelRunner and start the Engine. For `gemmad serve`, `gemmad bench` and tests. It lives in
// cli/, the composition root: the only place that knows the model, the runner and the engine together.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "base/result.h"
#include "dist/communicator.h"
#include "engine/engine.h"
#include "model/gemma4/weight_quantization.h"
#include "model/weight_source.h"
#include "runner/runner.h"
#include "spec/drafter.h"
#include "tensor/dtype.h"

namespace gemmad::kernels {
struct Backend;
}  // namespace gemmad::kernels

namespace gemmad::cli {

struct ModelEngineOptions {
  std::string model_dir;
  // The checkpoint, when the caller opened it already (`gemmad serve` reads its tokenizer hints
  // first); else model_dir is opened as a safetensors directory.
  std::shared_ptr<const model::WeightSource> source;
  int64_t kv_cache_bytes = int64_t{4} << 30;  // VLLM_CPU_KVCACHE_SPACE (GiB) x 2^30
  int64_t max_model_len = 0;                  // 0 = the model's max_position_embeddings; -1 = the
                                              // largest up to it that the KV budget holds (auto)
  int32_t block_size = 16;
  int32_t max_num_seqs = 256;
  int32_t max_num_batched_tokens = 2048;
  bool enable_prefix_caching = true;
  std::optional<tensor::DType> kv_cache_dtype;  // --kv-cache-dtype; default: the model's dtype
  bool calculate_kv_scales = false;             // --calculate-kv-scales (an FP8 cache only)
  std::optional<tensor::DType> dtype;           // --dtype (kBF16 or kF32); default: the checkpoint's
  std::optional<int32_t> eos_token_id;          // primary EOS; default: config eos_token_ids[0]
  int32_t max_logprobs = 20;
  uint64_t seed = 0;
  int num_threads = 1;                          // CPU threads for the forward pass (incl. the engine thread)
  double iteration_timeout_s = 60.0;
  bool allow_long_max_model_len = false;        // VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
  bool language_model_only = false;             // --language-model-only: no encoder is loaded
  model::gemma4::WeightQuantization quantization = model::gemma4::WeightQuantization::kNone;  // --quantization
  std::string checkpoint_quantization;  // --quantization naming the checkpoint's method ("" = any)
  // Speculative decoding (--speculative-config): the runner drafts up to num_speculative_tokens
  // per sequence and step with `drafter` (null: off).
  std::shared_ptr<const spec::TokenDrafter> drafter;
  int32_t num_speculative_tokens = 0;
  std::string drafter_label;  // for the log line, e.g. "ngram (prompt_lookup_min=5, prompt_lookup_max=5)"
  // MTP: the draft model's checkpoint (a Gemma 4 assistant; instead of `drafter`).
  std::shared_ptr<const model::WeightSource> assistant;
  // Tensor parallelism: rank 0's communicator (cli/tensor_parallel.h); null: the whole model here.
  std::shared_ptr<dist::Communicator> communicator;
  // Test seam (cli/test_seams.h): the kernels backend (kernels/backend.h); nullptr = CPU.
  const kernels::Backend* backend = nullptr;
  // Test seam (cli/test_seams.h): wraps the model runner; unset in the release binary.
  std::function<std::unique_ptr<runner::Runner>(std::unique_ptr<runner::Runner>)> wrap_runner;
};

// What the chat handler needs to know about the loaded vision tower (multimodal.md §2, §5).
struct VisionFacts {
  bool loaded = false;  // a vision encoder serves images and video frames
  int64_t patch_size = 16;
  int64_t pooling_kernel = 3;
  int64_t default_max_soft_tokens = 280;  // vision_config.default_output_length
  bool bidirectional = false;             // use_bidirectional_attention == "vision" (26B-A4B, 31B)
  int32_t image_token_id = 258880;
  int32_t video_token_id = 258884;
};

// What the chat handler needs to know about the checkpoint's audio tower (multimodal.md §4).
struct AudioFacts {
  bool tower = false;   // the checkpoint has one (audio_config): E2B/E4B
  bool loaded = false;  // an audio encoder serves clips (not with --language-model-only)
  int64_t num_mels = 128;  // the feature extractor's mel bins = the tower's first conv channels
  int32_t audio_token_id = 258881;
};

struct ModelEngine {
  std::unique_ptr<engine::Engine> engine;
  VisionFacts vision;
  AudioFacts audio;
  kv::KvCacheConfig kv;      // the planned groups (for logs: blocks and bytes per group)
  int64_t kv_cache_bytes = 0;  // bytes the planned blocks take
};

// Errors: the checkpoint's (one line naming the file), and kResourceExhausted when
// max_model_len does not fit the KV budget, naming the largest length that does.
Result<ModelEngine> CreateModelEngine(const ModelEngineOptions& options);

// vLLM's rule: a max_model_len above the model's max_position_embeddings is an InvalidArgument
// unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 (then a warning).
Status CheckMaxModelLen(int64_t max_model_len, int64_t max_position_embeddings, bool allow_long);

}  // namespace gemmad::cli
