// The engine thread: intake from the inbox, aborts, one scheduler/runner step, delivery of
// deltas to the output channels, metrics. Everything here runs on the engine thread only.
#include <fmt/format.h>

#include <thread>
#include <unordered_map>
#include <utility>

#include "base/check.h"
#include "base/log.h"
#include "engine/engine.h"
#include "engine/metrics_recorder.h"
#include "engine/request_record.h"
#include "engine/step_watchdog.h"

namespace gemmad::engine {

void Engine::Loop() {
  while (!stop_requested_ && healthy_) {
    ProcessAborts();
    Intake(/*block=*/!scheduler_->has_work());
    if (stop_requested_ || !healthy_) break;
    if (scheduler_->has_work()) RunStep();
    metrics_->SetState(*scheduler_, healthy_, !accepting_);
    metrics_->Publish();
  }
  // Whatever is still in flight ends now: aborted on shutdown, failed when the engine died.
  const bool dead = !healthy_;
  std::vector<uint64_t> ids;
  for (const auto& [id, rec] : records_) ids.push_back(id);
  for (uint64_t id : ids) {
    FinishAllChildren(*records_.at(id), dead ? FinishReason::kError : FinishReason::kAbort,
                      dead ? InternalError("the engine died") : OkStatus());
  }
  records_.clear();
  while (auto item = inbox_.TryPop()) {
    if (*item) RejectPending(*item);
  }
  metrics_->SetState(*scheduler_, healthy_, true);
  metrics_->Publish();
  {
    std::lock_guard<std::mutex> lock(done_mu_);
    loop_done_ = true;
  }
  done_cv_.notify_all();
}

void Engine::RejectPending(const std::shared_ptr<PendingRequest>& pending) {
  for (int32_t i = 0; i < pending->channel->n(); ++i) {
    RequestOutput out;
    out.index = i;
    out.finish_reason = FinishReason::kAbort;
    out.num_prompt_tokens = static_cast<int32_t>(pending->prompt.size());
    pending->channel->Push(std::move(out));
  }
  MarkRequestDone(pending->id);
}

void Engine::MarkRequestDone(uint64_t id) {
  {
    std::lock_guard<std::mutex> lock(live_mu_);
    live_.erase(id);
  }
  {
    std::lock_guard<std::mutex> lock(done_mu_);
    num_in_flight_.fetch_sub(1);
  }
  done_cv_.notify_all();
}

bool Engine::Intake(bool block) {
  bool any = false;
  if (block) {
    auto item = inbox_.PopFor(std::chrono::milliseconds(50));
    if (item && *item) {
      Admit(std::move(*item));
      any = true;
    }
  }
  while (auto item = inbox_.TryPop()) {
    if (*item) {
      Admit(std::move(*item));
      any = true;
    }
  }
  return any;
}

void Engine::Admit(std::shared_ptr<PendingRequest> pending) {
  auto rec = std::make_unique<RequestRecord>();
  rec->id = pending->id;
  rec->channel = pending->channel;
  rec->arrival = pending->arrival;
  rec->num_prompt = static_cast<int32_t>(pending->prompt.size());
  rec->max_tokens = *pending->params.max_tokens;
  rec->n = pending->params.n;
  rec->children.resize(static_cast<size_t>(rec->n));
  RequestRecord& r = *rec;
  records_.emplace(r.id, std::move(rec));
  metrics_->OnArrival(r);
  if (r.channel->abort_requested()) {  // aborted while in the inbox
    FinishAllChildren(r, r.channel->abort_reason(), OkStatus());  // `r` is gone afterwards
    return;
  }
  const auto& p = pending->params;
  for (int i = 0; i < r.n; ++i) {
    ChildState& c = r.children[static_cast<size_t>(i)];
    c.seq_id = next_seq_id_++;
    sched::SequenceSpec spec;
    spec.id = c.seq_id;
    spec.prompt_token_ids = pending->prompt;
    spec.params = p;
    spec.params.n = 1;
    if (i > 0) spec.params.prompt_logprobs.reset();  // reported once, with choice 0
    // vLLM's parallel sampling: child i of a seeded request uses seed + i.
    spec.seed = p.seed ? static_cast<uint64_t>(*p.seed) + static_cast<uint64_t>(i) : seed_rng_.Next();
    spec.eos_token_id = config_.eos_token_id;
    if (!pending->constraints.empty()) spec.constraint = std::move(pending->constraints[static_cast<size_t>(i)]);
    spec.cache_salt = pending->cache_salt;
    spec.mm_items = pending->mm_items;
    c.wants_prompt_logprobs = spec.params.prompt_logprobs.has_value();
    if (c.wants_prompt_logprobs) c.prompt_logprobs.resize(static_cast<size_t>(r.num_prompt));
    scheduler_->Add(std::move(spec));
    seq_owner_[c.seq_id] = {r.id, i};
  }
}

void Engine::ProcessAborts() {
  for (const auto& [id, reason] : mailbox_->Drain()) {
    auto it = records_.find(id);
    if (it == records_.end()) continue;  // finished already, or still in the inbox (see Admit)
    FinishAllChildren(*it->second, reason, OkStatus());
  }
}

void Engine::FinishAllChildren(RequestRecord& rec, FinishReason reason, const Status& error) {
  const int n = rec.n;
  for (int i = 0; i < n; ++i) {
    if (rec.children[static_cast<size_t>(i)].finished) continue;
    if (FinishChild(rec, i, reason, std::nullopt, error)) return;  // the record is gone
  }
}

bool Engine::FinishChild(RequestRecord& rec, int index, FinishReason reason, std::optional<int32_t> stop_token,
                         Status error, RequestOutput* delta) {
  ChildState& c = rec.children[static_cast<size_t>(index)];
  GEMMAD_CHECK(!c.finished, "choice {} of request {} finished twice", index, rec.id);
  c.finished = true;
  // The scheduler forgets it now (no-op when it already retired it) and tells the runner in
  // the next step's finished_seq_ids.
  if (seq_owner_.erase(c.seq_id)) scheduler_->Remove(c.seq_id);
  RequestOutput local;
  RequestOutput& out = delta ? *delta : local;
  out.index = index;
  out.finish_reason = reason;
  out.stop_token_id = stop_token;
  out.error = std::move(error);
  out.num_prompt_tokens = rec.num_prompt;
  out.num_cached_tokens = c.num_cached;
  out.num_output_tokens = c.num_output;
  metrics_->OnChildFinished(rec, c, reason, Clock::now());
  const bool last = ++rec.num_finished == rec.n;
  if (last) {
    // Published before the final output goes out, so that /metrics read right after the
    // response already counts its tokens and its finish.
    metrics_->OnRequestFinished(rec);
    metrics_->SetState(*scheduler_, healthy_, !accepting_);
    metrics_->Publish();
  }
  rec.channel->Push(std::move(out));
  if (last) {
    const uint64_t id = rec.id;
    records_.erase(id);  // `rec` is gone from here on
    MarkRequestDone(id);
    return true;
  }
  return false;
}

void Engine::Die(const Status& status) {
  GEMMAD_LOG_ERROR("engine failed: {}", status.ToString());
  healthy_ = false;
  accepting_ = false;
  FailAllLive(status);
}

void Engine::RunStep() {
  sched::SchedulerOutput out = scheduler_->Schedule();
  if (out.empty()) {
    GEMMAD_LOG_WARNING("engine step scheduled nothing ({} waiting); retrying", scheduler_->num_waiting());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return;
  }
  Clock::time_point now = Clock::now();
  for (const auto& ss : out.seqs) {
    const auto [id, index] = seq_owner_.at(ss.seq_id);
    RequestRecord& rec = *records_.at(id);
    ChildState& c = rec.children[static_cast<size_t>(index)];
    if (!c.scheduled) {
      c.scheduled = true;
      c.first_scheduled = now;
      c.num_cached = static_cast<int32_t>(scheduler_->Find(ss.seq_id)->num_cached_tokens.value_or(0));
      metrics_->OnScheduled(rec, c, now);
    }
  }
  if (watchdog_) watchdog_->BeginStep();
  Result<runner::StepResult> result = runner_->Execute(out);
  if (watchdog_) watchdog_->EndStep();
  if (!healthy_) return;  // the watchdog gave up on this step meanwhile
  if (!result.ok()) return Die(result.status().WithPrefix("runner step failed"));
  GEMMAD_CHECK(result->seqs.size() == out.seqs.size(), "runner returned {} results for {} sequences",
               result->seqs.size(), out.seqs.size());
  metrics_->OnStep(out.total_num_scheduled_tokens);
  DeliverStep(out, *result);
}

void Engine::DeliverStep(const sched::SchedulerOutput& out, runner::StepResult& result) {
  std::vector<std::vector<int32_t>> sampled(out.seqs.size()), drafts(out.seqs.size());
  for (size_t i = 0; i < out.seqs.size(); ++i) {
    GEMMAD_CHECK(result.seqs[i].seq_id == out.seqs[i].seq_id, "runner results out of order");
    sampled[i] = result.seqs[i].sampled_token_ids;
    drafts[i] = std::move(result.seqs[i].draft_token_ids);
    if (out.seqs[i].num_draft_tokens > 0 && result.seqs[i].error.ok()) {
      // Verified drafts: every sampled token but the last is an accepted one.
      metrics_->OnDrafts(out.seqs[i].num_draft_tokens, static_cast<int32_t>(sampled[i].size()) - 1);
    }
  }
  std::vector<sched::SeqUpdate> updates = scheduler_->Update(out, sampled, drafts);
  const Clock::time_point now = Clock::now();
  std::unordered_map<kv::SeqId, size_t> slot;
  for (size_t i = 0; i < out.seqs.size(); ++i) {
    auto& sr = result.seqs[i];
    slot[sr.seq_id] = i;
    auto owner = seq_owner_.find(sr.seq_id);
    if (owner == seq_owner_.end()) continue;
    RequestRecord& rec = *records_.at(owner->second.first);
    ChildState& c = rec.children[static_cast<size_t>(owner->second.second)];
    for (size_t k = 0; k < sr.prompt_logprobs.size() && c.wants_prompt_logprobs; ++k) {
      c.prompt_logprobs[static_cast<size_t>(sr.prompt_logprobs_first) + k] = std::move(sr.prompt_logprobs[k]);
    }
    if (!sr.error.ok()) FinishChild(rec, owner->second.second, FinishReason::kError, std::nullopt, sr.error);
  }
  for (auto& u : updates) {
    auto owner = seq_owner_.find(u.seq_id);
    if (owner == seq_owner_.end()) continue;
    RequestRecord& rec = *records_.at(owner->second.first);
    const int index = owner->second.second;
    ChildState& c = rec.children[static_cast<size_t>(index)];
    RequestOutput delta;
    delta.index = index;
    delta.token_ids = u.new_token_ids;
    auto& sr = result.seqs[slot.at(u.seq_id)];
    for (size_t k = 0; k < u.new_token_ids.size() && k < sr.logprobs.size(); ++k) {
      delta.logprobs.push_back(std::move(sr.logprobs[k]));
    }
    if (c.wants_prompt_logprobs && !c.prompt_logprobs_sent) {
      delta.prompt_logprobs = std::move(c.prompt_logprobs);
      c.prompt_logprobs_sent = true;
    }
    const int32_t num_new = static_cast<int32_t>(u.new_token_ids.size());
    metrics_->OnTokens(rec, c, num_new, now);
    if (c.num_output == 0 && num_new > 0) c.first_token = now;
    if (num_new > 0) c.last_token = now;
    c.num_output += num_new;
    if (u.finish != sched::SeqFinish::kNone) {
      const FinishReason reason = u.finish == sched::SeqFinish::kStop ? FinishReason::kStop : FinishReason::kLength;
      FinishChild(rec, index, reason, u.stop_token_id, OkStatus(), &delta);
      continue;
    }
    delta.num_prompt_tokens = rec.num_prompt;
    delta.num_cached_tokens = c.num_cached;
    delta.num_output_tokens = c.num_output;
    rec.channel->Push(std::move(delta));
  }
}

}  // namespace gemmad::engine
