// SSE framing (WHATWG event-stream rules: line ends \r\n|\n|\r, "field: value", blank line
// dispatches) and OpenAI completion chunks for `gemmad bench serve`.
#include "cli/bench_sse.h"

#include <nlohmann/json.hpp>

namespace gemmad::cli {

std::vector<SseEvent> SseParser::Feed(std::string_view bytes) {
  std::vector<SseEvent> out;
  for (char ch : bytes) {
    if (pending_cr_) {
      pending_cr_ = false;
      if (ch == '\n') continue;  // the second half of "\r\n"
    }
    if (ch == '\r' || ch == '\n') {
      pending_cr_ = ch == '\r';
      Line(buf_, &out);
      buf_.clear();
    } else {
      buf_.push_back(ch);
    }
  }
  return out;
}

std::optional<SseEvent> SseParser::Finish() {
  std::vector<SseEvent> out;
  if (!buf_.empty()) {
    Line(buf_, &out);
    buf_.clear();
  }
  Line("", &out);
  if (out.empty()) return std::nullopt;
  return out.front();
}

void SseParser::Line(std::string_view line, std::vector<SseEvent>* out) {
  if (line.empty()) {
    if (has_data_) out->push_back(std::move(cur_));
    cur_ = SseEvent{};
    has_data_ = false;
    return;
  }
  if (line.front() == ':') return;  // comment (keep-alive ping)
  const size_t colon = line.find(':');
  std::string_view field = line.substr(0, colon);
  std::string_view value = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
  if (!value.empty() && value.front() == ' ') value.remove_prefix(1);
  if (field == "data") {
    if (has_data_) cur_.data.push_back('\n');
    cur_.data.append(value);
    has_data_ = true;
  } else if (field == "event") {
    cur_.event = std::string(value);
  }
}

CompletionChunk ParseCompletionChunk(std::string_view data) {
  CompletionChunk c;
  if (data == "[DONE]") {
    c.kind = CompletionChunk::Kind::kDone;
    return c;
  }
  nlohmann::json j = nlohmann::json::parse(data, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    c.kind = CompletionChunk::Kind::kError;
    c.error = "invalid JSON in stream: " + std::string(data.substr(0, 200));
    return c;
  }
  if (auto e = j.find("error"); e != j.end()) {
    c.kind = CompletionChunk::Kind::kError;
    if (e->is_object() && e->contains("message") && (*e)["message"].is_string()) {
      c.error = (*e)["message"].get<std::string>();
    } else {
      c.error = e->dump();
    }
    return c;
  }
  if (auto u = j.find("usage"); u != j.end() && u->is_object()) {
    if (auto ct = u->find("completion_tokens"); ct != u->end() && ct->is_number_integer()) {
      c.completion_tokens = ct->get<int64_t>();
    }
  }
  auto ch = j.find("choices");
  if (ch != j.end() && ch->is_array() && !ch->empty()) {
    c.kind = CompletionChunk::Kind::kText;
    const auto& first = (*ch)[0];
    if (first.is_object()) {
      if (auto t = first.find("text"); t != first.end() && t->is_string()) c.text = t->get<std::string>();
    }
    return c;
  }
  if (c.completion_tokens) c.kind = CompletionChunk::Kind::kUsage;
  return c;
}

}  // namespace gemmad::cli
