// `gemmad chat`: vLLM's `vllm chat` — a conversation with a running server, streamed. gemmad
// also shows the model's reasoning apart from its answer (--enable-thinking asks for it) and the
// tool calls it makes (--tools).
#include <cctype>
#include <cstdio>
#include <string>
#include <vector>

#include "base/files.h"
#include "cli/chat_client.h"
#include "cli/flag_help.h"
#include "cli/flag_parser.h"
#include "cli/subcommand.h"
#include "io/base64.h"
#include "mm/image_decode.h"

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
    {"image", kStringList, "", "gemmad: images sent with the first message: local files (sent inline as data: "
                               "URLs) or http(s)/data:/file:// URLs the server fetches."},
    {"audio", kStringList, "", "gemmad: audio clips sent with the first message (E2B/E4B): local files (sent "
                               "inline as input_audio, format from the file name) or http(s)/data:/file:// URLs."},
};
constexpr auto kFlags = JoinFlags(kClientFlags, kChatFlags);

int Fail(int code, const std::string& message) { return ClientError("chat", code, message); }

bool IsUrl(const std::string& arg) {
  for (const char* scheme : {"http://", "https://", "data:", "file://"}) {
    if (arg.rfind(scheme, 0) == 0) return true;
  }
  return false;
}

// A URL as given, or a local image file as a data: URL (its type sniffed from its bytes).
Result<std::string> ImageUrl(const std::string& arg) {
  if (IsUrl(arg)) return arg;
  GEMMAD_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(arg));
  const auto format = mm::SniffImageFormat({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
  if (format == mm::ImageFormat::kUnknown) return InvalidArgumentError(arg + ": not a JPEG, PNG, WebP, GIF or BMP image");
  std::string mime = "image/" + std::string(mm::ImageFormatName(format));
  for (char& c : mime) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return "data:" + mime + ";base64," + io::EncodeBase64(bytes);
}

// An audio_url part for a URL, or an input_audio part for a local file (format: its extension,
// which the server only takes as a hint: it sniffs the container).
Result<nlohmann::json> AudioPart(const std::string& arg) {
  if (IsUrl(arg)) return nlohmann::json{{"type", "audio_url"}, {"audio_url", {{"url", arg}}}};
  GEMMAD_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(arg));
  if (bytes.empty()) return InvalidArgumentError(arg + ": the file is empty");
  std::string format;
  if (const size_t dot = arg.find_last_of('.'); dot != std::string::npos && arg.find('/', dot) == std::string::npos) {
    format = arg.substr(dot + 1);
    for (char& c : format) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return nlohmann::json{{"type", "input_audio"},
                        {"input_audio", {{"data", io::EncodeBase64(bytes)}, {"format", format}}}};
}

int RunChat(const std::vector<std::string>& args) {
  auto flags = ParseFlags(args, kFlags, /*max_positional=*/0);
  if (!flags.ok()) return Fail(2, flags.status().message());
  const ParsedFlags& f = *flags;
  if (f.help_requested) {
    std::fputs(FormatHelp(kUsage, kDescription, {{"Chat", kFlags}}).c_str(), stdout);
    return 0;
  }
  ChatSessionOptions session;
  if (f.GetBool("enable-thinking")) session.base_body["chat_template_kwargs"] = {{"enable_thinking", true}};
  if (const std::string path = f.GetString("tools"); !path.empty()) {
    auto text = ReadFileToString(path);
    if (!text.ok()) return Fail(2, "--tools: " + text.status().message());
    nlohmann::json tools = nlohmann::json::parse(*text, nullptr, false);
    if (!tools.is_array()) return Fail(2, "--tools: " + path + ": expected a JSON list of tools");
    session.base_body["tools"] = std::move(tools);
  }
  for (const std::string& image : f.GetStringList("image")) {
    auto url = ImageUrl(image);
    if (!url.ok()) return Fail(2, "--image: " + url.status().message());
    session.media_parts.push_back({{"type", "image_url"}, {"image_url", {{"url", std::move(*url)}}}});
  }
  for (const std::string& audio : f.GetStringList("audio")) {
    auto part = AudioPart(audio);
    if (!part.ok()) return Fail(2, "--audio: " + part.status().message());
    session.media_parts.push_back(std::move(*part));
  }
  if (f.IsSet("system-prompt")) session.system_prompt = f.GetString("system-prompt");
  if (f.IsSet("quick")) session.quick = f.GetString("quick");
  session.stats = f.GetBool("stats");
  auto target = StartClient(f);
  if (!target.ok()) return Fail(1, target.status().message());
  return RunChatSession(*target, session);
}

}  // namespace

extern const Subcommand kCmd_chat;
const Subcommand kCmd_chat{"chat", "chat with a running server (as `vllm chat`)", &RunChat};

}  // namespace gemmad::cli
