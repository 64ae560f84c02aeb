// Scheduler: running sequences first (with recompute preemption), then FCFS admission.
#include "sched/scheduler.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "base/check.h"

namespace gemmad::sched {

Scheduler::Scheduler(SchedulerConfig config, kv::KvCacheConfig kv_config)
    : config_(config), kv_(std::move(kv_config)) {
  GEMMAD_CHECK(config_.max_num_seqs > 0 && config_.max_num_batched_tokens > 0 && config_.max_model_len > 0,
               "scheduler limits must be positive");
  max_sequence_tokens_ = kv_.MaxSequenceTokens(config_.max_num_batched_tokens, config_.max_model_len);
}

void Scheduler::Add(SequenceSpec spec) {
  // The engine admitted the request (engine::ValidateRequest); a spec that breaks these is a bug.
  GEMMAD_CHECK(!seqs_.count(spec.id), "sequence {} already exists", spec.id);
  const int64_t prompt = static_cast<int64_t>(spec.prompt_token_ids.size());
  const int64_t max_tokens = spec.params.max_tokens.value_or(0);
  GEMMAD_CHECK(prompt > 0 && max_tokens >= 1, "sequence {}: empty prompt or max_tokens {}", spec.id, max_tokens);
  GEMMAD_CHECK(prompt + max_tokens <= max_sequence_tokens_,
               "sequence {}: prompt {} + max_tokens {} exceeds the admitted maximum {}", spec.id, prompt,
               max_tokens, max_sequence_tokens_);
  auto seq = std::make_unique<Sequence>(std::move(spec), kv_.block_size());
  waiting_.push_back(seq.get());
  seqs_.emplace(seq->id(), std::move(seq));
}

bool Scheduler::Remove(SeqId id) {
  auto it = seqs_.find(id);
  if (it == seqs_.end()) return false;
  Sequence* s = it->second.get();
  if (s->status == SeqStatus::kRunning) {
    running_.erase(std::find(running_.begin(), running_.end(), s));
  } else {
    waiting_.erase(std::find(waiting_.begin(), waiting_.end(), s));
  }
  kv_.Free(id);
  if (s->announced()) finished_.push_back(id);
  seqs_.erase(it);
  return true;
}

const Sequence* Scheduler::Find(SeqId id) const {
  auto it = seqs_.find(id);
  return it == seqs_.end() ? nullptr : it->second.get();
}

void Scheduler::Preempt(Sequence* seq) {
  kv_.Free(seq->id());
  seq->draft_token_ids.clear();
  seq->num_computed_tokens = 0;
  seq->status = SeqStatus::kWaiting;
  ++seq->num_preemptions;
  ++stats_.num_preemptions;
  waiting_.push_front(seq);
}

ScheduledSeq Scheduler::MakeScheduled(const Sequence& seq, int64_t num_computed, int64_t num_new,
                                       int64_t num_drafts) const {
  ScheduledSeq s;
  s.seq_id = seq.id();
  s.num_computed_tokens = num_computed;
  s.num_scheduled_tokens = static_cast<int32_t>(num_new + num_drafts);
  s.num_draft_tokens = static_cast<int32_t>(num_drafts);
  const auto& tokens = seq.token_ids();
  s.token_ids.assign(tokens.begin() + num_computed, tokens.begin() + num_computed + num_new);
  s.token_ids.insert(s.token_ids.end(), seq.draft_token_ids.begin(), seq.draft_token_ids.begin() + num_drafts);
  s.block_tables.reserve(static_cast<size_t>(kv_.num_groups()));
  for (int g = 0; g < kv_.num_groups(); ++g) s.block_tables.push_back(kv_.BlockTable(seq.id(), g));
  s.num_prompt_tokens = seq.num_prompt_tokens();
  s.sample = num_computed + num_new == seq.num_tokens();
  return s;
}

int64_t Scheduler::UsableDrafts(const Sequence& seq, int64_t budget) const {
  if (seq.draft_token_ids.empty() || seq.num_tokens() - seq.num_computed_tokens != 1) return 0;
  const int64_t max_tokens = seq.spec().params.max_tokens.value_or(0);
  int64_t n = static_cast<int64_t>(seq.draft_token_ids.size());
  n = std::min(n, budget - 1);
  // The last token is the target's own. Admission keeps prompt + max_tokens within
  // max_sequence_tokens(), so the drafted positions stay in the cache's reach too.
  n = std::min(n, max_tokens - seq.num_output_tokens() - 1);
  return std::max<int64_t>(0, n);
}

bool Scheduler::ScheduleRunning(SchedulerOutput* out, int64_t* budget) {
  size_t i = 0;
  while (i < running_.size() && *budget > 0) {
    Sequence* s = running_[i];
    GEMMAD_CHECK(s->num_tokens() > s->num_computed_tokens, "running sequence {} has nothing to compute", s->id());
    const int64_t want = std::min(s->num_tokens() - s->num_computed_tokens, *budget);
    const int64_t num_new = s->ClampChunkEnd(s->num_computed_tokens, s->num_computed_tokens + want) -
                            s->num_computed_tokens;
    if (num_new == 0) {  // a bidirectional span does not fit the budget left: next step
      ++i;
      continue;
    }
    int64_t num_drafts = UsableDrafts(*s, *budget);
    bool allocated = false;
    while (!allocated) {
      allocated = kv_.Allocate(s->id(), nullptr, s->num_computed_tokens, num_new + num_drafts);
      if (allocated) break;
      if (num_drafts > 0) {  // drafts are the first thing to give up
        num_drafts = 0;
        continue;
      }
      Sequence* victim = running_.back();  // the most recently admitted
      running_.pop_back();
      Preempt(victim);
      out->preempted_seq_ids.push_back(victim->id());
      if (victim == s) break;
    }
    if (!allocated) break;  // `s` preempted itself; nothing after it is left
    out->seqs.push_back(MakeScheduled(*s, s->num_computed_tokens, num_new, num_drafts));
    s->draft_token_ids.clear();
    *budget -= num_new + num_drafts;
    ++i;
  }
  return !out->preempted_seq_ids.empty();
}

void Scheduler::ScheduleWaiting(SchedulerOutput* out, int64_t* budget) {
  while (!waiting_.empty() && *budget > 0 &&
         static_cast<int64_t>(running_.size()) < config_.max_num_seqs) {
    Sequence* s = waiting_.front();
    kv::CacheHit hit;
    if (!s->spec().skip_prefix_cache()) {
      // At least one token is always computed, so that the step produces logits.
      hit = kv_.FindCachedPrefix(s->block_hashes(), s->num_tokens() - 1);
    }
    const int64_t num_computed = hit.num_tokens;
    const int64_t num_new =
        s->ClampChunkEnd(num_computed, num_computed + std::min(s->num_tokens() - num_computed, *budget)) - num_computed;
    if (num_new == 0) break;  // a bidirectional span does not fit the budget left (FCFS: wait)
    if (!kv_.Allocate(s->id(), &hit, num_computed, num_new)) break;  // FCFS: nobody overtakes
    if (kv_.config().enable_prefix_caching && !s->spec().skip_prefix_cache()) {
      stats_.prefix_cache_queries += static_cast<uint64_t>(s->num_tokens());
      stats_.prefix_cache_hits += static_cast<uint64_t>(num_computed);
    }
    waiting_.pop_front();
    s->status = SeqStatus::kRunning;
    s->num_computed_tokens = num_computed;
    if (!s->num_cached_tokens) s->num_cached_tokens = num_computed;
    running_.push_back(s);
    out->seqs.push_back(MakeScheduled(*s, num_computed, num_new));
    *budget -= num_new;
  }
}

SchedulerOutput Scheduler::Schedule() {
  SchedulerOutput out;
  out.block_size = kv_.block_size();
  int64_t budget = config_.max_num_batched_tokens;
  // vLLM: no admissions in a step that had to preempt.
  if (!ScheduleRunning(&out, &budget)) ScheduleWaiting(&out, &budget);
  out.total_num_scheduled_tokens = config_.max_num_batched_tokens - budget;
  if (out.seqs.empty()) return out;  // nothing runs: finished ids wait for the next real step
  out.finished_seq_ids = std::move(finished_);
  finished_.clear();
  for (const ScheduledSeq& ss : out.seqs) {
    Sequence* s = seqs_.at(ss.seq_id).get();
    if (!s->announced()) out.new_seqs.push_back(s->Announce());
  }
  return out;
}

std::vector<SeqUpdate> Scheduler::Update(const SchedulerOutput& out,
                                         std::span<const std::vector<int32_t>> sampled,
                                         std::span<const std::vector<int32_t>> drafts) {
  GEMMAD_CHECK(sampled.size() == out.seqs.size(), "{} sampled lists for {} scheduled sequences",
               sampled.size(), out.seqs.size());
  GEMMAD_CHECK(drafts.empty() || drafts.size() == out.seqs.size(), "{} draft lists for {} scheduled sequences",
               drafts.size(), out.seqs.size());
  std::vector<SeqUpdate> updates;
  for (size_t i = 0; i < out.seqs.size(); ++i) {
    const ScheduledSeq& ss = out.seqs[i];
    auto it = seqs_.find(ss.seq_id);
    if (it == seqs_.end()) continue;  // removed after scheduling
    Sequence* s = it->second.get();
    GEMMAD_CHECK(s->status == SeqStatus::kRunning && s->num_computed_tokens == ss.num_computed_tokens,
                 "sequence {} changed between Schedule and Update", ss.seq_id);
    const int32_t num_drafts = ss.num_draft_tokens;
    s->num_computed_tokens += ss.num_scheduled_tokens - num_drafts;
    if (sampled[i].empty()) {
      kv_.CacheComputedBlocks(s->id(), s->block_hashes(), s->num_computed_tokens);
      continue;
    }
    GEMMAD_CHECK(ss.sample, "tokens sampled for sequence {} mid-prompt", ss.seq_id);
    GEMMAD_CHECK(static_cast<int64_t>(sampled[i].size()) <= num_drafts + 1, "{} tokens for sequence {} with {} drafts",
                 sampled[i].size(), ss.seq_id, num_drafts);
    SeqUpdate u;
    u.seq_id = ss.seq_id;
    const size_t first_draft = static_cast<size_t>(ss.num_scheduled_tokens - num_drafts);
    for (size_t k = 0; k < sampled[i].size(); ++k) {
      const int32_t t = sampled[i][k];
      if (k + 1 < sampled[i].size()) {  // an accepted draft: its KV is already computed
        GEMMAD_CHECK(t == ss.token_ids[first_draft + k], "sequence {}: token {} accepted for draft {}", ss.seq_id, t,
                     ss.token_ids[first_draft + k]);
        ++s->num_computed_tokens;
      }
      s->AppendToken(t);
      u.new_token_ids.push_back(t);
      u.finish = s->CheckStop(config_.max_model_len, &u.stop_token_id);
      if (u.finish != SeqFinish::kNone) break;
    }
    // Rejected drafts' blocks go back to the pool (their slots would be rewritten anyway).
    if (num_drafts > 0) kv_.Trim(s->id(), s->num_computed_tokens);
    kv_.CacheComputedBlocks(s->id(), s->block_hashes(), s->num_computed_tokens);
    if (u.finish != SeqFinish::kNone) {
      Remove(ss.seq_id);
    } else if (!drafts.empty()) {
      s->draft_token_ids = drafts[i];
    }
    updates.push_back(std::move(u));
  }
  return updates;
}

void Scheduler::CheckInvariants() const {
  kv_.CheckInvariants();
  GEMMAD_CHECK(running_.size() + waiting_.size() == seqs_.size(), "{} running + {} waiting != {} sequences",
               running_.size(), waiting_.size(), seqs_.size());
  GEMMAD_CHECK(static_cast<int64_t>(running_.size()) <= config_.max_num_seqs, "too many running sequences");
  const int64_t bs = kv_.block_size();
  for (const Sequence* s : running_) {
    GEMMAD_CHECK(s->status == SeqStatus::kRunning, "sequence {} in running list but not running", s->id());
    GEMMAD_CHECK(s->num_computed_tokens < s->num_tokens(), "running sequence {} has nothing left", s->id());
    for (int g = 0; g < kv_.num_groups(); ++g) {
      const auto& table = kv_.BlockTable(s->id(), g);
      GEMMAD_CHECK(static_cast<int64_t>(table.size()) >= kv::CeilDiv(s->num_computed_tokens, bs),
                   "sequence {} group {} lacks blocks for its computed tokens", s->id(), g);
      if (kv_.config().groups[static_cast<size_t>(g)].kind == kv::KvGroupKind::kFull) {
        for (kv::BlockId b : table) GEMMAD_CHECK(b != kv::kNullBlock, "null block in a full group");
      }
    }
  }
  for (const Sequence* s : waiting_) {
    GEMMAD_CHECK(s->status == SeqStatus::kWaiting && s->num_computed_tokens == 0 && !kv_.has_seq(s->id()),
                 "waiting sequence {} holds state", s->id());
  }
}

}  // namespace gemmad::sched
