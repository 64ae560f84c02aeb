// IncrementalDetokenizer: HF DecodeStream (step_decode_stream) plus a final Flush.
#include "tokenizer/incremental_detokenizer.h"

#include "tokenizer/tokenizer.h"

namespace gemmad::tokenizer {

IncrementalDetokenizer::IncrementalDetokenizer(const Tokenizer& tokenizer, bool skip_special_tokens)
    : tokenizer_(tokenizer), skip_special_tokens_(skip_special_tokens) {}

namespace {
bool EndsWithReplacement(const std::string& s) {
  return s.size() >= 3 && s.compare(s.size() - 3, 3, "\xEF\xBF\xBD") == 0;
}
}  // namespace

std::string IncrementalDetokenizer::Step(int32_t id) {
  ++num_ids_;
  if (prefix_.empty() && !window_.empty()) {
    std::string p = tokenizer_.Decode(window_, skip_special_tokens_);
    if (!EndsWithReplacement(p)) {
      prefix_ = std::move(p);
      prefix_end_ = window_.size();
    }
  }
  window_.push_back(id);
  std::string text = tokenizer_.Decode(window_, skip_special_tokens_);
  if (text.size() <= prefix_.size() || EndsWithReplacement(text)) return std::string();
  // The decode of a longer window always extends the previous one for the supported decoders;
  // if it ever did not, emitting the tail after the common prefix keeps the stream going.
  size_t common = 0;
  while (common < prefix_.size() && text[common] == prefix_[common]) ++common;
  std::string out = text.substr(common < prefix_.size() ? common : prefix_.size());
  const size_t new_prefix_end = window_.size() - prefix_end_;
  window_.erase(window_.begin(), window_.begin() + static_cast<std::ptrdiff_t>(prefix_end_));
  prefix_ = tokenizer_.Decode(window_, skip_special_tokens_);
  prefix_end_ = new_prefix_end;
  return out;
}

std::string IncrementalDetokenizer::StepMany(const int32_t* ids, size_t num_ids) {
  std::string out;
  for (size_t i = 0; i < num_ids; ++i) out += Step(ids[i]);
  return out;
}

std::string IncrementalDetokenizer::Flush() {
  if (window_.empty()) return std::string();
  std::string text = tokenizer_.Decode(window_, skip_special_tokens_);
  std::string out = text.size() > prefix_.size() ? text.substr(prefix_.size()) : std::string();
  Reset();
  return out;
}

void IncrementalDetokenizer::Reset() {
  window_.clear();
  prefix_.clear();
  prefix_end_ = 0;
  num_ids_ = 0;
}

}  // namespace gemmad::tokenizer
