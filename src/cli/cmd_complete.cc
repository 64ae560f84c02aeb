// `gemmad complete`: vLLM's `vllm complete` — text completions from a running server, streamed.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/chat_client.h"
#include "cli/flag_help.h"
#include "cli/flag_parser.h"
#include "cli/subcommand.h"

namespace gemmad::cli {
namespace {

constexpr const char* kUsage = "gemmad complete [options]";
constexpr const char* kDescription = "Generate text completions based on the given prompt via the running API server.";

using enum FlagType;
constexpr FlagSpec kCompleteFlags[] = {
    {"max-tokens", kInt, "", "Maximum number of tokens to generate per output sequence."},
};
constexpr auto kFlags = JoinFlags(kClientFlags, kCompleteFlags);

int Fail(int code, const std::string& message) { return ClientError("complete", code, message); }

int RunComplete(const std::vector<std::string>& args) {
  auto flags = ParseFlags(args, kFlags, /*max_positional=*/0);
  if (!flags.ok()) return Fail(2, flags.status().message());
  const ParsedFlags& f = *flags;
  if (f.help_requested) {
    std::fputs(FormatHelp(kUsage, kDescription, {{"Complete", kFlags}}).c_str(), stdout);
    return 0;
  }
  nlohmann::json base = nlohmann::json::object();
  if (!f.IsNull("max-tokens")) {
    if (f.GetInt("max-tokens") < 1) return Fail(2, "--max-tokens must be at least 1");
    base["max_tokens"] = f.GetInt("max-tokens");
  }
  auto target = StartClient(f);
  if (!target.ok()) return Fail(1, target.status().message());
  SseConnection conn(target->api_key, /*timeout_s=*/0, "gemmad-complete");
  auto complete = [&](const std::string& prompt) -> bool {
    nlohmann::json body = base;
    body["prompt"] = prompt;
    auto t = StreamCompletionTurn(conn, *target, std::move(body), stdout);
    if (!t.ok()) {
      Fail(0, t.status().message());
      return false;
    }
    if (f.GetBool("stats")) PrintStats(*t, stdout);
    return true;
  };
  std::optional<std::string> quick;
  if (f.IsSet("quick")) quick = f.GetString("quick");
  return RunSession("Please enter prompt to complete:", quick, complete);
}

}  // namespace

extern const Subcommand kCmd_complete;
const Subcommand kCmd_complete{"complete", "text completions from a running server (as `vllm complete`)",
                               &RunComplete};

}  // namespace gemmad::cli
