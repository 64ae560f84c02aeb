// ChoiceDecoder: the text side of one output sequence (choice): incremental UTF-8-safe
// detokenisation, then stop strings, as vLLM's output processor does. Tokens are fed one at a
// time so that a stop string ends the choice exactly at the token that completed it.
// Invariant: consumed token count == the choice's completion tokens as vLLM counts them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/sampling_build.h"
#include "api/stop_strings.h"
#include "tokenizer/incremental_detokenizer.h"

namespace gemmad::tokenizer {
class Tokenizer;
}  // namespace gemmad::tokenizer

namespace gemmad::api {

class ChoiceDecoder {
 public:
  struct Step {
    std::string text;          // text that became sendable with this delta
    size_t num_consumed = 0;   // leading tokens of the delta that belong to the output
    bool stopped_by_string = false;  // a stop string matched within this delta
  };

  ChoiceDecoder(const tokenizer::Tokenizer& tokenizer, const TextParams& params);

  // Feeds the token ids of one engine delta. `ended_by_stop_token`: the engine finished the
  // sequence because its last token is EOS or a stop_token_ids entry (that token is then not
  // detokenized unless include_stop_str_in_output, as vLLM). `finished`: last delta.
  Step Feed(const std::vector<int32_t>& ids, bool ended_by_stop_token, bool finished);

  bool stopped_by_string() const { return stop_.stopped(); }
  const std::string& matched_stop() const { return stop_.matched(); }
  const std::string& text() const { return stop_.text(); }
  int32_t num_tokens() const { return num_tokens_; }

 private:
  tokenizer::IncrementalDetokenizer detok_;
  StopStringFilter stop_;
  bool include_stop_str_;
  int32_t min_tokens_;
  int32_t num_tokens_ = 0;
};

}  // namespace gemmad::api
