// The tensor-parallel parity script (docs/tensor-parallel.md), shared by tp_parity_test.cc (ranks as
// threads) and tp_mpi_parity_main.cc (ranks as MPI processes): two golden prompts, one prefilled
// in two chunks, then kSteps greedy decode steps over both, on whatever Model rank 0 holds (the
// whole model or its shard). No GoogleTest here (the MPI program has none): errors are values.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "base/result.h"
#include "kernels/backend.h"
#include "kernels/context.h"
#include "model/forward_batch.h"
#include "model/gemma4/model.h"
#include "model/kv_cache.h"
#include "test_blocks.h"

namespace gemmad::model::testing {

// What one run of the script produces on rank 0.
struct Trace {
  std::vector<float> logits;                     // every step's logit rows, concatenated
  std::vector<std::vector<int32_t>> greedy{2};   // each sequence's greedy tokens
  gemma4::HiddenStates hidden;                   // the first step's hidden states
};

inline constexpr int kSteps = 16;

// The steps of SequenceRunner (sequence_runner.h) the script needs, with errors as values: a
// cache of 64 blocks of 4 tokens per KV group, one step over several sequences at a time.
class ScriptRunner {
 public:
  struct Chunk {
    int seq;
    std::vector<int32_t> ids;
    bool all_logits;
  };

  static Result<ScriptRunner> Create(gemma4::Model& m) {
    const KvCacheSpec spec = m.MakeKvCacheSpec(4);
    std::vector<int64_t> blocks(spec.groups.size(), 64);
    GEMMAD_ASSIGN_OR_RETURN(std::unique_ptr<KvCache> cache,
                            KvCache::Create(spec, blocks, *kernels::BackendOf(kernels::ExecContext{}).allocator));
    return ScriptRunner(m, TestBlocks(spec, blocks), std::move(cache));
  }

  // The logits rows [R, V] of one step, in batch order.
  Result<std::vector<float>> Step(const std::vector<Chunk>& chunks, gemma4::HiddenStates* hidden = nullptr) {
    ForwardBatch batch;
    for (const Chunk& ch : chunks) {
      const int64_t done = computed_[ch.seq];
      if (!blocks_.Prepare(ch.seq, done, static_cast<int64_t>(ch.ids.size()))) {
        return ResourceExhaustedError("tp script: out of KV blocks");
      }
      ForwardBatch one = SingleSequenceBatch(ch.ids, done, blocks_.tables(ch.seq), ch.all_logits);
      one.sequences[0].token_begin = batch.num_tokens();
      batch.token_ids.insert(batch.token_ids.end(), one.token_ids.begin(), one.token_ids.end());
      batch.positions.insert(batch.positions.end(), one.positions.begin(), one.positions.end());
      batch.sequences.push_back(std::move(one.sequences[0]));
    }
    const int64_t V = model_->config().vocab_size;
    std::vector<float> logits(static_cast<size_t>(batch.num_logit_rows() * V));
    const tensor::TensorView lv{logits.data(), tensor::DType::kF32, tensor::Shape{batch.num_logit_rows(), V}};
    GEMMAD_RETURN_IF_ERROR(model_->Forward(kernels::ExecContext{}, batch, *cache_, lv, hidden));
    for (const Chunk& ch : chunks) computed_[ch.seq] += static_cast<int64_t>(ch.ids.size());
    return logits;
  }

 private:
  ScriptRunner(gemma4::Model& m, TestBlocks blocks, std::unique_ptr<KvCache> cache)
      : model_(&m), blocks_(std::move(blocks)), cache_(std::move(cache)) {}

  gemma4::Model* model_;
  TestBlocks blocks_;
  std::unique_ptr<KvCache> cache_;
  std::map<int, int64_t> computed_;
};

// The golden prompts as two sequences: the first prefilled in two chunks (the first chunk's
// rows all with logits and hidden states recorded, beside the whole second prompt), then
// kSteps greedy decode steps over both at once.
inline Result<Trace> RunScript(gemma4::Model& m, const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  Trace t;
  const int vocab = static_cast<int>(m.config().vocab_size);
  const auto argmax = [vocab](const float* row) {
    return static_cast<int32_t>(std::max_element(row, row + vocab) - row);
  };
  const size_t cut = a.size() / 2;
  GEMMAD_ASSIGN_OR_RETURN(ScriptRunner r, ScriptRunner::Create(m));
  GEMMAD_ASSIGN_OR_RETURN(
      t.logits, r.Step({{0, std::vector<int32_t>(a.begin(), a.begin() + cut), true}, {1, b, false}}, &t.hidden));
  int32_t next_b = argmax(t.logits.data() + cut * static_cast<size_t>(vocab));
  GEMMAD_ASSIGN_OR_RETURN(std::vector<float> rows,
                          r.Step({{0, std::vector<int32_t>(a.begin() + cut, a.end()), false}}));
  int32_t next_a = argmax(rows.data());
  for (int step = 0; step < kSteps; ++step) {
    t.logits.insert(t.logits.end(), rows.begin(), rows.end());
    t.greedy[0].push_back(next_a);
    t.greedy[1].push_back(next_b);
    GEMMAD_ASSIGN_OR_RETURN(rows, r.Step({{0, {next_a}, false}, {1, {next_b}, false}}));
    next_a = argmax(rows.data());
    next_b = argmax(rows.data() + vocab);
  }
  t.logits.insert(t.logits.end(), rows.begin(), rows.end());
  return t;
}

// max |x - y| / max |y|.
inline double RelDiff(const std::vector<float>& x, const std::vector<float>& y) {
  double num = 0, den = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    num = std::max(num, static_cast<double>(std::fabs(x[i] - y[i])));
    den = std::max(den, static_cast<double>(std::fabs(y[i])));
  }
  return den > 0 ? num / den : num;
}

}  // namespace gemmad::model::testing
