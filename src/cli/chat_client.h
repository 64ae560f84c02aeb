// The client side of `gemmad chat` and `gemmad complete` (vLLM's `vllm chat` / `vllm complete`):
// the server to talk to and the model to name, and one streamed turn printed as it arrives —
// the reasoning between "<thinking>" lines, apart from the answer, then any tool calls.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cli/flag_parser.h"
#include "cli/flag_spec.h"
#include "cli/sse_client.h"

namespace gemmad::cli {

// The flags `gemmad chat` and `gemmad complete` share (vLLM's _add_query_options, plus -q and --stats).
inline constexpr FlagSpec kClientFlags[] = {
    {"url", FlagType::kString, "http://localhost:8000/v1", "URL of the running OpenAI-compatible API server."},
    {"model-name", FlagType::kString, "", "The model name to request (default: the first id of GET /v1/models)."},
    {"api-key", FlagType::kString, "", "API key sent as a bearer token (default: $OPENAI_API_KEY)."},
    {"quick", FlagType::kString, "", "Send one input, print the response and exit.", FlagEffect::kEffective, "", "-q"},
    {"stats", FlagType::kBool, "false", "Print TTFT and TPS statistics after each response."},
};

// Prints "gemmad <command>: error: <message>" and returns `code`.
int ClientError(const char* command, int code, const std::string& message);

struct ClientTarget {
  std::string url;      // the API base, e.g. http://localhost:8000/v1 (no trailing slash)
  std::string api_key;  // --api-key, else $OPENAI_API_KEY, else none
  std::string model;    // --model-name, else the first id of GET <url>/models
};

// Resolves the model when `model_name` is empty (errors: the server cannot be reached).
Result<ClientTarget> ResolveTarget(const std::string& url, const std::string& api_key, const std::string& model_name);
// ResolveTarget from the kClientFlags values, then vLLM's "Using model: <name>" line.
Result<ClientTarget> StartClient(const ParsedFlags& flags);

struct Turn {
  std::string content;
  std::string reasoning;
  std::vector<std::pair<std::string, std::string>> tool_calls;  // (name, arguments JSON text)
  int64_t completion_tokens = 0;  // from usage, when the server sends it
  double ttft_s = -1;             // first content or reasoning, from the request's start
  double total_s = 0;
};

// POSTs `body` (stream: true is set) to <url>/chat/completions and prints the turn to `out`.
Result<Turn> StreamChatTurn(SseConnection& conn, const ClientTarget& target, nlohmann::json body, std::FILE* out);
// The same for <url>/completions: prints choices[0].text as it arrives.
Result<Turn> StreamCompletionTurn(SseConnection& conn, const ClientTarget& target, nlohmann::json body,
                                  std::FILE* out);
// The session both commands run: with `quick`, one turn (exit code 0, or 1 when it failed);
// else `banner`, then a "> " prompt per stdin line until EOF (a failed turn is reported by
// `turn` and the next prompt comes; exit code 0).
int RunSession(const char* banner, const std::optional<std::string>& quick,
               const std::function<bool(const std::string& input)>& turn);

// A chat: the conversation (a system message first, when given), one streamed turn per input,
// each answer appended to the history. RunSession's exit codes.
struct ChatSessionOptions {
  std::optional<std::string> system_prompt;
  nlohmann::json base_body = nlohmann::json::object();  // chat_template_kwargs, tools, ...
  bool stats = false;
  std::optional<std::string> quick;
  // Content parts ({"type": "image_url", ...}, {"type": "input_audio", ...}) sent with the first
  // message, before its text.
  std::vector<nlohmann::json> media_parts;
};
int RunChatSession(const ClientTarget& target, const ChatSessionOptions& options);

// vLLM's --stats lines: "TTFT: <ms> ms" and "TPS:  <tokens/s> tokens/s (<n> tokens in <s>s)".
void PrintStats(const Turn& turn, std::FILE* out);

}  // namespace gemmad::cli
