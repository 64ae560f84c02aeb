// IncrementalDetokenizer: turns a stream of generated ids into text pieces for streaming.
// Invariant: every piece returned is complete UTF-8 (a partial multi-byte character is held
// back), and the concatenation of all pieces plus Flush() equals
// tokenizer.Decode(all ids, skip_special_tokens) byte for byte, including the decoder's
// start-of-sequence handling (Metaspace / Strip leading space), which applies only to the
// first id ever fed. Semantics follow HF `tokenizers` DecodeStream (used by vLLM): a window of
// recent ids is re-decoded and only the text past the previous window's text is emitted; unlike
// DecodeStream, a run of ByteFallback byte tokens is held until a non-byte token closes it (HF
// turns a whole run with any invalid byte into U+FFFD), so text never has to be taken back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace gemmad::tokenizer {

class Tokenizer;

class IncrementalDetokenizer {
 public:
  // `tokenizer` must outlive this object.
  IncrementalDetokenizer(const Tokenizer& tokenizer, bool skip_special_tokens);

  // Feeds one id; returns the newly completed text ("" when nothing is complete yet).
  std::string Step(int32_t id);
  // Feeds several ids; returns the text completed by all of them.
  std::string StepMany(const int32_t* ids, size_t num_ids);
  // Returns whatever is held back (e.g. an incomplete byte sequence, decoded the way Decode
  // decodes it: U+FFFD) and resets the object for a new sequence.
  std::string Flush();
  // Starts a new sequence.
  void Reset();

  // Number of ids fed since construction or Reset().
  size_t num_ids() const { return num_ids_; }

 private:
  const Tokenizer& tokenizer_;
  bool skip_special_tokens_;
  std::vector<int32_t> window_;  // the ids re-decoded at each step
  std::string prefix_;           // Decode(window_[0, prefix_end_)), text already emitted
  size_t prefix_end_ = 0;
  bool at_start_ = true;  // nothing before window_ decodes to any text
  bool open_run_ = false;  // window_ ends in an open byte run (as of the last full step)
  size_t num_ids_ = 0;
};

}  // namespace gemmad::tokenizer
