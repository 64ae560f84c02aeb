// `gemmad run MODEL [serve flags] [--system-prompt S] [--enable-thinking]`: Ollama's `ollama run`
// — load a model in this process and chat with it in the terminal, no separate server. It starts
// the same serving stack as `gemmad serve` on a loopback port the OS picks (so the template,
// parsers and limits are the server's) and talks to it as `gemmad chat` does.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "base/log.h"
#include "cli/chat_client.h"
#include "cli/flag_help.h"
#include "cli/flag_parser.h"
#include "cli/serve_flags.h"
#include "cli/serve_options.h"
#include "cli/serving.h"
#include "cli/subcommand.h"

namespace gemmad::cli {
namespace {

constexpr const char* kUsage = "gemmad run MODEL [serve options] [--system-prompt S] [--enable-thinking]";
constexpr const char* kDescription =
    "Load MODEL in this process and chat with it in the terminal (no separate server). Takes the\n"
    "options of `gemmad serve` (the server listens on a loopback port only), plus --system-prompt and\n"
    "--enable-thinking as `gemmad chat` has them.";

int Fail(int code, const std::string& message) { return ClientError("run", code, message); }

// Takes `--name VALUE` / `--name=VALUE` (or a bare boolean `--name`) out of `args`.
std::optional<std::string> TakeFlag(std::vector<std::string>* args, const std::string& name, bool boolean) {
  for (size_t i = 0; i < args->size(); ++i) {
    const std::string& a = (*args)[i];
    if (a == "--" + name) {
      if (boolean) {
        args->erase(args->begin() + static_cast<long>(i));
        return std::string("true");
      }
      if (i + 1 >= args->size()) return std::nullopt;
      std::string v = (*args)[i + 1];
      args->erase(args->begin() + static_cast<long>(i), args->begin() + static_cast<long>(i) + 2);
      return v;
    }
    if (!boolean && a.rfind("--" + name + "=", 0) == 0) {
      std::string v = a.substr(name.size() + 3);
      args->erase(args->begin() + static_cast<long>(i));
      return v;
    }
  }
  return std::nullopt;
}

int RunRun(const std::vector<std::string>& argv) {
  std::vector<std::string> args = argv;
  ChatSessionOptions session;
  session.system_prompt = TakeFlag(&args, "system-prompt", false);
  if (TakeFlag(&args, "enable-thinking", true)) session.base_body["chat_template_kwargs"] = {{"enable_thinking", true}};
  auto flags = ParseFlags(args, ServeFlagTable(), /*max_positional=*/1);
  if (!flags.ok()) return Fail(2, flags.status().message());
  if (flags->help_requested) {
    std::fputs(FormatHelp(kUsage, kDescription, ServeFlagGroups()).c_str(), stdout);
    return 0;
  }
  auto options = BuildServeOptions(*flags);
  if (!options.ok()) return Fail(2, options.status().message());
  ServeOptions o = *options;
  o.host = "127.0.0.1";  // this process is the only client
  o.port = 0;
  o.disable_log_stats = true;
  // Loading logs stay quiet unless asked for: the terminal is the chat.
  auto level = ParseLogLevel(o.log_level);
  SetLogLevel(flags->IsSet("log-level") && level.ok() ? *level : LogLevel::kWarning);
  StartFailure failure;
  std::unique_ptr<Serving> serving = StartServing(o, &failure);
  if (!serving) return Fail(failure.exit_code(), failure.status.message());
  auto target = ResolveTarget("http://127.0.0.1:" + std::to_string(serving->port()) + "/v1",
                              o.api_keys.empty() ? "" : o.api_keys.front(), o.served_model_names.front());
  int rc = 1;
  if (!target.ok()) {
    Fail(1, target.status().message());
  } else {
    std::printf("Using model: %s\n", target->model.c_str());
    rc = RunChatSession(*target, session);
  }
  serving->Shutdown(/*grace_s=*/0);
  return rc;
}

}  // namespace

extern const Subcommand kCmd_run;
const Subcommand kCmd_run{"run", "load a model and chat with it in the terminal (no separate server)", &RunRun};

}  // namespace gemmad::cli
