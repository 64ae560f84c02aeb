// BuildServeOptions: flags + environment -> validated ServeOptions.
#include "cli/serve_options.h"

#include <cstdint>
#include <cstdlib>

#include <fmt/format.h>

#include "base/log.h"
#include "base/strings.h"
#include "cli/flag_values.h"
#include "cli/serve_flags.h"
#include "cli/speculative_flag.h"

namespace gemmad::cli {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

Status CheckUnsupported(const ParsedFlags& f) {
  for (const char* name : {"tensor-parallel-size", "pipeline-parallel-size", "data-parallel-size"}) {
    if (f.GetInt(name) < 1) return InvalidArgumentError(fmt::format("--{} must be at least 1", name));
    if (f.GetInt(name) > 1 && std::string_view(name) != "tensor-parallel-size") {
      return InvalidArgumentError(fmt::format(
          "--{} {}: multi-device parallelism is not implemented yet (only 1 is supported)", name, f.GetInt(name)));
    }
  }
  if (f.GetInt("nnodes") != 1 || f.GetInt("node-rank") != 0 || f.GetBool("headless")) {
    return InvalidArgumentError(fmt::format(
        "--nnodes {} / --node-rank {}{}: vLLM's multi-node rendezvous is not implemented; start the ranks across "
        "hosts with mpirun instead: mpirun -np N --host HOST1,HOST2 gemmad serve MODEL -tp N",
        f.GetInt("nnodes"), f.GetInt("node-rank"), f.GetBool("headless") ? " --headless" : ""));
  }
  if (!f.IsNull("config")) {
    return InvalidArgumentError("--config: YAML config files are not supported yet; pass the flags directly");
  }
  return OkStatus();
}

Result<ordered_json> ObjectOrNull(const ParsedFlags& f, const char* name) {
  const json& v = f.GetJson(name);
  if (v.is_null()) return ordered_json(nullptr);
  if (!v.is_object()) return InvalidArgumentError(fmt::format("--{}: expected a JSON object, got {}", name, v.dump()));
  return ordered_json::parse(v.dump());
}

Result<std::map<std::string, int64_t>> MmLimits(const ParsedFlags& f) {
  std::map<std::string, int64_t> out;
  const json& v = f.GetJson("limit-mm-per-prompt");
  if (v.is_null()) return out;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const json& item = it.value();
    // vLLM's rich form: {"image": {"count": 4, "width": 512, "height": 512}}.
    const json& count = item.is_object() && item.contains("count") ? item["count"] : item;
    int64_t n = -1;
    if (count.is_number_integer()) n = count.get<int64_t>();
    if (count.is_string()) n = ParseIntText(count.get<std::string>()).value_or(-1);
    if (n < 0) {
      return InvalidArgumentError(fmt::format(
          "--limit-mm-per-prompt: '{}' must be a non-negative integer count, got {}", it.key(), item.dump()));
    }
    out[it.key()] = n;
  }
  return out;
}

Result<int64_t> KvCacheBytes(const ParsedFlags& f, EnvLookup env) {
  if (!f.IsNull("kv-cache-memory-bytes")) {
    int64_t v = f.GetInt("kv-cache-memory-bytes");
    if (v <= 0) return InvalidArgumentError("--kv-cache-memory-bytes must be positive");
    return v;
  }
  std::optional<std::string> gib = env("VLLM_CPU_KVCACHE_SPACE");
  if (!gib || TrimAscii(*gib).empty()) return int64_t{4} << 30;
  auto v = ParseFloatText(*gib);
  if (!v.ok() || *v < 0) {
    return InvalidArgumentError(fmt::format("VLLM_CPU_KVCACHE_SPACE={}: expected a number of GiB", *gib));
  }
  if (*v == 0) return int64_t{4} << 30;  // vLLM: 0 means the default
  return static_cast<int64_t>(*v * static_cast<double>(int64_t{1} << 30));
}

// vLLM reads the CORS lists with json.loads: a JSON list of strings.
Result<std::vector<std::string>> StringListJson(const ParsedFlags& f, const char* name) {
  const json& v = f.GetJson(name);
  std::vector<std::string> out;
  bool ok = v.is_array();
  for (size_t i = 0; ok && i < v.size(); ++i) {
    ok = v[i].is_string();
    if (ok) out.push_back(v[i].get<std::string>());
  }
  if (!ok) {
    return InvalidArgumentError(
        fmt::format("--{}: expected a JSON list of strings (e.g. '[\"https://app.example\"]'), got {}", name, v.dump()));
  }
  return out;
}

// --uds, --root-path, CORS, TLS (uvicorn's ssl options) and h11's limits.
Status FillTransport(const ParsedFlags& f, ServeOptions& o) {
  o.uds = f.GetString("uds");
  o.root_path = f.GetString("root-path");
  GEMMAD_ASSIGN_OR_RETURN(o.allowed_origins, StringListJson(f, "allowed-origins"));
  GEMMAD_ASSIGN_OR_RETURN(o.allowed_methods, StringListJson(f, "allowed-methods"));
  GEMMAD_ASSIGN_OR_RETURN(o.allowed_headers, StringListJson(f, "allowed-headers"));
  o.allow_credentials = f.GetBool("allow-credentials");
  o.ssl_certfile = f.GetString("ssl-certfile");
  o.ssl_keyfile = f.GetString("ssl-keyfile");
  o.ssl_ca_certs = f.GetString("ssl-ca-certs");
  o.ssl_ciphers = f.GetString("ssl-ciphers");
  const int64_t reqs = f.GetInt("ssl-cert-reqs");
  if (reqs < 0 || reqs > 2) {
    return InvalidArgumentError(fmt::format("--ssl-cert-reqs {}: must be 0 (none), 1 (optional) or 2 (required)", reqs));
  }
  o.ssl_cert_reqs = static_cast<int>(reqs);
  if (!o.ssl_keyfile.empty() && o.ssl_certfile.empty()) {
    return InvalidArgumentError("--ssl-keyfile requires --ssl-certfile");
  }
  o.enable_ssl_refresh = f.GetBool("enable-ssl-refresh");
  o.h11_max_incomplete_event_size = f.GetInt("h11-max-incomplete-event-size");
  o.h11_max_header_count = f.GetInt("h11-max-header-count");
  if (o.h11_max_incomplete_event_size < 1 || o.h11_max_incomplete_event_size > INT32_MAX) {
    return InvalidArgumentError(fmt::format("--h11-max-incomplete-event-size {}: must be in [1, {}]",
                                            o.h11_max_incomplete_event_size, INT32_MAX));
  }
  if (o.h11_max_header_count < 1) {
    return InvalidArgumentError(fmt::format("--h11-max-header-count {}: must be at least 1", o.h11_max_header_count));
  }
  return OkStatus();
}

Status FillFrontend(const ParsedFlags& f, EnvLookup env, ServeOptions& o) {
  if (!f.IsNull("host")) o.host = f.GetString("host");
  o.port = static_cast<int>(f.GetInt("port"));
  if (f.GetInt("port") < 0 || f.GetInt("port") > 65535) return InvalidArgumentError("--port must be in [0, 65535]");
  o.api_keys = f.GetStringList("api-key");
  if (o.api_keys.empty()) {
    if (auto key = env("VLLM_API_KEY"); key && !key->empty()) o.api_keys.push_back(*key);
  }
  o.served_model_names = f.GetStringList("served-model-name");
  if (o.served_model_names.empty()) o.served_model_names.push_back(o.model);
  o.enable_request_id_headers = f.GetBool("enable-request-id-headers");
  o.response_role = f.GetString("response-role");
  o.chat_template = f.GetString("chat-template");
  o.chat_template_content_format = f.GetString("chat-template-content-format");
  GEMMAD_ASSIGN_OR_RETURN(o.default_chat_template_kwargs, ObjectOrNull(f, "default-chat-template-kwargs"));
  o.trust_request_chat_template = f.GetBool("trust-request-chat-template");
  o.enable_auto_tool_choice = f.GetBool("enable-auto-tool-choice");
  o.tool_call_parser = f.GetString("tool-call-parser");
  o.reasoning_parser = f.GetString("reasoning-parser");
  if (o.enable_auto_tool_choice && o.tool_call_parser.empty()) {
    return InvalidArgumentError("--enable-auto-tool-choice requires --tool-call-parser to be set");
  }
  o.exclude_tools_when_tool_choice_none = f.GetBool("exclude-tools-when-tool-choice-none");
  o.enable_prompt_tokens_details = f.GetBool("enable-prompt-tokens-details");
  o.enable_force_include_usage = f.GetBool("enable-force-include-usage");
  o.generation_config = f.GetString("generation-config");
  GEMMAD_ASSIGN_OR_RETURN(o.override_generation_config, ObjectOrNull(f, "override-generation-config"));
  o.max_logprobs = f.GetInt("max-logprobs");
  if (const json& so = f.GetJson("structured-outputs-config"); !so.is_null()) {
    GEMMAD_ASSIGN_OR_RETURN(o.structured_outputs_config, constrain::ParseStructuredOutputsConfig(so.dump()));
  }
  if (o.max_logprobs < -1) return InvalidArgumentError("--max-logprobs must be -1 (vocabulary size) or >= 0");
  o.enable_log_requests = f.GetBool("enable-log-requests");
  o.disable_log_stats = f.GetBool("disable-log-stats");
  if (!f.IsNull("max-log-len")) o.max_log_len = f.GetInt("max-log-len");
  o.log_level = f.GetString("log-level");
  o.shutdown_timeout_s = f.GetFloat("shutdown-timeout");
  if (o.shutdown_timeout_s < 0) return InvalidArgumentError("--shutdown-timeout must be >= 0");
  GEMMAD_ASSIGN_OR_RETURN(o.limit_mm_per_prompt, MmLimits(f));
  o.language_model_only = f.GetBool("language-model-only");
  GEMMAD_ASSIGN_OR_RETURN(o.mm_processor_kwargs, ObjectOrNull(f, "mm-processor-kwargs"));
  o.allowed_local_media_path = f.GetString("allowed-local-media-path");
  o.allowed_media_domains = f.GetStringList("allowed-media-domains");
  o.allow_private_media_addresses = f.GetBool("allow-private-media-addresses");
  o.max_media_bytes = f.GetInt("max-media-bytes");
  if (o.max_media_bytes <= 0) return InvalidArgumentError("--max-media-bytes must be positive");
  // vLLM's media fetch timeouts (seconds): VLLM_IMAGE_FETCH_TIMEOUT (5), VLLM_VIDEO_FETCH_TIMEOUT (30),
  // VLLM_AUDIO_FETCH_TIMEOUT (10).
  for (auto [name, field] : {std::pair{"VLLM_IMAGE_FETCH_TIMEOUT", &o.image_fetch_timeout_s},
                             std::pair{"VLLM_VIDEO_FETCH_TIMEOUT", &o.video_fetch_timeout_s},
                             std::pair{"VLLM_AUDIO_FETCH_TIMEOUT", &o.audio_fetch_timeout_s}}) {
    std::optional<std::string> v = env(name);
    if (!v || TrimAscii(*v).empty()) continue;
    auto seconds = ParseFloatText(TrimAscii(*v));
    if (!seconds.ok() || *seconds <= 0) return InvalidArgumentError(fmt::format("{} must be a positive number of seconds", name));
    *field = *seconds;
  }
  // vLLM's upload limit of the transcription routes, in MB (25).
  if (std::optional<std::string> v = env("VLLM_MAX_AUDIO_CLIP_FILESIZE_MB"); v && !TrimAscii(*v).empty()) {
    auto mb = ParseFloatText(TrimAscii(*v));
    if (!mb.ok() || *mb <= 0) return InvalidArgumentError("VLLM_MAX_AUDIO_CLIP_FILESIZE_MB must be a positive number");
    o.max_audio_clip_filesize_mb = *mb;
  }
  return OkStatus();
}

Status FillModelAndEngine(const ParsedFlags& f, EnvLookup env, ServeOptions& o) {
  if (!f.IsNull("revision")) o.revision = f.GetString("revision");
  o.tokenizer = f.GetString("tokenizer");
  o.mmproj = f.GetString("mmproj");
  o.no_mmproj = f.GetBool("no-mmproj");
  if (o.no_mmproj && !o.mmproj.empty()) return InvalidArgumentError("--mmproj and --no-mmproj exclude each other");
  o.tokenizer_revision = f.GetString("tokenizer-revision");
  o.hf_token = f.GetString("hf-token");
  o.download_dir = f.GetString("download-dir");
  o.dtype = f.GetString("dtype");
  if (o.dtype == "bfloat16") {
    o.compute_dtype = tensor::DType::kBF16;
  } else if (o.dtype == "float" || o.dtype == "float32") {
    o.compute_dtype = tensor::DType::kF32;
  } else if (o.dtype == "half" || o.dtype == "float16") {
    // No f16 KV path on the CPU: cast to bf16 with a warning, as vLLM's CPU platform does where it
    // lacks fp16 support (it casts an fp16 model to bf16 for its fp8 KV cache).
    GEMMAD_LOG_WARNING("--dtype {}: the CPU backend has no float16 KV cache; using bfloat16 instead", o.dtype);
    o.compute_dtype = tensor::DType::kBF16;
  }
  GEMMAD_ASSIGN_OR_RETURN(o.kv_cache_dtype, ParseKvCacheDtype(f.GetString("kv-cache-dtype")));
  o.calculate_kv_scales = f.GetBool("calculate-kv-scales");
  if (!f.IsNull("speculative-config")) {
    GEMMAD_ASSIGN_OR_RETURN(o.speculative_config, ParseSpeculativeFlag(f.GetJson("speculative-config")));
  }
  if (!f.IsNull("quantization") && f.GetString("quantization") == "compressed-tensors") {
    o.checkpoint_quantization = "compressed-tensors";  // the checkpoint's own (vLLM's method name)
  } else if (!f.IsNull("quantization")) {
    auto q = model::gemma4::ParseWeightQuantization(f.GetString("quantization"));
    if (!q.ok()) return q.status().WithPrefix("--quantization");
    o.quantization = *q;
  }
  if (!f.IsNull("max-model-len")) {
    int64_t v = f.GetInt("max-model-len");
    if (v == 0 || v < -1) return InvalidArgumentError("--max-model-len must be positive, or -1/auto");
    o.max_model_len = v;
  }
  int64_t seed = f.GetInt("seed");
  if (seed < 0) return InvalidArgumentError("--seed must be non-negative");
  o.seed = static_cast<uint64_t>(seed);
  o.max_num_seqs = f.GetInt("max-num-seqs");
  if (o.max_num_seqs < 1) return InvalidArgumentError("--max-num-seqs must be at least 1");
  o.max_num_batched_tokens = f.GetInt("max-num-batched-tokens");
  if (o.max_num_batched_tokens < 1) return InvalidArgumentError("--max-num-batched-tokens must be at least 1");
  o.enable_prefix_caching = f.GetBool("enable-prefix-caching");
  o.block_size = f.GetInt("block-size");
  if (o.block_size < 1) return InvalidArgumentError("--block-size must be at least 1");
  GEMMAD_ASSIGN_OR_RETURN(o.kv_cache_bytes, KvCacheBytes(f, env));
  if (auto t = env("VLLM_ENGINE_ITERATION_TIMEOUT_S"); t && !TrimAscii(*t).empty()) {
    auto v = ParseFloatText(*t);
    if (!v.ok() || *v <= 0) {
      return InvalidArgumentError(fmt::format("VLLM_ENGINE_ITERATION_TIMEOUT_S={}: expected positive seconds", *t));
    }
    o.engine_iteration_timeout_s = *v;
  }
  if (auto v = env("VLLM_ALLOW_LONG_MAX_MODEL_LEN")) {
    std::string l = ToLowerAscii(std::string(TrimAscii(*v)));
    o.allow_long_max_model_len = l == "1" || l == "true";
  }
  return OkStatus();
}

}  // namespace

std::optional<std::string> ProcessEnv(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

static Status FillLimits(const ParsedFlags& f, ServeOptions& o) {
  auto positive = [&](const char* name) -> Result<int64_t> {
    int64_t v = f.GetInt(name);
    if (v <= 0) return InvalidArgumentError(fmt::format("--{} must be > 0, got {}", name, v));
    return v;
  };
  api::RequestLimits& l = o.request_limits;
  GEMMAD_ASSIGN_OR_RETURN(int64_t body, positive("max-request-body-bytes"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t depth, positive("max-request-json-depth"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t tools, positive("max-tools"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t stops, positive("max-stop-strings"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t sequences, positive("max-sequences-per-request"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t stop_bytes, positive("max-stop-string-bytes"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t compile_bytes, positive("structured-outputs-max-compile-bytes"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t nesting, positive("structured-outputs-max-nesting"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t steps, positive("max-template-steps"));
  GEMMAD_ASSIGN_OR_RETURN(int64_t out_bytes, positive("max-template-output-bytes"));
  if (depth > 100000 || nesting > 100000) {
    return InvalidArgumentError("--max-request-json-depth and --structured-outputs-max-nesting must be <= 100000");
  }
  o.max_concurrent_compiles = f.GetInt("structured-outputs-max-concurrent-compiles");
  if (o.max_concurrent_compiles < 0) {
    return InvalidArgumentError("--structured-outputs-max-concurrent-compiles must be >= 0");
  }
  o.request_body_timeout_s = f.GetFloat("request-body-timeout");
  if (!(o.request_body_timeout_s > 0)) return InvalidArgumentError("--request-body-timeout must be > 0");
  const double timeout = f.GetFloat("structured-outputs-compile-timeout");
  if (!(timeout > 0)) return InvalidArgumentError("--structured-outputs-compile-timeout must be > 0");
  o.max_request_body_bytes = static_cast<size_t>(body);
  l.max_json_depth = static_cast<int>(depth);
  l.max_tools = static_cast<size_t>(tools);
  l.max_stop_strings = static_cast<size_t>(stops);
  l.max_sequences = static_cast<size_t>(sequences);
  l.max_stop_string_bytes = static_cast<size_t>(stop_bytes);
  l.compile.timeout_s = timeout;
  l.compile.max_bytes = static_cast<size_t>(compile_bytes);
  l.compile.max_nesting = static_cast<int>(nesting);
  o.max_template_steps = static_cast<uint64_t>(steps);
  o.max_template_output_bytes = static_cast<size_t>(out_bytes);
  return OkStatus();
}

Result<ServeOptions> BuildServeOptions(const ParsedFlags& flags, EnvLookup env) {
  ServeOptions o;
  std::string positional = flags.positional.empty() ? "" : flags.positional[0];
  std::string named = flags.GetString("model");
  if (!positional.empty() && !named.empty() && positional != named) {
    return InvalidArgumentError(fmt::format(
        "the model is given twice: positional '{}' and --model '{}'", positional, named));
  }
  o.model = positional.empty() ? named : positional;
  o.tensor_parallel_size = static_cast<int>(flags.GetInt("tensor-parallel-size"));
  if (o.model.empty()) return InvalidArgumentError("no model given: gemmad serve MODEL [flags] (or --model MODEL)");
  GEMMAD_RETURN_IF_ERROR(CheckUnsupported(flags));
  GEMMAD_RETURN_IF_ERROR(FillFrontend(flags, env, o));
  GEMMAD_RETURN_IF_ERROR(FillTransport(flags, o));
  GEMMAD_RETURN_IF_ERROR(FillModelAndEngine(flags, env, o));
  GEMMAD_RETURN_IF_ERROR(FillLimits(flags, o));
  for (const FlagSpec& spec : ServeFlagTable()) {
    if (spec.effect == FlagEffect::kAccepted && flags.IsSet(spec.name)) {
      o.ineffective_flags_set.emplace_back(spec.name);
    }
  }
  return o;
}

Result<std::optional<tensor::DType>> ParseKvCacheDtype(const std::string& kv) {
  if (kv == "auto") return std::optional<tensor::DType>();
  if (kv == "fp8" || kv == "fp8_e4m3") return std::optional<tensor::DType>(tensor::DType::kF8E4M3);
  if (kv == "bfloat16") return std::optional<tensor::DType>(tensor::DType::kBF16);
  if (kv == "float16") {
    GEMMAD_LOG_WARNING("--kv-cache-dtype float16: the CPU backend has no float16 KV cache; using bfloat16 instead");
    return std::optional<tensor::DType>(tensor::DType::kBF16);
  }
  return InvalidArgumentError(
      fmt::format("--kv-cache-dtype {}: not supported on the CPU backend (auto, bfloat16, float16, fp8, fp8_e4m3)", kv));
}

}  // namespace gemmad::cli
