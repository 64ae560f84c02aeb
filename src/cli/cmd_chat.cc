// `gemmad chat`: vLLM's `vllm chat` — a conversation with a running server, streamed. gemmad
// also shows the model's reasoning apart from its answer (--enable-thinking asks for it) and the
// tool calls it makes (--tools).
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/files.h"
#include "cli/chat_client.h"
#include "cli/flag_help.h"
#include "cli/flag_parser.h"
#include "cli/subcommand.h"

namespace gemmad::cli {
namespace {

constexpr const char* kUsage = "gemmad chat [options]";
constexpr const char* kDescription = "Generate chat completions via the running API server.";

using enum FlagType;
constexpr FlagSpec kChatFlags[] = {
    {"system-prompt", kString, "", "A system message placed before the conversation."},
    {"enable-thinking", kBool, "false", "gemmad: ask the model to think first (chat_template_kwargs); the "
                                         "reasoning is printed between <thinking> lines, apart from the answer."},
    {"tools", kString, "", "gemmad: a JSON file with a list of OpenAI tools to offer; calls are printed as "
                            "\"[tool call] name {arguments}\"."},
};
constexpr auto kFlags = JoinFlags(kClientFlags, kChatFlags);

int Fail(int code, const std::string& message) { return ClientError("chat", code, message); }

int RunChat(const std::vector<std::string>& args) {
  auto flags = ParseFlags(args, kFlags, /*max_positional=*/0);
  if (!flags.ok()) return Fail(2, flags.status().message());
  const ParsedFlags& f = *flags;
  if (f.help_requested) {
    std::fputs(FormatHelp(kUsage, kDescription, {{"Chat", kFlags}}).c_str(), stdout);
    return 0;
  }
  nlohmann::json base = nlohmann::json::object();
  if (f.GetBool("enable-thinking")) base["chat_template_kwargs"] = {{"enable_thinking", true}};
  if (const std::string path = f.GetString("tools"); !path.empty()) {
    auto text = ReadFileToString(path);
    if (!text.ok()) return Fail(2, "--tools: " + text.status().message());
    nlohmann::json tools = nlohmann::json::parse(*text, nullptr, false);
    if (!tools.is_array()) return Fail(2, "--tools: " + path + ": expected a JSON list of tools");
    base["tools"] = std::move(tools);
  }
  auto target = StartClient(f);
  if (!target.ok()) return Fail(1, target.status().message());
  SseConnection conn(target->api_key, /*timeout_s=*/0, "gemmad-chat");
  nlohmann::json conversation = nlohmann::json::array();
  if (f.IsSet("system-prompt")) conversation.push_back({{"role", "system"}, {"content", f.GetString("system-prompt")}});
  auto turn = [&](const std::string& message) -> bool {
    conversation.push_back({{"role", "user"}, {"content", message}});
    nlohmann::json body = base;
    body["messages"] = conversation;
    auto t = StreamChatTurn(conn, *target, std::move(body), stdout);
    if (!t.ok()) {
      conversation.erase(conversation.end() - 1);  // the failed message is not part of the history
      Fail(0, t.status().message());
      return false;
    }
    conversation.push_back({{"role", "assistant"}, {"content", t->content}});
    if (f.GetBool("stats")) PrintStats(*t, stdout);
    return true;
  };
  std::optional<std::string> quick;
  if (f.IsSet("quick")) quick = f.GetString("quick");
  return RunSession("Please enter a message for the chat model:", quick, turn);
}

}  // namespace

extern const Subcommand kCmd_chat;
const Subcommand kCmd_chat{"chat", "chat with a running server (as `vllm chat`)", &RunChat};

}  // namespace gemmad::cli
