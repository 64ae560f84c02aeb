// StartServing and the graceful shutdown (see serving.h).
#include "cli/serving.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <thread>

#include "api/generation_defaults.h"
#include "api/responses_store.h"
#include "api/structured_output.h"
#include "base/log.h"
#include "cli/serve_media.h"
#include "cli/speculative_flag.h"
#include "cli/tensor_parallel.h"
#include "cli/test_seams.h"
#include "cli/version.h"

namespace gemmad::cli {
namespace {

api::ServingContext MakeContext(const ServeOptions& o, const ServeModel& m, engine::EngineClient& engine,
                                api::GenerationDefaults defaults, tmpl::ContentFormat format) {
  api::ServingContext ctx;
  api::ServingOptions& s = ctx.options;
  s.served_model_names = o.served_model_names;
  s.model_root = o.model;
  s.response_role = o.response_role;
  s.enable_prompt_tokens_details = o.enable_prompt_tokens_details;
  s.enable_force_include_usage = o.enable_force_include_usage;
  s.trust_request_chat_template = o.trust_request_chat_template;
  s.enable_auto_tool_choice = o.enable_auto_tool_choice;
  s.exclude_tools_when_tool_choice_none = o.exclude_tools_when_tool_choice_none;
  s.tool_call_parser = o.tool_call_parser;
  s.reasoning_parser = o.reasoning_parser;
  s.enable_log_requests = o.enable_log_requests;
  s.max_log_len = o.max_log_len;
  s.created_unix = static_cast<int64_t>(std::time(nullptr));
  ctx.engine = &engine;
  ctx.tokenizer = m.tokenizer.get();
  ctx.chat_template = m.chat_template;
  ctx.generation_defaults = std::move(defaults);
  ctx.render_options.default_kwargs = o.default_chat_template_kwargs;
  ctx.render_options.template_options.limits.max_steps = o.max_template_steps;
  ctx.render_options.template_options.limits.max_output_bytes = o.max_template_output_bytes;
  ctx.limits = o.request_limits;
  ctx.responses_store = api::ResponsesStore::FromEnvironment();
  ctx.render_options.content_format = format;
  const tokenizer::Tokenizer& tok = *m.tokenizer;
  ctx.render_options.special_tokens.clear();
  for (auto [name, id] : {std::pair{"bos_token", tok.bos_id()}, std::pair{"eos_token", tok.eos_id()},
                          std::pair{"pad_token", tok.pad_id()}, std::pair{"unk_token", tok.unk_id()}}) {
    if (id) ctx.render_options.special_tokens.emplace_back(name, std::string(tok.IdToToken(*id)));
  }
  // A complete constraint allows the ids the engine stops on: the EOS and the generation
  // config's EOS set (Gemma 4: <eos>, <turn|>, <|tool_response>).
  std::vector<int32_t> stops = ctx.generation_defaults.eos_token_ids;
  if (auto eos = engine.limits().eos_token_id; eos && std::find(stops.begin(), stops.end(), *eos) == stops.end()) {
    stops.insert(stops.begin(), *eos);
  }
  const size_t compiles = o.max_concurrent_compiles > 0
                              ? static_cast<size_t>(o.max_concurrent_compiles)
                              : std::max<size_t>(1, std::thread::hardware_concurrency() / 2);
  ctx.structured_outputs = std::make_shared<api::StructuredOutputs>(&tok, engine.limits().vocab_size, std::move(stops),
                                                                    o.structured_outputs_config, compiles);
  return ctx;
}

Result<ModelEngine> StartEngine(const ServeOptions& o, const ServeModel& m,
                                std::shared_ptr<dist::Communicator> communicator) {
  ModelEngineOptions e;
  e.model_dir = m.model_dir;
  e.source = m.source;
  e.kv_cache_bytes = o.kv_cache_bytes;
  if (o.max_model_len) e.max_model_len = *o.max_model_len;  // -1: auto (largest that fits)
  e.block_size = static_cast<int32_t>(o.block_size);
  e.max_num_seqs = static_cast<int32_t>(o.max_num_seqs);
  e.max_num_batched_tokens = static_cast<int32_t>(o.max_num_batched_tokens);
  e.enable_prefix_caching = o.enable_prefix_caching;
  e.eos_token_id = m.tokenizer->eos_id();
  e.max_logprobs = static_cast<int32_t>(o.max_logprobs);
  e.seed = o.seed;
  e.num_threads = communicator ? ThreadsPerRank() : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  e.communicator = std::move(communicator);
  e.quantization = o.quantization;
  e.checkpoint_quantization = o.checkpoint_quantization;
  e.dtype = o.compute_dtype;
  e.kv_cache_dtype = o.kv_cache_dtype;
  e.calculate_kv_scales = o.calculate_kv_scales;
  e.iteration_timeout_s = o.engine_iteration_timeout_s;
  e.allow_long_max_model_len = o.allow_long_max_model_len;
  e.language_model_only = o.language_model_only;
  if (o.speculative_config) {
    GEMMAD_RETURN_IF_ERROR(ApplySpeculativeConfig(*o.speculative_config, ServeHubSettings(o), &e));
  }
  e.wrap_runner = InstalledTestSeams().wrap_runner;
  e.backend = InstalledTestSeams().backend;
  auto engine = CreateModelEngine(e);
  if (!engine.ok() && engine.status().code() == StatusCode::kResourceExhausted) {
    return InvalidArgumentError(engine.status().message());  // a startup error: exit code 2
  }
  return engine;
}

}  // namespace

void Serving::Shutdown(double grace_s) {
  stats.reset();
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(static_cast<int64_t>(grace_s * 1000));
  engine::Engine& e = *engine.engine;
  http->StopAccepting();
  e.BeginDrain();
  if (!http->WaitIdle(deadline)) {
    GEMMAD_LOG_WARNING("shutdown: requests still running after {} s; aborting them", grace_s);
    e.Shutdown(std::chrono::milliseconds(0));  // remaining streams end with finish_reason "abort"
    http->WaitIdle(std::chrono::steady_clock::now() + std::chrono::seconds(10));
  }
  http->Stop();
  e.Shutdown(std::chrono::milliseconds(0));
}

std::unique_ptr<Serving> StartServing(const ServeOptions& o, StartFailure* failure,
                                      std::shared_ptr<dist::Communicator> communicator) {
  auto fail = [failure](Status status, bool usage) -> std::unique_ptr<Serving> {
    *failure = StartFailure{std::move(status), usage};
    return nullptr;
  };
  auto format = tmpl::ParseContentFormat(o.chat_template_content_format);
  if (!format.ok()) return fail(format.status(), true);
  auto s = std::make_unique<Serving>();
  auto model = LoadServeModel(o);
  if (!model.ok()) return fail(model.status(), true);
  s->model = std::move(*model);
  auto defaults = api::LoadGenerationDefaults(s->model.model_dir, o.generation_config, o.override_generation_config);
  if (!defaults.ok()) return fail(defaults.status(), true);
  if (defaults->has_sampling_defaults()) {
    GEMMAD_LOG_WARNING("Default sampling parameters have been overridden by the model's Hugging Face generation "
                       "config recommended from the model creator. If this is not intended, please relaunch with "
                       "`--generation-config vllm`.");
  }
  auto engine = StartEngine(o, s->model, std::move(communicator));
  if (!engine.ok()) return fail(engine.status(), false);
  s->engine = std::move(*engine);
  auto media = MakeMediaServing(o, s->engine.engine->limits(), s->engine.vision, s->engine.audio);
  if (!media.ok()) return fail(media.status(), true);
  s->ctx = std::make_unique<api::ServingContext>(
      MakeContext(o, s->model, *s->engine.engine, std::move(*defaults), *format));
  s->ctx->media = std::move(*media);
  GEMMAD_LOG_INFO("max_model_len {}, KV cache {:.1f} MiB", s->engine.engine->limits().max_model_len,
                  static_cast<double>(s->engine.kv_cache_bytes) / (1024.0 * 1024.0));
  server::ApiServerOptions so;
  so.http.host = o.host;
  so.http.port = o.port;
  so.http.max_body_bytes = o.max_request_body_bytes;
  so.http.body_timeout = std::chrono::milliseconds(static_cast<int64_t>(o.request_body_timeout_s * 1000));
  so.http.uds = o.uds;
  so.http.tls = {o.ssl_certfile, o.ssl_keyfile, o.ssl_ca_certs, o.ssl_cert_reqs, o.ssl_ciphers};
  so.http.tls.refresh = o.enable_ssl_refresh;
  so.http.max_header_bytes = static_cast<size_t>(o.h11_max_incomplete_event_size);
  so.http.max_header_count = static_cast<size_t>(o.h11_max_header_count);
  so.router.root_path = o.root_path;
  so.router.cors = {o.allowed_origins, o.allowed_methods, o.allowed_headers, o.allow_credentials};
  so.router.api_keys = o.api_keys;
  so.router.enable_request_id_headers = o.enable_request_id_headers;
  so.version = std::string(Version());
  auto http = server::ApiServer::Start(so, *s->ctx);
  if (!http.ok()) return fail(UnavailableError(http.status().message()), false);
  s->http = std::move(*http);
  if (!o.disable_log_stats) s->stats = std::make_unique<StatsLogger>(*s->engine.engine, std::chrono::seconds(10));
  return s;
}

}  // namespace gemmad::cli
