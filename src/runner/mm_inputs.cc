// MultimodalInputs: encoder outputs as embedding overrides for the scheduled rows.
#include "runner/mm_inputs.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace gemmad::runner {

void MultimodalInputs::Apply(const sched::SchedulerOutput& out) {
  for (kv::SeqId id : out.finished_seq_ids) seqs_.erase(id);
  for (const sched::NewSequence& n : out.new_seqs) {
    if (n.mm_items.empty()) continue;
    Entry e;
    e.items = n.mm_items;
    e.encodings.resize(e.items.size());
    seqs_.emplace(n.seq_id, std::move(e));
  }
  for (auto it = shared_.begin(); it != shared_.end();) it = it->second.expired() ? shared_.erase(it) : std::next(it);
}

size_t MultimodalInputs::num_cached_encodings() const {
  size_t n = 0;
  for (const auto& [hash, weak] : shared_) n += weak.expired() ? 0 : 1;
  return n;
}

Result<MultimodalInputs::Encoding> MultimodalInputs::EncodingOf(const mm::Item& item, Encoding* slot) {
  if (*slot) return *slot;
  if (auto it = shared_.find(item.hash); it != shared_.end()) {
    if (Encoding e = it->second.lock(); e && static_cast<int64_t>(e->size()) == item.placeholder_length * hidden_) {
      return *slot = e;
    }
  }
  if (encoder_ == nullptr || !encoder_->Supports(item.modality)) {
    return UnimplementedError(fmt::format("this model has no {} encoder", mm::ModalityName(item.modality)));
  }
  GEMMAD_ASSIGN_OR_RETURN(std::vector<float> rows, encoder_->Encode(item));
  if (static_cast<int64_t>(rows.size()) != item.placeholder_length * hidden_) {
    return InternalError(fmt::format("the {} encoder produced {} floats for {} placeholder rows of width {}",
                                     mm::ModalityName(item.modality), rows.size(), item.placeholder_length, hidden_));
  }
  Encoding e = std::make_shared<const std::vector<float>>(std::move(rows));
  shared_[item.hash] = e;
  return *slot = e;
}

Status MultimodalInputs::AddInputs(const sched::ScheduledSeq& s, int64_t token_begin, model::ForwardBatch* batch,
                                   model::SequenceInBatch* seq) {
  auto it = seqs_.find(s.seq_id);
  if (it == seqs_.end()) return OkStatus();
  Entry& e = it->second;
  const int64_t begin = s.num_computed_tokens, end = begin + s.num_scheduled_tokens;
  for (size_t i = 0; i < e.items.size(); ++i) {
    const mm::Item& item = e.items[i];
    if (item.bidirectional) seq->bidirectional_spans.push_back({item.placeholder_offset, item.placeholder_end()});
    const int64_t lo = std::max(begin, item.placeholder_offset), hi = std::min(end, item.placeholder_end());
    if (lo >= hi) continue;
    GEMMAD_ASSIGN_OR_RETURN(Encoding enc, EncodingOf(item, &e.encodings[i]));
    model::EmbeddingOverride o;
    o.row = token_begin + (lo - begin);
    o.num_rows = hi - lo;
    o.data = enc->data() + (lo - item.placeholder_offset) * hidden_;
    batch->embedding_overrides.push_back(o);
  }
  return OkStatus();
}

}  // namespace gemmad::runner
