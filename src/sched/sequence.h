// Sequence: one output sequence as the scheduler tracks it (a request with n > 1 is n of them).
// vLLM v1's Request: tokens = prompt + output; num_computed_tokens of them are in the KV cache.
// Invariant: 0 <= num_computed_tokens <= num_tokens; block_hashes covers every full block of
// known tokens (hash i chains hash i-1; block 0 mixes in the cache salt; a block mixes in the
// content hash of every multimodal item whose placeholders it overlaps).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kv/block_hash.h"
#include "kv/types.h"
#include "mm/item.h"
#include "sample/sampling_params.h"
#include "sample/token_constraint.h"
#include "sched/scheduler_output.h"

namespace gemmad::sched {

using kv::SeqId;

// Everything known about a sequence when it is queued. The scheduler reads the prompt, the
// stop rules and cache settings; the rest travels once to the runner in
// SchedulerOutput::new_seqs (the scheduler keeps no copy of the constraint after that).
struct SequenceSpec {
  SeqId id = 0;
  std::vector<int32_t> prompt_token_ids;
  // Validated and Normalized, n == 1, max_tokens set (>= 1). The scheduler reads max_tokens,
  // min_tokens, ignore_eos, stop_token_ids and prompt_logprobs (which skips the prefix cache:
  // every prompt position must be computed).
  sample::SamplingParams params;
  uint64_t seed = 0;                     // the sequence's RNG seed (resolved by the engine)
  std::optional<int32_t> eos_token_id;   // the primary EOS (stops unless params.ignore_eos)
  std::shared_ptr<sample::TokenConstraint> constraint;  // may be null
  std::string cache_salt;
  // Sorted, disjoint placeholder ranges (mm/item.h): their content hashes enter the block
  // hashes of every block they overlap, and a bidirectional one is never split across steps.
  std::vector<mm::Item> mm_items;

  bool skip_prefix_cache() const { return params.prompt_logprobs.has_value(); }
};

enum class SeqStatus : uint8_t { kWaiting, kRunning, kFinished };
enum class SeqFinish : uint8_t { kNone, kStop, kLength };

class Sequence {
 public:
  Sequence(SequenceSpec spec, int32_t block_size);

  SeqId id() const { return spec_.id; }
  const SequenceSpec& spec() const { return spec_; }
  // The runner's half of the spec, handed out once (the first time the sequence is scheduled):
  // the constraint moves with it.
  bool announced() const { return announced_; }
  NewSequence Announce();
  const std::vector<int32_t>& token_ids() const { return tokens_; }
  int64_t num_tokens() const { return static_cast<int64_t>(tokens_.size()); }
  int64_t num_prompt_tokens() const { return static_cast<int64_t>(spec_.prompt_token_ids.size()); }
  int64_t num_output_tokens() const { return num_tokens() - num_prompt_tokens(); }
  const std::vector<kv::BlockHash>& block_hashes() const { return hashes_; }

  // Where a step that computes tokens [begin, end) must stop instead so that no bidirectional
  // item's placeholder span is split: before a span that starts inside the chunk, or `begin`
  // (nothing this step) when the chunk starts inside a span it cannot finish.
  int64_t ClampChunkEnd(int64_t begin, int64_t end) const;
  // Appends a generated token and extends block_hashes when a block becomes full.
  void AppendToken(int32_t token);
  // vLLM's check_stop after the last append: min_tokens, EOS, stop ids, then length.
  SeqFinish CheckStop(int64_t max_model_len, std::optional<int32_t>* stop_token_id) const;

  int64_t num_computed_tokens = 0;
  SeqStatus status = SeqStatus::kWaiting;
  std::optional<int64_t> num_cached_tokens;  // prefix hit at first admission (unset before)
  int32_t num_preemptions = 0;
  // Speculative drafts proposed by the runner for the tokens after the last one (verified in the
  // next step that schedules this sequence; dropped on preemption).
  std::vector<int32_t> draft_token_ids;

 private:
  void ExtendHashes();
  std::string ExtraKeys(size_t block) const;  // salt (block 0) + overlapping items' hashes

  SequenceSpec spec_;
  bool announced_ = false;
  int32_t block_size_;
  std::vector<int32_t> tokens_;
  std::vector<kv::BlockHash> hashes_;
};

}  // namespace gemmad::sched
