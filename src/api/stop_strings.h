// StopStringFilter: vLLM's stop-string handling for one output sequence, streaming-first.
// Text is appended as it is detokenized; the stop string whose match ends first (searched only
// over text that could hold a new match) ends the sequence and truncates the text before it
// (or after it with include_stop_str_in_output). While streaming, the last
// (longest stop string - 1) characters are held back so a stop string split across chunks
// never leaks. Invariant: the concatenation of every TakeReady() piece equals text(), and is
// independent of how the input was chunked.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gemmad::api {

class StopStringFilter {
 public:
  StopStringFilter(std::vector<std::string> stop_strings, bool include_stop_str_in_output);

  // Appends newly decoded text. `check` is false while the sequence has not yet generated more
  // than min_tokens tokens (vLLM does not look for stop strings then). Returns true when a stop
  // string matched now; afterwards the filter accepts no more text.
  bool Append(std::string_view text, bool check = true);
  // The text that became sendable since the last call; with `finished` nothing is held back.
  std::string TakeReady(bool finished);

  bool stopped() const { return !matched_.empty(); }
  const std::string& matched() const { return matched_; }  // the stop string that matched
  const std::string& text() const { return text_; }        // all text so far (truncated on a match)

 private:
  std::vector<std::string> stops_;
  bool include_in_output_;
  size_t hold_back_chars_ = 0;
  std::string text_;
  size_t sent_ = 0;  // bytes of text_ already returned by TakeReady
  std::string matched_;
};

// Byte offset of the position `n` UTF-8 characters before `end` in `s` (0 if fewer).
size_t Utf8StepBack(std::string_view s, size_t end, size_t n);
// Number of UTF-8 characters (code points) in `s` (Python len()).
size_t Utf8Length(std::string_view s);

}  // namespace gemmad::api
