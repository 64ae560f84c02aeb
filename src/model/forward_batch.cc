// ForwardBatch validation: everything a step relies on, checked before any work is done.
#include "model/forward_batch.h"

#include <algorithm>
#include <string>

namespace gemmad::model {
namespace {

Status Bad(size_t s, const std::string& msg) {
  return InvalidArgumentError("forward batch: sequence " + std::to_string(s) + ": " + msg);
}

Status ValidateTables(const SequenceInBatch& sq, size_t s, const KvCacheSpec& spec,
                      const std::vector<int64_t>& num_blocks) {
  if (sq.block_tables.size() != spec.groups.size()) {
    return Bad(s, std::to_string(sq.block_tables.size()) + " block tables for " +
                      std::to_string(spec.groups.size()) + " KV groups");
  }
  const int64_t end = sq.num_computed_tokens + sq.num_tokens;
  for (size_t g = 0; g < spec.groups.size(); ++g) {
    const auto& grp = spec.groups[g];
    const auto& table = sq.block_tables[g];
    if (static_cast<int64_t>(table.size()) < grp.EndBlock(end)) {
      return Bad(s, "block table of group " + std::to_string(g) + " has " + std::to_string(table.size()) +
                        " entries, needs " + std::to_string(grp.EndBlock(end)));
    }
    // The step reads from the window of its first query onwards and writes its own tokens.
    for (int64_t b = grp.FirstLiveBlock(sq.num_computed_tokens); b < grp.EndBlock(end); ++b) {
      if (table[b] < 0 || table[b] >= num_blocks[g]) {
        return Bad(s, "group " + std::to_string(g) + " logical block " + std::to_string(b) + " maps to " +
                          std::to_string(table[b]) + " (cache has " + std::to_string(num_blocks[g]) + " blocks)");
      }
    }
  }
  return OkStatus();
}

}  // namespace

int64_t ForwardBatch::num_logit_rows() const {
  int64_t n = 0;
  for (const auto& s : sequences) n += static_cast<int64_t>(s.logit_offsets.size());
  return n;
}

Status ValidateForwardBatch(const ForwardBatch& batch, const KvCacheSpec& spec,
                            const std::vector<int64_t>& num_blocks, int64_t vocab_size) {
  const int64_t n = batch.num_tokens();
  if (static_cast<int64_t>(batch.positions.size()) != n) {
    return InvalidArgumentError("forward batch: " + std::to_string(batch.positions.size()) + " positions for " +
                                std::to_string(n) + " tokens");
  }
  for (int64_t i = 0; i < n; ++i) {
    if (batch.token_ids[i] < 0 || batch.token_ids[i] >= vocab_size) {
      return InvalidArgumentError("forward batch: token id " + std::to_string(batch.token_ids[i]) + " at row " +
                                  std::to_string(i) + " is outside the vocabulary [0, " + std::to_string(vocab_size) +
                                  ")");
    }
    if (batch.positions[i] < 0) return InvalidArgumentError("forward batch: negative position at row " + std::to_string(i));
  }
  std::vector<bool> used(static_cast<size_t>(n), false);
  for (size_t s = 0; s < batch.sequences.size(); ++s) {
    const auto& sq = batch.sequences[s];
    if (sq.token_begin < 0 || sq.num_tokens < 0 || sq.token_begin + sq.num_tokens > n || sq.num_computed_tokens < 0) {
      return Bad(s, "token range or num_computed_tokens out of bounds");
    }
    for (int64_t i = sq.token_begin; i < sq.token_begin + sq.num_tokens; ++i) {
      if (used[i]) return Bad(s, "token rows overlap another sequence");
      used[i] = true;
    }
    for (size_t k = 0; k < sq.logit_offsets.size(); ++k) {
      if (sq.logit_offsets[k] < 0 || sq.logit_offsets[k] >= sq.num_tokens ||
          (k > 0 && sq.logit_offsets[k] <= sq.logit_offsets[k - 1])) {
        return Bad(s, "logit offsets must be ascending and inside the sequence's rows");
      }
    }
    GEMMAD_RETURN_IF_ERROR(ValidateTables(sq, s, spec, num_blocks));
    int64_t span_floor = 0;
    for (const auto& span : sq.bidirectional_spans) {
      if (span.begin < span_floor || span.end <= span.begin) {
        return Bad(s, "bidirectional spans must be non-empty, non-negative, ascending and disjoint");
      }
      span_floor = span.end;
    }
  }
  int64_t prev_end = 0;
  for (const auto& o : batch.embedding_overrides) {
    if (o.row < prev_end || o.num_rows < 1 || o.row + o.num_rows > n || o.data == nullptr) {
      return InvalidArgumentError("forward batch: embedding overrides must be disjoint, ascending, non-empty and "
                                  "inside the batch, with data");
    }
    prev_end = o.row + o.num_rows;
  }
  return OkStatus();
}

ForwardBatch SingleSequenceBatch(const std::vector<int32_t>& ids, int64_t num_computed,
                                 std::vector<std::vector<int32_t>> block_tables, bool all_logits) {
  ForwardBatch b;
  b.token_ids = ids;
  const int64_t n = static_cast<int64_t>(ids.size());
  for (int64_t i = 0; i < n; ++i) b.positions.push_back(static_cast<int32_t>(num_computed + i));
  SequenceInBatch s;
  s.num_tokens = n;
  s.num_computed_tokens = num_computed;
  if (all_logits) {
    for (int64_t i = 0; i < n; ++i) s.logit_offsets.push_back(static_cast<int32_t>(i));
  } else if (n > 0) {
    s.logit_offsets.push_back(static_cast<int32_t>(n - 1));
  }
  s.block_tables = std::move(block_tables);
  b.sequences.push_back(std::move(s));
  return b;
}

}  // namespace gemmad::model
