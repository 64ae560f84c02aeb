// ResolveTarget, StreamChatTurn, StreamCompletionTurn.
#include "cli/chat_client.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>

namespace gemmad::cli {
namespace {

using Clock = std::chrono::steady_clock;

std::string TrimSlash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// Reads the stream's events into `turn`, printing text as it comes; `on_choice` handles one
// choices[0] object. An {"error": ...} event becomes the returned error.
Result<Turn> Stream(SseConnection& conn, const std::string& url, nlohmann::json body,
                    const std::function<void(const nlohmann::json& choice, Turn& turn)>& on_choice) {
  body["stream"] = true;
  body["stream_options"] = {{"include_usage", true}};
  Turn turn;
  std::string error;
  const Clock::time_point start = Clock::now();
  // Invalid UTF-8 typed at the prompt is replaced (U+FFFD), not an exception.
  const std::string payload = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  Status st = conn.Post(url, payload, [&](const SseEvent& e) {
    if (e.data == "[DONE]") return;
    nlohmann::json j = nlohmann::json::parse(e.data, nullptr, false);
    if (!j.is_object()) return;
    if (j.contains("error")) {
      const auto& err = j["error"];
      error = err.is_object() && err.contains("message") && err["message"].is_string() ? err["message"].get<std::string>()
                                                                                         : err.dump();
      return;
    }
    if (j.contains("usage") && j["usage"].is_object() && j["usage"].contains("completion_tokens")) {
      turn.completion_tokens = j["usage"]["completion_tokens"].get<int64_t>();
    }
    if (!j.contains("choices") || !j["choices"].is_array() || j["choices"].empty()) return;
    const size_t before = turn.content.size() + turn.reasoning.size();
    on_choice(j["choices"][0], turn);
    if (turn.ttft_s < 0 && turn.content.size() + turn.reasoning.size() > before) {
      turn.ttft_s = std::chrono::duration<double>(Clock::now() - start).count();
    }
  });
  turn.total_s = std::chrono::duration<double>(Clock::now() - start).count();
  if (!st.ok()) return st;
  if (!error.empty()) return InvalidArgumentError(error);
  return turn;
}

std::string Str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

int ClientError(const char* command, int code, const std::string& message) {
  std::fprintf(stderr, "gemmad %s: error: %s\n", command, message.c_str());
  return code;
}

Result<ClientTarget> ResolveTarget(const std::string& url, const std::string& api_key, const std::string& model_name) {
  ClientTarget t;
  t.url = TrimSlash(url);
  t.api_key = api_key;
  if (t.api_key.empty()) {
    const char* env = std::getenv("OPENAI_API_KEY");
    if (env != nullptr) t.api_key = env;
  }
  t.model = model_name;
  if (t.model.empty()) {
    // ListModels appends /v1/models to the server root.
    std::string root = t.url;
    if (root.size() >= 3 && root.compare(root.size() - 3, 3, "/v1") == 0) root.resize(root.size() - 3);
    GEMMAD_ASSIGN_OR_RETURN(std::vector<std::string> ids, ListModels(root, t.api_key));
    t.model = ids.front();
  }
  return t;
}

Result<ClientTarget> StartClient(const ParsedFlags& f) {
  GEMMAD_ASSIGN_OR_RETURN(ClientTarget t, ResolveTarget(f.GetString("url"), f.GetString("api-key"),
                                                        f.GetString("model-name")));
  std::printf("Using model: %s\n", t.model.c_str());
  return t;
}

Result<Turn> StreamChatTurn(SseConnection& conn, const ClientTarget& target, nlohmann::json body, std::FILE* out) {
  body["model"] = target.model;
  bool in_thinking = false;
  std::map<int64_t, std::pair<std::string, std::string>> calls;  // index -> (name, arguments)
  auto result = Stream(conn, target.url + "/chat/completions", std::move(body),
                       [&](const nlohmann::json& choice, Turn& turn) {
    if (!choice.contains("delta") || !choice["delta"].is_object()) return;
    const nlohmann::json& d = choice["delta"];
    std::string reasoning = Str(d, "reasoning");
    if (reasoning.empty()) reasoning = Str(d, "reasoning_content");
    if (!reasoning.empty()) {
      if (!in_thinking) std::fputs("<thinking>\n", out);
      in_thinking = true;
      std::fputs(reasoning.c_str(), out);
      turn.reasoning += reasoning;
    }
    const std::string content = Str(d, "content");
    if (!content.empty()) {
      if (in_thinking) std::fputs("\n</thinking>\n", out);
      in_thinking = false;
      std::fputs(content.c_str(), out);
      turn.content += content;
    }
    if (d.contains("tool_calls") && d["tool_calls"].is_array()) {
      for (const auto& tc : d["tool_calls"]) {
        const int64_t index = tc.value("index", int64_t{0});
        if (!tc.contains("function") || !tc["function"].is_object()) continue;
        calls[index].first += Str(tc["function"], "name");
        calls[index].second += Str(tc["function"], "arguments");
      }
    }
    std::fflush(out);
  });
  if (in_thinking) std::fputs("\n</thinking>\n", out);
  if (result.ok()) {
    for (auto& [index, call] : calls) {
      if (!result->content.empty() || index > calls.begin()->first) std::fputs("\n", out);
      std::fprintf(out, "[tool call] %s %s", call.first.c_str(), call.second.c_str());
      result->tool_calls.push_back(std::move(call));
    }
  }
  std::fputs("\n", out);
  std::fflush(out);
  return result;
}

Result<Turn> StreamCompletionTurn(SseConnection& conn, const ClientTarget& target, nlohmann::json body,
                                  std::FILE* out) {
  body["model"] = target.model;
  auto result = Stream(conn, target.url + "/completions", std::move(body), [&](const nlohmann::json& choice, Turn& turn) {
    const std::string text = Str(choice, "text");
    if (text.empty()) return;
    std::fputs(text.c_str(), out);
    std::fflush(out);
    turn.content += text;
  });
  std::fputs("\n", out);
  std::fflush(out);
  return result;
}

int RunSession(const char* banner, const std::optional<std::string>& quick,
               const std::function<bool(const std::string& input)>& turn) {
  if (quick) return turn(*quick) ? 0 : 1;
  std::printf("%s\n", banner);
  std::string line;
  while (true) {
    std::printf("> ");
    std::fflush(stdout);
    if (!std::getline(std::cin, line)) break;
    turn(line);
  }
  std::printf("\n");
  return 0;
}

int RunChatSession(const ClientTarget& target, const ChatSessionOptions& options) {
  SseConnection conn(target.api_key, /*timeout_s=*/0, "gemmad-chat");
  nlohmann::json conversation = nlohmann::json::array();
  if (options.system_prompt) conversation.push_back({{"role", "system"}, {"content", *options.system_prompt}});
  bool media_sent = false;
  auto turn = [&](const std::string& message) -> bool {
    if (!media_sent && !options.media_parts.empty()) {
      nlohmann::json parts = nlohmann::json::array();
      for (const nlohmann::json& part : options.media_parts) parts.push_back(part);
      parts.push_back({{"type", "text"}, {"text", message}});
      conversation.push_back({{"role", "user"}, {"content", std::move(parts)}});
    } else {
      conversation.push_back({{"role", "user"}, {"content", message}});
    }
    nlohmann::json body = options.base_body;
    body["messages"] = conversation;
    auto t = StreamChatTurn(conn, target, std::move(body), stdout);
    if (!t.ok()) {
      conversation.erase(conversation.end() - 1);  // the failed message is not part of the history
      ClientError("chat", 0, t.status().message());
      return false;
    }
    media_sent = true;
    conversation.push_back({{"role", "assistant"}, {"content", t->content}});
    if (options.stats) PrintStats(*t, stdout);
    return true;
  };
  return RunSession("Please enter a message for the chat model:", options.quick, turn);
}

void PrintStats(const Turn& turn, std::FILE* out) {
  if (turn.ttft_s < 0 || turn.total_s <= 0) return;
  std::fprintf(out, "TTFT: %.2f ms\n", turn.ttft_s * 1000.0);
  std::fprintf(out, "TPS:  %.2f tokens/s (%lld tokens in %.2fs)\n",
               static_cast<double>(turn.completion_tokens) / turn.total_s,
               static_cast<long long>(turn.completion_tokens), turn.total_s);
}

}  // namespace gemmad::cli
