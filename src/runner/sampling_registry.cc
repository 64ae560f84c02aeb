// SamplingRegistry: row selection for prompt logprobs and sampling, and their consumption.
#include "runner/sampling_registry.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "base/check.h"
#include "sample/logits_ops.h"

namespace gemmad::runner {

void SamplingRegistry::Apply(const sched::SchedulerOutput& out) {
  for (kv::SeqId id : out.finished_seq_ids) seqs_.erase(id);
  for (const sched::NewSequence& n : out.new_seqs) {
    GEMMAD_CHECK(!seqs_.count(n.seq_id), "sequence {} announced twice", n.seq_id);
    Entry e;
    e.prompt = n.prompt_token_ids;
    if (n.params.prompt_logprobs) e.num_prompt_logprobs = *n.params.prompt_logprobs;
    e.has_constraint = n.constraint != nullptr;
    e.sampler = std::make_unique<sample::SequenceSampler>(n.params, n.seed, e.prompt, n.eos_token_id, vocab_size_,
                                                          n.constraint);
    seqs_.emplace(n.seq_id, std::move(e));
  }
}

bool SamplingRegistry::HasConstraint(kv::SeqId id) const {
  auto it = seqs_.find(id);
  return it != seqs_.end() && it->second.has_constraint;
}

std::vector<int32_t> SamplingRegistry::LogitRows(const sched::ScheduledSeq& s) const {
  auto it = seqs_.find(s.seq_id);
  GEMMAD_CHECK(it != seqs_.end(), "sequence {} not registered with the runner", s.seq_id);
  const Entry& e = it->second;
  std::vector<int32_t> rows;
  if (e.num_prompt_logprobs >= 0) {
    // Position p's logits score prompt token p + 1.
    const int64_t prompt = static_cast<int64_t>(e.prompt.size());
    const int64_t first = std::max(s.num_computed_tokens, e.prompt_logprobs_done - 1);
    const int64_t end = std::min<int64_t>(s.num_computed_tokens + s.num_scheduled_tokens, prompt - 1);
    for (int64_t p = first; p < end; ++p) rows.push_back(static_cast<int32_t>(p - s.num_computed_tokens));
  }
  if (s.sample) {
    for (int32_t j = s.num_draft_tokens; j >= 0; --j) rows.push_back(s.num_scheduled_tokens - 1 - j);
  }
  return rows;
}

SeqStepResult SamplingRegistry::Consume(const sched::ScheduledSeq& s, std::span<float> rows,
                                        const kernels::ExecContext& exec) {
  auto it = seqs_.find(s.seq_id);
  GEMMAD_CHECK(it != seqs_.end(), "sequence {} not registered with the runner", s.seq_id);
  Entry& e = it->second;
  const std::vector<int32_t> offsets = LogitRows(s);
  const size_t v = static_cast<size_t>(vocab_size_);
  GEMMAD_CHECK(rows.size() == offsets.size() * v, "{} logits floats for {} rows", rows.size(), offsets.size());
  SeqStepResult r;
  r.seq_id = s.seq_id;
  size_t i = 0;
  const size_t num_prompt_rows = offsets.size() - (s.sample ? static_cast<size_t>(s.num_draft_tokens) + 1 : 0);
  for (; i < num_prompt_rows; ++i) {
    const int64_t target = s.num_computed_tokens + offsets[i] + 1;  // prompt index scored
    if (r.prompt_logprobs.empty()) r.prompt_logprobs_first = target;
    std::span<const float> row = rows.subspan(i * v, v);
    r.prompt_logprobs.push_back(
        sample::GatherLogprobs(row, e.prompt[static_cast<size_t>(target)], e.num_prompt_logprobs));
    e.prompt_logprobs_done = target + 1;
  }
  if (!s.sample) return r;
  const size_t first_draft = static_cast<size_t>(s.num_scheduled_tokens - s.num_draft_tokens);
  for (int32_t j = 0; j <= s.num_draft_tokens; ++j, ++i) {
    if (hook_) hook_(s, offsets[i], rows.subspan(i * v, v));
    auto sampled = e.sampler->Sample(rows.subspan(i * v, v), exec);
    if (!sampled.ok()) {
      r.error = sampled.status();
      return r;
    }
    r.sampled_token_ids.push_back(sampled->token_id);
    if (sampled->logprobs) r.logprobs.push_back(std::move(*sampled->logprobs));
    if (j == s.num_draft_tokens || sampled->token_id != s.token_ids[first_draft + static_cast<size_t>(j)]) break;
  }
  if (drafter_ && num_draft_tokens_ > 0) {
    const auto& out = e.sampler->output_token_ids();
    std::vector<int32_t> tokens;
    tokens.reserve(e.prompt.size() + out.size());
    tokens.insert(tokens.end(), e.prompt.begin(), e.prompt.end());
    tokens.insert(tokens.end(), out.begin(), out.end());
    r.draft_token_ids = drafter_->Propose(tokens, num_draft_tokens_);
  }
  return r;
}

}  // namespace gemmad::runner
