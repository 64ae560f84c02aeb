// SequenceRunner: drives a Model over one or more sequences for tests — allocates blocks with
// TestBlocks, builds ForwardBatches (one sequence or several at once) and returns logits.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <vector>

#include "kernels/backend.h"
#include "kernels/context.h"
#include "model/gemma4/model.h"
#include "model/kv_cache.h"
#include "test_blocks.h"

namespace gemmad::model::testing {

class SequenceRunner {
 public:
  // A cache of `blocks_per_group` blocks of `block_size` tokens in each group.
  SequenceRunner(gemma4::Model& model, int64_t block_size, int64_t blocks_per_group,
                 const kernels::ExecContext& exec = {}, std::optional<tensor::DType> kv_dtype = std::nullopt)
      : SequenceRunner(model, model.MakeKvCacheSpec(block_size, kv_dtype),
                       std::vector<int64_t>(model.MakeKvCacheSpec(block_size).groups.size(), blocks_per_group), exec) {}
  SequenceRunner(gemma4::Model& model, const KvCacheSpec& spec, std::vector<int64_t> num_blocks,
                 const kernels::ExecContext& exec = {})
      : model_(model), blocks_(spec, num_blocks), exec_(exec) {
    auto c = KvCache::Create(spec, num_blocks, *kernels::BackendOf(exec).allocator);
    EXPECT_TRUE(c.ok()) << c.status().ToString();
    cache_ = std::move(c).value();
  }

  struct Chunk {
    int seq;
    std::vector<int32_t> ids;
    bool all_logits;
    std::vector<BidirectionalSpan> spans = {};       // the sequence's spans (key indices)
    std::vector<EmbeddingOverride> overrides = {};   // rows relative to this chunk's first token
  };

  // One step over several sequences; returns the logits rows [R, V] in batch order.
  std::vector<float> Step(const std::vector<Chunk>& chunks, gemma4::HiddenStates* hidden = nullptr) {
    ForwardBatch batch;
    for (const auto& ch : chunks) {
      const int64_t done = computed_[ch.seq];
      EXPECT_TRUE(blocks_.Prepare(ch.seq, done, static_cast<int64_t>(ch.ids.size()))) << "out of KV blocks";
      ForwardBatch one = SingleSequenceBatch(ch.ids, done, blocks_.tables(ch.seq), ch.all_logits);
      one.sequences[0].token_begin = batch.num_tokens();
      one.sequences[0].bidirectional_spans = ch.spans;
      for (EmbeddingOverride o : ch.overrides) {
        o.row += batch.num_tokens();
        batch.embedding_overrides.push_back(o);
      }
      batch.token_ids.insert(batch.token_ids.end(), one.token_ids.begin(), one.token_ids.end());
      batch.positions.insert(batch.positions.end(), one.positions.begin(), one.positions.end());
      batch.sequences.push_back(std::move(one.sequences[0]));
    }
    const int64_t V = model_.config().vocab_size;
    std::vector<float> logits(static_cast<size_t>(batch.num_logit_rows() * V));
    tensor::TensorView lv{logits.data(), tensor::DType::kF32, tensor::Shape{batch.num_logit_rows(), V}};
    Status st = model_.Forward(exec_, batch, *cache_, lv, hidden);
    EXPECT_TRUE(st.ok()) << st.ToString();
    for (const auto& ch : chunks) computed_[ch.seq] += static_cast<int64_t>(ch.ids.size());
    return logits;
  }

  // One sequence, one step.
  std::vector<float> Step(int seq, const std::vector<int32_t>& ids, bool all_logits,
                          gemma4::HiddenStates* hidden = nullptr) {
    return Step(std::vector<Chunk>{{seq, ids, all_logits}}, hidden);
  }

  // Greedy continuation of `prompt` by `n` tokens (prefill, then one token per step).
  std::vector<int32_t> Greedy(int seq, const std::vector<int32_t>& prompt, int n) {
    std::vector<int32_t> out;
    std::vector<float> logits = Step(seq, prompt, false);
    for (int i = 0; i < n; ++i) {
      int32_t best = 0;
      for (size_t v = 1; v < logits.size(); ++v) {
        if (logits[v] > logits[best]) best = static_cast<int32_t>(v);
      }
      out.push_back(best);
      if (i + 1 < n) logits = Step(seq, {best}, false);
    }
    return out;
  }

  KvCache& cache() { return *cache_; }
  TestBlocks& blocks() { return blocks_; }
  void Release(int seq) {
    blocks_.Release(seq);
    computed_.erase(seq);
  }

 private:
  gemma4::Model& model_;
  TestBlocks blocks_;
  kernels::ExecContext exec_;
  std::unique_ptr<KvCache> cache_;
  std::map<int, int64_t> computed_;
};

}  // namespace gemmad::model::testing
