// IncrementalDetokenizer: HF DecodeStream's windowed re-decoding, made exact: text is emitted
// only from the ids whose decode can no longer change (a trailing run of ByteFallback byte
// tokens is still open: one more invalid byte turns the whole run into U+FFFD), and never
// ending in U+FFFD (a character still incomplete), so pieces always concatenate to Decode().
#include "tokenizer/incremental_detokenizer.h"

#include "tokenizer/pipeline.h"
#include "tokenizer/tokenizer.h"

namespace gemmad::tokenizer {
namespace {

bool EndsWithReplacement(const std::string& s) {
  return s.size() >= 3 && s.compare(s.size() - 3, 3, "\xEF\xBF\xBD") == 0;
}

}  // namespace

IncrementalDetokenizer::IncrementalDetokenizer(const Tokenizer& tokenizer, bool skip_special_tokens)
    : tokenizer_(tokenizer), skip_special_tokens_(skip_special_tokens) {}

std::string IncrementalDetokenizer::Step(int32_t id) {
  ++num_ids_;
  window_.push_back(id);
  const Pipeline& p = tokenizer_.pipeline();
  // An id that decodes to nothing, or a byte token extending a run already open, leaves the stable
  // text below as the last step left it, and that step emitted all of it: nothing to emit, and no
  // re-decoding of a window that such ids (a forced special token, a long byte run) could grow.
  if (p.DecodesToNothing(id, skip_special_tokens_) || (open_run_ && p.IsByteRunToken(id))) return std::string();
  // Exclude a trailing open byte run (skipped tokens inside it do not end it).
  size_t stable_end = window_.size();
  bool open_run = false;
  for (size_t k = window_.size(); k > prefix_end_; --k) {
    const int32_t t = window_[k - 1];
    if (p.DecodesToNothing(t, skip_special_tokens_)) continue;
    if (!p.IsByteRunToken(t)) break;
    open_run = true;
    stable_end = k - 1;
  }
  open_run_ = open_run;
  if (open_run && stable_end <= prefix_end_) return std::string();
  std::span<const int32_t> stable(window_.data(), stable_end);
  std::string text = p.Decode(stable, skip_special_tokens_, at_start_);
  if (text.size() <= prefix_.size() || EndsWithReplacement(text) || text.compare(0, prefix_.size(), prefix_) != 0) {
    return std::string();
  }
  std::string out = text.substr(prefix_.size());
  // Keep the ids of the piece just emitted as context for the next decode (decoders treat the
  // first token of a sequence specially, so the context must not start at the new ids).
  for (size_t k = 0; k < prefix_end_ && at_start_; ++k) {
    if (!p.DecodesToNothing(window_[k], skip_special_tokens_)) at_start_ = false;
  }
  window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(prefix_end_));
  prefix_end_ = stable_end - prefix_end_;
  prefix_ = p.Decode(std::span<const int32_t>(window_.data(), prefix_end_), skip_special_tokens_, at_start_);
  return out;
}

std::string IncrementalDetokenizer::StepMany(const int32_t* ids, size_t num_ids) {
  std::string out;
  for (size_t i = 0; i < num_ids; ++i) out += Step(ids[i]);
  return out;
}

std::string IncrementalDetokenizer::Flush() {
  std::string text = tokenizer_.pipeline().Decode(window_, skip_special_tokens_, at_start_);
  std::string out = text.size() > prefix_.size() ? text.substr(prefix_.size()) : std::string();
  Reset();
  return out;
}

void IncrementalDetokenizer::Reset() {
  window_.clear();
  prefix_.clear();
  prefix_end_ = 0;
  at_start_ = true;
  open_run_ = false;
  num_ids_ = 0;
}

}  // namespace gemmad::tokenizer
