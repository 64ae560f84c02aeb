// MultimodalInputs: the runner's per-sequence multimodal state, created from
// SchedulerOutput::new_seqs and dropped for finished_seq_ids like the sampling state. For each
// scheduled chunk it says which rows take encoder outputs instead of token embeddings, encoding
// each item the first time one of its rows is scheduled (one encoding per content hash shared
// by every live sequence that holds it), and which key spans attend both ways.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/result.h"
#include "mm/item.h"
#include "model/forward_batch.h"
#include "runner/mm_encoder.h"
#include "sched/scheduler_output.h"

namespace gemmad::runner {

class MultimodalInputs {
 public:
  // `encoder` may be null (text-only runner); `hidden_size` is the width of one embedding row.
  MultimodalInputs(MultimodalEncoder* encoder, int64_t hidden_size) : encoder_(encoder), hidden_(hidden_size) {}

  void Apply(const sched::SchedulerOutput& out);
  // Appends to `batch` the overrides for rows [token_begin, token_begin + num_scheduled) of `s`
  // and to `seq` its bidirectional spans; errors when an item cannot be encoded (the step fails
  // for this sequence only: the caller reports it and leaves the sequence out).
  Status AddInputs(const sched::ScheduledSeq& s, int64_t token_begin, model::ForwardBatch* batch,
                   model::SequenceInBatch* seq);
  bool Has(kv::SeqId id) const { return seqs_.count(id) != 0; }
  size_t num_cached_encodings() const;

 private:
  using Encoding = std::shared_ptr<const std::vector<float>>;  // [placeholder_length, hidden]
  struct HashKey {
    size_t operator()(const mm::ContentHash& h) const { return static_cast<size_t>(h.lo ^ (h.hi * 0x9E3779B97F4A7C15ull)); }
  };
  Result<Encoding> EncodingOf(const mm::Item& item, Encoding* slot);

  MultimodalEncoder* encoder_;
  int64_t hidden_;
  struct Entry {
    std::vector<mm::Item> items;
    std::vector<Encoding> encodings;  // parallel to items; null until first needed
  };
  std::unordered_map<kv::SeqId, Entry> seqs_;
  std::unordered_map<mm::ContentHash, std::weak_ptr<const std::vector<float>>, HashKey> shared_;
};

}  // namespace gemmad::runner
