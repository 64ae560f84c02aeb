// `gemmad serve` flags: HTTP server, OpenAI API behaviour, chat template, parsers, logging.
#include "cli/serve_flags.h"

namespace gemmad::cli {
namespace {

using enum FlagType;
constexpr FlagEffect kYes = FlagEffect::kEffective;
constexpr FlagEffect kNotYet = FlagEffect::kAccepted;
constexpr FlagEffect kOnlyDefault = FlagEffect::kUnsupported;

constexpr FlagSpec kFlags[] = {
    {"host", kString, "(all interfaces)", "Address to bind.", kYes, {}, {}, "e2e test_host"},
    {"port", kInt, "8000", "TCP port to listen on.", kYes, {}, {}, "e2e (every module)"},
    {"uds", kString, "", "Unix domain socket path; host and port are then ignored.", kYes, {}, {},
     "unit TransportTest, e2e test_uds"},
    {"api-key", kStringList, "(env VLLM_API_KEY)",
     "Require `Authorization: Bearer <key>` on /v1 routes; several keys may be given.", kYes, {}, {},
     "unit RouterTest, e2e test_api_key_flag test_api_key_env"},
    {"served-model-name", kStringList, "(the model argument)",
     "Public model name(s); responses report the first.", kYes, {}, {}, "e2e test_models"},
    {"root-path", kString, "",
     "Root path behind a path-based proxy: paths with and without the prefix are served (FastAPI root_path).",
     kYes, {}, {}, "unit RouterTest, e2e test_root_path"},
    {"allowed-origins", kJson, "[\"*\"]", "CORS allowed origins (JSON list).", kYes, {}, {},
     "unit CorsPolicyTest, e2e test_cors_defaults test_cors_restricted_with_credentials"},
    {"allowed-methods", kJson, "[\"*\"]", "CORS allowed methods (JSON list).", kYes, {}, {},
     "unit CorsPolicyTest, e2e test_cors_restricted_with_credentials"},
    {"allowed-headers", kJson, "[\"*\"]", "CORS allowed headers (JSON list).", kYes, {}, {},
     "unit CorsPolicyTest, e2e test_cors_restricted_with_credentials"},
    {"allow-credentials", kBool, "false", "CORS allow credentials.", kYes, {}, {},
     "unit CorsPolicyTest, e2e test_cors_restricted_with_credentials"},
    {"ssl-keyfile", kString, "", "TLS private key file (PEM, unencrypted).", kYes, {}, {},
     "unit TransportTest, e2e test_tls_curl_and_openai_client"},
    {"ssl-certfile", kString, "", "TLS certificate chain file (PEM); turns TLS on.", kYes, {}, {},
     "unit TransportTest, e2e test_tls_curl_and_openai_client"},
    {"ssl-ca-certs", kString, "", "CA certificates that client certificates are verified against.", kYes, {},
     {}, "unit TransportTest, e2e test_tls_client_certificate_required"},
    {"ssl-cert-reqs", kInt, "0", "Client certificate: 0 none, 1 optional, 2 required (Python's ssl.CERT_*).",
     kYes, {}, {}, "unit TransportTest, e2e test_tls_client_certificate_required"},
    {"ssl-ciphers", kString, "", "OpenSSL cipher list for TLS 1.2 and below (default: OpenSSL's).", kYes, {}, {},
     "e2e test_tls_curl_and_openai_client"},
    {"enable-ssl-refresh", kBool, "false",
     "Reload the TLS certificate, key and CA files for new connections after they change (checked at most once "
     "a second; a failed reload keeps the old ones and logs a warning).", kYes, {}, {},
     "unit TlsRefreshTest, e2e test_tls_refresh"},
    {"h11-max-incomplete-event-size", kInt, "4194304",
     "Largest request line plus headers, in bytes; a larger request gets uvicorn's 400 and a close.", kYes, {}, {},
     "unit HeaderLimitsTest, e2e test_h11_limits"},
    {"h11-max-header-count", kInt, "256", "Most header fields in a request; more get uvicorn's 400 and a close.",
     kYes, {}, {}, "unit HeaderLimitsTest, e2e test_h11_limits"},
    {"disable-fastapi-docs", kBool, "false", "Disable /docs, /openapi.json (never served by gemmad).", kNotYet},
    {"uvicorn-log-level", kString, "info", "Web server log level.", kNotYet,
     "critical|error|warning|info|debug|trace"},
    {"disable-uvicorn-access-log", kBool, "false", "Disable the access log.", kNotYet},
    {"enable-request-id-headers", kBool, "false", "Echo X-Request-Id on every response.", kYes, {}, {},
     "unit RouterTest"},
    {"response-role", kString, "assistant", "Role name of generated chat messages.", kYes, {}, {},
     "e2e test_response_role"},
    {"chat-template", kString, "(the checkpoint's)", "Chat template file or inline template.", kYes, {}, {},
     "e2e test_seeds"},
    {"chat-template-content-format", kString, "auto", "How message content reaches the template.", kYes,
     "auto|string|openai", {}, "unit NormalizeMessages, e2e test_chat_template_content_format"},
    {"default-chat-template-kwargs", kJson, "", "Default chat template variables (JSON object).", kYes, {}, {},
     "e2e test_default_chat_template_kwargs"},
    {"trust-request-chat-template", kBool, "false", "Allow `chat_template` in requests.", kYes, {}, {},
     "e2e test_errors test_hostile_input"},
    {"enable-auto-tool-choice", kBool, "false", "Let the model decide tool calls (tool_choice auto).", kYes, {},
     {}, "unit ServeOptionsTest, e2e test_tool_choice_auto_needs_enable_auto_tool_choice"},
    {"tool-call-parser", kString, "", "Tool call parser.", kYes, "gemma4", {},
     "e2e test_tool_parsing test_tool_choice_auto_needs_enable_auto_tool_choice"},
    {"reasoning-parser", kString, "", "Reasoning parser.", kYes, "gemma4", {},
     "e2e test_tool_parsing test_thinking_on_constraint_starts_after_the_channel"},
    {"exclude-tools-when-tool-choice-none", kBool, "false",
     "Drop tool declarations from the prompt when tool_choice is none.", kYes, {}, {},
     "e2e test_exclude_tools_when_tool_choice_none"},
    {"enable-prompt-tokens-details", kBool, "false", "Report usage.prompt_tokens_details.cached_tokens.", kYes, {},
     {}, "e2e test_enable_prompt_tokens_details"},
    {"enable-force-include-usage", kBool, "false", "Send a usage chunk at the end of every stream.", kYes, {},
     {}, "e2e test_enable_force_include_usage"},
    {"enable-server-load-tracking", kBool, "false", "Track in-flight requests for GET /load.", kNotYet},
    {"generation-config", kString, "auto",
     "Sampling defaults: auto (the model's generation_config.json), vllm (none) or a folder.", kYes, {}, {},
     "unit GenerationDefaultsTest, e2e test_generation_config_and_override"},
    {"override-generation-config", kJson, "", "JSON overriding generation-config defaults.", kYes, {}, {},
     "unit GenerationDefaultsTest, e2e test_generation_config_and_override"},
    {"max-logprobs", kInt, "20", "Largest logprobs/top_logprobs a request may ask for (-1: vocab size).", kYes,
     {}, {}, "e2e test_max_logprobs test_errors"},
    {"structured-outputs-config", kJson, "",
     "Structured outputs options: backend (every vLLM name maps to gemmad's engine; all but guidance close objects "
     "without additionalProperties, as xgrammar), enable_in_reasoning, disable_any_whitespace, "
     "disable_additional_properties.", kYes, {}, {}, "e2e test_structured_outputs"},
    {"enable-log-requests", kBool, "false", "Log each request's id, prompt length and parameters.", kYes, {}, {},
     "e2e test_request_logging_and_log_level"},
    {"disable-log-requests", kBool, "true", "[deprecated] Opposite of --enable-log-requests.", kNotYet},
    {"disable-log-stats", kBool, "false", "Disable the periodic throughput log line.", kYes, {}, {},
     "e2e test_disable_log_stats"},
    {"max-log-len", kInt, "", "Characters of prompt shown in request logs.", kYes, {}, {},
     "e2e test_request_logging_and_log_level"},
    {"log-level", kString, "info", "gemmad log level (also env GEMMAD_LOG_LEVEL).", kYes,
     "debug|info|warning|error|critical", {}, "e2e test_request_logging_and_log_level"},
    {"shutdown-timeout", kFloat, "30",
     "Seconds in-flight requests may run after SIGTERM before they are aborted (gemmad flag).", kYes, {}, {},
     "e2e test_sigterm_drains_streams_and_refuses_new_connections test_sigterm_grace_period_expiry_aborts_streams"},
    {"config", kString, "", "YAML file with flags (not implemented: an error).", kOnlyDefault},
};

}  // namespace

FlagTable ServeFrontendFlags() { return kFlags; }

}  // namespace gemmad::cli
