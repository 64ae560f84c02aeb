// Gemma 4 protocol markers (chat-format.md §1.2) and MarkerScanner, which cuts streamed model
// text into plain-text pieces and whole markers. Invariant: for any way of cutting the input
// into Feed() calls, the concatenated text between two markers and the marker sequence are the
// same; text pieces are valid UTF-8 (a character or marker cut by a chunk boundary is held
// back; invalid bytes become U+FFFD). `<bos>`/`<eos>`/`<pad>`/`<unk>`/`<mask>` are NOT markers
// here: they are plausible plain text and never appear inside generated output.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gemmad::parse::gemma4 {

enum class Marker : uint8_t {
  kNone = 0,  // plain text
  kToolDeclStart,      // <|tool>
  kToolDeclEnd,        // <tool|>
  kToolCallStart,      // <|tool_call>
  kToolCallEnd,        // <tool_call|>
  kToolResponseStart,  // <|tool_response>
  kToolResponseEnd,    // <tool_response|>
  kQuote,              // <|"|>
  kThink,              // <|think|>
  kChannelStart,       // <|channel>
  kChannelEnd,         // <channel|>
  kTurnStart,          // <|turn>
  kTurnEnd,            // <turn|>
  kImageStart,         // <|image>
  kAudioStart,         // <|audio>
  kImage,              // <|image|>
  kAudio,              // <|audio|>
  kImageEnd,           // <image|>
  kAudioEnd,           // <audio|>
  kVideo,              // <|video|>
};

// Every marker with its literal text, kNone excluded.
struct MarkerEntry {
  Marker marker;
  std::string_view text;
};
const std::vector<MarkerEntry>& AllMarkers();
constexpr size_t kMaxMarkerBytes = 16;  // the longest marker text
std::string_view MarkerText(Marker marker);

struct Piece {
  Marker marker = Marker::kNone;
  std::string text;  // the plain text when marker == kNone
};

class MarkerScanner {
 public:
  // Appends the pieces that `text` completes.
  void Feed(std::string_view text, std::vector<Piece>& out);
  // End of input: held-back bytes become text (an incomplete character becomes U+FFFD).
  void Finish(std::vector<Piece>& out);

 private:
  void Scan(bool at_end, std::vector<Piece>& out);
  std::string pending_;
};

// MarkerFilter: the last guard on parser output text. Removing markers can join the text around
// them into a new marker (`<|"` + `<tool_call|>` + `|>`); the filter removes markers from its
// output stream until none is left, holding back a suffix that may still become one. Output
// order: what Push returns is final; Flush releases the held suffix (call it when the stream
// ends or another kind of event is emitted between two of its pieces).
class MarkerFilter {
 public:
  void Push(std::string_view text, std::string& out);
  void Flush(std::string& out);

 private:
  std::string held_;
  std::vector<size_t> links_;  // the hold-back chain's links in held_, ascending (0 first)
};

}  // namespace gemmad::parse::gemma4
