// ServeOptions: the typed result of `gemmad serve` flags plus the environment variables vLLM
// reads (VLLM_API_KEY, VLLM_CPU_KVCACHE_SPACE, VLLM_ENGINE_ITERATION_TIMEOUT_S), validated
// the way vLLM validates them at startup. Built once in cmd_serve and turned into the engine,
// api and server configurations there.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/request_limits.h"
#include "base/result.h"
#include "constrain/request.h"
#include "cli/flag_parser.h"
#include "model/gemma4/weight_quantization.h"
#include "spec/speculative_config.h"
#include "tensor/dtype.h"

namespace gemmad::cli {

struct ServeOptions {
  // Model.
  std::string model;  // positional or --model
  std::string revision = "main";
  std::string tokenizer;  // empty: the model
  std::string mmproj;     // --mmproj (empty: looked for beside a GGUF model)
  bool no_mmproj = false;  // --no-mmproj
  std::string tokenizer_revision;
  std::string hf_token;      // --hf-token: Bearer token for hub downloads (over HF_TOKEN)
  std::string download_dir;  // --download-dir: hub cache root for downloads (over the HF cache)
  std::string dtype = "auto";
  // --dtype as the compute dtype: bfloat16 -> kBF16, float/float32 -> kF32, auto -> unset (the
  // checkpoint's: bf16 for a bf16 embedding, else f32). half/float16 is a startup error.
  std::optional<tensor::DType> compute_dtype;
  int tensor_parallel_size = 1;  // --tensor-parallel-size / -tp (cli/tensor_parallel.h)
  std::optional<tensor::DType> kv_cache_dtype;  // --kv-cache-dtype (unset: the compute dtype)
  bool calculate_kv_scales = false;             // --calculate-kv-scales
  model::gemma4::WeightQuantization quantization = model::gemma4::WeightQuantization::kNone;  // --quantization
  std::string checkpoint_quantization;  // --quantization compressed-tensors: the checkpoint must be one
  std::optional<int64_t> max_model_len;  // unset: model config; -1: largest that fits
  uint64_t seed = 0;

  // Frontend.
  std::string host = "0.0.0.0";
  int port = 8000;
  std::string uds;        // --uds: a Unix domain socket path instead of host/port
  std::string root_path;  // --root-path
  std::vector<std::string> allowed_origins{"*"};  // CORS (Starlette's CORSMiddleware)
  std::vector<std::string> allowed_methods{"*"};
  std::vector<std::string> allowed_headers{"*"};
  bool allow_credentials = false;
  std::string ssl_certfile;  // TLS when set (uvicorn: the key may be in the same file)
  std::string ssl_keyfile;
  std::string ssl_ca_certs;
  int ssl_cert_reqs = 0;  // 0 none, 1 optional, 2 required
  std::string ssl_ciphers;
  bool enable_ssl_refresh = false;  // reload the TLS files for new connections after they change
  int64_t h11_max_incomplete_event_size = int64_t{4} << 20;  // request line + headers, bytes
  int64_t h11_max_header_count = 256;
  std::vector<std::string> api_keys;
  std::vector<std::string> served_model_names;  // never empty after validation
  bool enable_request_id_headers = false;
  std::string response_role = "assistant";
  std::string chat_template;  // path or inline text; empty: the checkpoint's
  std::string chat_template_content_format = "auto";
  nlohmann::ordered_json default_chat_template_kwargs;  // object or null
  bool trust_request_chat_template = false;
  bool enable_auto_tool_choice = false;
  std::string tool_call_parser;
  std::string reasoning_parser;
  bool exclude_tools_when_tool_choice_none = false;
  bool enable_prompt_tokens_details = false;
  bool enable_force_include_usage = false;
  std::string generation_config = "auto";
  nlohmann::ordered_json override_generation_config;  // object or null
  int64_t max_logprobs = 20;
  constrain::StructuredOutputsConfig structured_outputs_config;  // --structured-outputs-config
  bool enable_log_requests = false;
  bool disable_log_stats = false;
  std::optional<int64_t> max_log_len;
  std::string log_level = "info";
  double shutdown_timeout_s = 30;
  std::map<std::string, int64_t> limit_mm_per_prompt;  // modality -> count (only keys given)
  bool language_model_only = false;                    // no encoders loaded, media refused
  nlohmann::ordered_json mm_processor_kwargs;          // object or null (max_soft_tokens)
  std::string allowed_local_media_path;
  std::vector<std::string> allowed_media_domains;
  bool allow_private_media_addresses = false;
  int64_t max_media_bytes = int64_t{64} << 20;
  double image_fetch_timeout_s = 5;   // VLLM_IMAGE_FETCH_TIMEOUT
  double video_fetch_timeout_s = 30;  // VLLM_VIDEO_FETCH_TIMEOUT
  double audio_fetch_timeout_s = 10;  // VLLM_AUDIO_FETCH_TIMEOUT
  double max_audio_clip_filesize_mb = 25;  // VLLM_MAX_AUDIO_CLIP_FILESIZE_MB (transcription uploads)

  // Request limits (serve_flags_limits.cc).
  api::RequestLimits request_limits;
  size_t max_request_body_bytes = size_t{64} << 20;
  double request_body_timeout_s = 60;
  int64_t max_concurrent_compiles = 0;  // 0: half the CPU cores
  uint64_t max_template_steps = 20'000'000;
  size_t max_template_output_bytes = size_t{64} << 20;

  // Engine.
  int64_t max_num_seqs = 256;
  int64_t max_num_batched_tokens = 2048;
  bool enable_prefix_caching = true;
  int64_t block_size = 16;
  int64_t kv_cache_bytes = int64_t{4} << 30;
  double engine_iteration_timeout_s = 60;  // VLLM_ENGINE_ITERATION_TIMEOUT_S
  bool allow_long_max_model_len = false;   // VLLM_ALLOW_LONG_MAX_MODEL_LEN=1
  std::optional<spec::SpeculativeConfig> speculative_config;  // --speculative-config (ngram only so far)

  // Flags set on the command line that are accepted but have no effect yet (to log once).
  std::vector<std::string> ineffective_flags_set;
};

// Environment lookup, injectable for tests (returns nullopt when unset).
using EnvLookup = std::optional<std::string> (*)(const char* name);
std::optional<std::string> ProcessEnv(const char* name);

// Builds and validates. Errors are InvalidArgument with one line naming the flag, e.g.
// "--tensor-parallel-size 2: tensor parallelism is not implemented yet (only 1)".
Result<ServeOptions> BuildServeOptions(const ParsedFlags& flags, EnvLookup env = &ProcessEnv);

// --kv-cache-dtype as vLLM spells it: nullopt for auto (the compute dtype), FP8 E4M3 for fp8 /
// fp8_e4m3, bfloat16 for bfloat16 and float16 (with a warning: no f16 KV on the CPU); anything
// else is an error naming the choices.
Result<std::optional<tensor::DType>> ParseKvCacheDtype(const std::string& kv);

}  // namespace gemmad::cli
