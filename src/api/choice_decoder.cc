// ChoiceDecoder implementation.
#include "api/choice_decoder.h"

#include "tokenizer/tokenizer.h"

namespace gemmad::api {

ChoiceDecoder::ChoiceDecoder(const tokenizer::Tokenizer& tokenizer, const TextParams& params)
    : detok_(tokenizer, params.skip_special_tokens),
      stop_(params.stop, params.include_stop_str_in_output),
      include_stop_str_(params.include_stop_str_in_output),
      min_tokens_(params.min_tokens) {}

ChoiceDecoder::Step ChoiceDecoder::Feed(const std::vector<int32_t>& ids, bool ended_by_stop_token, bool finished) {
  Step step;
  for (size_t i = 0; i < ids.size() && !stop_.stopped(); ++i) {
    ++step.num_consumed;
    ++num_tokens_;
    bool is_final_stop_token = ended_by_stop_token && i + 1 == ids.size();
    if (is_final_stop_token && !include_stop_str_) continue;
    std::string piece = detok_.Step(ids[i]);
    // vLLM looks for stop strings only once more than min_tokens tokens exist, and not in
    // the text of a stop token.
    bool check = num_tokens_ > min_tokens_ && !is_final_stop_token;
    if (stop_.Append(piece, check)) step.stopped_by_string = true;
  }
  // The detokenizer holds back a run of byte-fallback tokens until a normal token closes it;
  // at the end of the choice nothing closes it any more (the stop token is not decoded).
  if (finished && !stop_.stopped()) {
    std::string rest = detok_.Flush();
    if (!rest.empty() && stop_.Append(rest, num_tokens_ > min_tokens_)) step.stopped_by_string = true;
  }
  step.text = stop_.TakeReady(finished || stop_.stopped());
  return step;
}

}  // namespace gemmad::api
