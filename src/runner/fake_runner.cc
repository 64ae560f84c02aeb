// FakeRunner: fake paged KV writes/reads through the block tables, hash-derived logits.
#include "runner/fake_runner.h"

#include <algorithm>
#include <bit>
#include <thread>

#include "base/check.h"

namespace gemmad::runner {
namespace {

inline uint64_t Mix(uint64_t a, uint64_t b) {
  uint64_t x = a ^ (b + 0x9E3779B97F4A7C15ull + (a << 6) + (a >> 2));
  x ^= x >> 31;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 29;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 32;
  return x;
}

}  // namespace

FakeRunner::FakeRunner(FakeRunnerConfig config)
    : config_(std::move(config)), registry_(config_.vocab_size), mm_(config_.encoder.get(), config_.mm_hidden) {
  bool found = false;
  for (size_t g = 0; g < config_.kv.groups.size(); ++g) {
    slots_.emplace_back(static_cast<size_t>(config_.kv.groups[g].num_blocks * config_.kv.block_size));
    if (!found && config_.kv.groups[g].kind == kv::KvGroupKind::kFull) {
      chain_group_ = g;
      found = true;
    }
  }
  GEMMAD_CHECK(found, "FakeRunner needs at least one full-attention KV group");
}

uint64_t FakeRunner::ExtendPrefixHash(uint64_t prev, int32_t token) {
  return Mix(prev, static_cast<uint64_t>(static_cast<uint32_t>(token)) + 1);
}
uint64_t FakeRunner::EmptyPrefixHash(const FakeRunnerConfig& cfg) { return Mix(cfg.model_seed, 0x5EED); }

void FakeRunner::ModelLogits(const FakeRunnerConfig& cfg, uint64_t prefix_hash,
                             const std::vector<std::vector<int32_t>>& window_tokens, std::span<float> out) {
  uint64_t ctx = Mix(cfg.model_seed, prefix_hash);
  for (const auto& w : window_tokens) {
    for (int32_t t : w) ctx = Mix(ctx, static_cast<uint64_t>(static_cast<uint32_t>(t)) + 7);
    ctx = Mix(ctx, 0xABCDEF);
  }
  for (size_t v = 0; v < out.size(); ++v) {
    const double u = static_cast<double>(Mix(ctx, v) >> 11) * 0x1.0p-53;
    out[v] = static_cast<float>((2.0 * u - 1.0) * cfg.logit_scale);
  }
  if (cfg.eos_token_id) out[static_cast<size_t>(*cfg.eos_token_id)] += cfg.eos_bias;
}

FakeRunner::Slot& FakeRunner::SlotAt(size_t group, const sched::ScheduledSeq& s, int64_t position) {
  const int64_t bs = config_.kv.block_size;
  const auto& table = s.block_tables[group];
  const int64_t j = position / bs;
  GEMMAD_CHECK(j < static_cast<int64_t>(table.size()), "seq {} group {}: no block for position {}",
               s.seq_id, group, position);
  const kv::BlockId b = table[static_cast<size_t>(j)];
  GEMMAD_CHECK(b != kv::kNullBlock, "seq {} group {}: position {} maps to the null block", s.seq_id, group, position);
  return slots_[group][static_cast<size_t>(b * bs + position % bs)];
}

const FakeRunner::Slot& FakeRunner::ReadSlot(size_t group, const sched::ScheduledSeq& s, int64_t position) {
  const Slot& slot = SlotAt(group, s, position);
  GEMMAD_CHECK(slot.position == position, "seq {} group {}: block {} slot holds position {}, expected {}",
               s.seq_id, group, s.block_tables[group][static_cast<size_t>(position / config_.kv.block_size)],
               slot.position, position);
  return slot;
}

void FakeRunner::WritePositions(const sched::ScheduledSeq& s, const std::vector<model::EmbeddingOverride>& overrides) {
  GEMMAD_CHECK(static_cast<int32_t>(s.token_ids.size()) == s.num_scheduled_tokens, "token_ids size mismatch");
  GEMMAD_CHECK(s.block_tables.size() == slots_.size(), "block tables for {} groups, runner has {}",
               s.block_tables.size(), slots_.size());
  for (int32_t i = 0; i < s.num_scheduled_tokens; ++i) {
    const int64_t p = s.num_computed_tokens + i;
    int32_t token = s.token_ids[static_cast<size_t>(i)];
    for (const auto& o : overrides) {  // an encoder row: its bits stand in for the token
      if (i < o.row || i >= o.row + o.num_rows) continue;
      uint64_t h = 0x1234;
      const float* row = o.data + (i - o.row) * config_.mm_hidden;
      for (int64_t d = 0; d < config_.mm_hidden; ++d) h = Mix(h, std::bit_cast<uint32_t>(row[d]));
      token = -1 - static_cast<int32_t>(h & 0x3FFFFFFF);
    }
    const uint64_t prev = p == 0 ? EmptyPrefixHash(config_) : ReadSlot(chain_group_, s, p - 1).prefix_hash;
    const uint64_t h = ExtendPrefixHash(prev, token);
    for (size_t g = 0; g < slots_.size(); ++g) SlotAt(g, s, p) = Slot{p, token, h};
  }
}

void FakeRunner::Logits(const sched::ScheduledSeq& s, int64_t position, std::span<float> out) {
  const uint64_t h = ReadSlot(chain_group_, s, position).prefix_hash;
  std::vector<std::vector<int32_t>> windows;
  for (size_t g = 0; g < slots_.size(); ++g) {
    const auto& spec = config_.kv.groups[g];
    if (spec.kind != kv::KvGroupKind::kSliding) continue;
    auto& w = windows.emplace_back();
    for (int64_t q = std::max<int64_t>(0, position - spec.sliding_window + 1); q <= position; ++q) {
      w.push_back(ReadSlot(g, s, q).token);
    }
  }
  ModelLogits(config_, h, windows, out);
}

Result<StepResult> FakeRunner::Execute(const sched::SchedulerOutput& out) {
  registry_.Apply(out);
  mm_.Apply(out);
  const int64_t step = num_steps_.fetch_add(1);
  if (step == config_.fail_at_step) return InternalError("FakeRunner: injected failure");
  if (config_.step_delay.count() > 0) std::this_thread::sleep_for(config_.step_delay);
  int64_t prev_max = max_batch_seqs_.load();
  const int64_t n = static_cast<int64_t>(out.seqs.size());
  while (n > prev_max && !max_batch_seqs_.compare_exchange_weak(prev_max, n)) {
  }
  StepResult result;
  const size_t v = static_cast<size_t>(config_.vocab_size);
  std::vector<float> rows;
  for (const auto& s : out.seqs) {
    model::ForwardBatch chunk;
    model::SequenceInBatch seq;
    GEMMAD_RETURN_IF_ERROR(mm_.AddInputs(s, 0, &chunk, &seq));
    WritePositions(s, chunk.embedding_overrides);
    const std::vector<int32_t> offsets = registry_.LogitRows(s);
    rows.assign(offsets.size() * v, 0.0f);
    for (size_t i = 0; i < offsets.size(); ++i) {
      Logits(s, s.num_computed_tokens + offsets[i], std::span<float>(rows).subspan(i * v, v));
    }
    result.seqs.push_back(registry_.Consume(s, rows));
  }
  return result;
}

}  // namespace gemmad::runner
