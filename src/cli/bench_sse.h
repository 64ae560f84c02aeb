// Server-sent events for `gemmad bench serve`: an incremental parser (bytes in as the socket
// delivers them, complete events out) and the reading of one /v1/completions stream chunk the
// way `vllm bench serve` reads it (choices[0].text counts as a token arrival, a chunk without
// choices but with usage carries completion_tokens, "[DONE]" ends the stream).
// Invariant: Feed never loses bytes; an event is emitted only once its terminating blank line
// has arrived, whatever the chunking (and "\r\n", "\r" or "\n" line ends).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gemmad::cli {

struct SseEvent {
  std::string event;  // "event:" field ("" when absent)
  std::string data;   // "data:" lines joined with '\n'
};

class SseParser {
 public:
  // Appends bytes; returns the events completed by them (comments ":..." are skipped).
  std::vector<SseEvent> Feed(std::string_view bytes);
  // The event left open when the stream ended without a blank line (servers that omit the
  // last one); nullopt when none.
  std::optional<SseEvent> Finish();

 private:
  void Line(std::string_view line, std::vector<SseEvent>* out);

  std::string buf_;
  bool pending_cr_ = false;  // the last byte was '\r' (a "\r\n" may be split across feeds)
  SseEvent cur_;
  bool has_data_ = false;
};

struct CompletionChunk {
  enum class Kind { kText, kUsage, kDone, kError, kOther };
  Kind kind = Kind::kOther;
  std::string text;                       // kText: choices[0].text ("" allowed)
  std::optional<int64_t> completion_tokens;  // usage.completion_tokens when present
  std::string error;                      // kError: the message
};

// Reads one event payload of a streaming /v1/completions response.
CompletionChunk ParseCompletionChunk(std::string_view data);

}  // namespace gemmad::cli
