// ChoiceState::Apply: engine delta -> counted tokens, text and finish state.
#include "api/chat_choice_state.h"

namespace gemmad::api {

std::optional<ChoiceStep> ChoiceState::Apply(engine::RequestOutput& out) {
  if (finished) return std::nullopt;
  ChoiceStep step;
  bool engine_finished = out.finished();
  // The engine ends a sequence with kStop on EOS / stop_token_ids (its last token is the stop
  // token); kStop after our own abort cannot reach here because the choice is finished then.
  bool ended_by_stop_token = engine_finished && out.finish_reason == engine::FinishReason::kStop;
  ChoiceDecoder::Step d = decoder.Feed(out.token_ids, ended_by_stop_token, engine_finished);
  step.text = std::move(d.text);
  step.token_ids.assign(out.token_ids.begin(), out.token_ids.begin() + static_cast<ptrdiff_t>(d.num_consumed));
  if (!out.logprobs.empty()) {
    size_t n = std::min(d.num_consumed, out.logprobs.size());
    step.logprobs.assign(out.logprobs.begin(), out.logprobs.begin() + static_cast<ptrdiff_t>(n));
  }
  all_token_ids.insert(all_token_ids.end(), step.token_ids.begin(), step.token_ids.end());
  all_logprobs.insert(all_logprobs.end(), step.logprobs.begin(), step.logprobs.end());
  if (d.stopped_by_string) {
    step.finished = true;
    step.finish_reason = "stop";
    step.stop_reason = decoder.matched_stop();
  } else if (engine_finished) {
    step.finished = true;
    step.finish_reason = std::string(engine::FinishReasonName(out.finish_reason));
    step.stop_reason = out.stop_token_id ? Json(*out.stop_token_id) : Json(nullptr);
  }
  if (step.finished) {
    finished = true;
    finish_reason = step.finish_reason;
    stop_reason = step.stop_reason;
  }
  return step;
}

}  // namespace gemmad::api
