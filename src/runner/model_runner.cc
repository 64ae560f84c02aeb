// ModelRunner: SchedulerOutput -> ForwardBatch -> Model::Forward -> sampling -> StepResult.
#include "runner/model_runner.h"

#include <fmt/format.h>

#include <utility>

#include "kernels/backend.h"

namespace gemmad::runner {

std::vector<kv::KvGroupSpec> KvGroupsForSpec(const model::KvCacheSpec& spec) {
  std::vector<kv::KvGroupSpec> groups;
  for (const auto& g : spec.groups) {
    kv::KvGroupSpec k;
    const bool sliding = g.kind == model::KvGroupKind::kSliding;
    k.kind = sliding ? kv::KvGroupKind::kSliding : kv::KvGroupKind::kFull;
    k.sliding_window = static_cast<int32_t>(sliding ? g.window : 0);
    k.bytes_per_block = g.bytes_per_block();
    k.name = fmt::format("{}(layers={}, heads={}, head_dim={})", sliding ? "sliding" : "full", g.layers.size(),
                         g.num_kv_heads, g.head_dim);
    groups.push_back(std::move(k));
  }
  return groups;
}

kv::KvCacheConfig KvConfigForSpec(const model::KvCacheSpec& spec, const std::vector<int64_t>& num_blocks,
                                  bool enable_prefix_caching) {
  kv::KvCacheConfig c;
  c.block_size = spec.groups.empty() ? 16 : static_cast<int32_t>(spec.groups[0].block_size);
  c.enable_prefix_caching = enable_prefix_caching;
  c.groups = KvGroupsForSpec(spec);
  for (size_t g = 0; g < c.groups.size() && g < num_blocks.size(); ++g) c.groups[g].num_blocks = num_blocks[g];
  return c;
}

Result<std::unique_ptr<ModelRunner>> ModelRunner::Create(std::unique_ptr<model::gemma4::Model> model,
                                                         const kv::KvCacheConfig& kv, kernels::ExecContext exec,
                                                         std::optional<tensor::DType> kv_dtype,
                                                         std::unique_ptr<MultimodalEncoder> encoder) {
  if (!model) return InvalidArgumentError("ModelRunner: no model");
  model::KvCacheSpec spec = model->MakeKvCacheSpec(kv.block_size, kv_dtype);
  if (spec.groups.size() != kv.groups.size()) {
    return InvalidArgumentError(fmt::format("ModelRunner: the model has {} KV groups, the engine config {}",
                                            spec.groups.size(), kv.groups.size()));
  }
  std::vector<int64_t> cache_blocks;
  for (size_t g = 0; g < kv.groups.size(); ++g) {
    const auto& m = spec.groups[g];
    const auto& e = kv.groups[g];
    const bool sliding = m.kind == model::KvGroupKind::kSliding;
    if (sliding != (e.kind == kv::KvGroupKind::kSliding) || (sliding && m.window != e.sliding_window)) {
      return InvalidArgumentError(fmt::format("ModelRunner: KV group {} ({}) does not match the model's", g, e.name));
    }
    if (e.num_blocks < 2) return InvalidArgumentError(fmt::format("ModelRunner: KV group {} has no blocks", g));
    cache_blocks.push_back(e.num_blocks - 1);  // pool id 0 is the null block
  }
  GEMMAD_ASSIGN_OR_RETURN(auto cache, model::KvCache::Create(spec, cache_blocks, *kernels::BackendOf(exec).allocator));
  return std::unique_ptr<ModelRunner>(new ModelRunner(std::move(model), std::move(cache), exec, std::move(encoder)));
}

ModelRunner::ModelRunner(std::unique_ptr<model::gemma4::Model> model, std::unique_ptr<model::KvCache> cache,
                         kernels::ExecContext exec, std::unique_ptr<MultimodalEncoder> encoder)
    : model_(std::move(model)),
      cache_(std::move(cache)),
      exec_(exec),
      registry_(static_cast<int32_t>(model_->config().vocab_size)),
      encoder_(std::move(encoder)),
      mm_(encoder_.get(), model_->config().hidden_size) {}

void ModelRunner::SetMtpAssistant(std::unique_ptr<model::gemma4::Assistant> assistant, int32_t num_tokens) {
  model_->set_keep_logit_hidden(true);
  mtp_ = std::make_unique<MtpDrafter>(std::move(assistant), *model_, num_tokens);
}

Result<StepResult> ModelRunner::Execute(const sched::SchedulerOutput& out) {
  registry_.Apply(out);
  mm_.Apply(out);
  model::ForwardBatch batch;
  std::vector<std::vector<int32_t>> rows_per_seq;
  for (const auto& s : out.seqs) {
    model::SequenceInBatch seq;
    seq.token_begin = batch.num_tokens();
    seq.num_tokens = s.num_scheduled_tokens;
    seq.num_computed_tokens = s.num_computed_tokens;
    for (int32_t i = 0; i < s.num_scheduled_tokens; ++i) {
      batch.token_ids.push_back(s.token_ids[static_cast<size_t>(i)]);
      batch.positions.push_back(static_cast<int32_t>(s.num_computed_tokens + i));
    }
    GEMMAD_RETURN_IF_ERROR(mm_.AddInputs(s, seq.token_begin, &batch, &seq));
    seq.logit_offsets = registry_.LogitRows(s);
    rows_per_seq.push_back(seq.logit_offsets);
    for (const auto& table : s.block_tables) {
      std::vector<int32_t> t(table.size());
      for (size_t j = 0; j < table.size(); ++j) t[j] = table[j] == kv::kNullBlock ? -1 : table[j] - 1;
      seq.block_tables.push_back(std::move(t));
    }
    batch.sequences.push_back(std::move(seq));
  }
  const int64_t vocab = model_->config().vocab_size;
  const int64_t rows = batch.num_logit_rows();
  logits_.assign(static_cast<size_t>(rows * vocab), 0.0f);
  if (rows > 0 || batch.num_tokens() > 0) {
    tensor::TensorView view{logits_.data(), tensor::DType::kF32, tensor::Shape{rows, vocab}};
    GEMMAD_RETURN_IF_ERROR(model_->Forward(exec_, batch, *cache_, view));
  }
  // Sampling: sequences without a grammar in parallel over the pool, grammar ones (whose
  // constraint implementations may share state) here, one after another.
  StepResult result;
  result.seqs.resize(out.seqs.size());
  std::vector<size_t> first_row(out.seqs.size());
  std::vector<size_t> parallel, serial;
  size_t row = 0;
  for (size_t i = 0; i < out.seqs.size(); ++i) {
    first_row[i] = row;
    row += rows_per_seq[i].size();
    (registry_.HasConstraint(out.seqs[i].seq_id) ? serial : parallel).push_back(i);
  }
  auto consume = [&](size_t i) {
    std::span<float> mine(logits_.data() + first_row[i] * static_cast<size_t>(vocab),
                          rows_per_seq[i].size() * static_cast<size_t>(vocab));
    result.seqs[i] = registry_.Consume(out.seqs[i], mine, kernels::WithoutPool(exec_));
  };
  kernels::ParallelFor(exec_, static_cast<int64_t>(parallel.size()), 1, [&](int64_t b, int64_t e) {
    for (int64_t k = b; k < e; ++k) consume(parallel[static_cast<size_t>(k)]);
  });
  for (size_t i : serial) consume(i);
  if (mtp_) {  // drafts for the next step, from the row that predicted each sequence's newest token
    const int64_t H = model_->config().hidden_size;
    for (size_t i = 0; i < out.seqs.size(); ++i) {
      SeqStepResult& r = result.seqs[i];
      if (r.sampled_token_ids.empty() || !r.error.ok()) continue;
      const std::vector<int32_t>& offsets = rows_per_seq[i];
      const size_t local = offsets.size() - static_cast<size_t>(out.seqs[i].num_draft_tokens) - 1 +
                           (r.sampled_token_ids.size() - 1);
      const size_t row = first_row[i] + local;
      std::span<const float> hidden(model_->logit_hidden().data() + row * static_cast<size_t>(H), static_cast<size_t>(H));
      GEMMAD_ASSIGN_OR_RETURN(r.draft_token_ids, mtp_->Propose(exec_, out.seqs[i], offsets[local], hidden,
                                                               r.sampled_token_ids.back(), *cache_));
    }
  }
  return result;
}

}  // namespace gemmad::runner
