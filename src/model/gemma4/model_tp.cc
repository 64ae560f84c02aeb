// Model's tensor-parallel parts (docs/tensor-parallel.md): the step broadcast from rank 0, the
// workers' loop, the vocabulary-parallel LM head, and the all-reduce the layer blocks call.
#include <algorithm>
#include <cstring>
#include <span>

#include "base/check.h"
#include "base/log.h"
#include "kernels/backend.h"
#include "kernels/ops.h"
#include "model/gemma4/layer_blocks.h"
#include "model/gemma4/model.h"
#include "model/gemma4/tp_step.h"

namespace gemmad::model::gemma4 {

void AllReduce(const LayerContext& lc, const TensorView& x) {
  if (lc.comm == nullptr || lc.comm->size() == 1) return;
  const Status s = lc.comm->AllReduceSum(std::span<float>(x.As<float>(), static_cast<size_t>(x.NumElements())));
  GEMMAD_CHECK(s.ok(), "tensor parallel all-reduce failed: {}", s.ToString());
}

Model::~Model() { StopTensorParallelWorkers(); }

void Model::StopTensorParallelWorkers() {
  if (tp_.size == 1 || tp_.rank != 0 || workers_stopped_) return;
  workers_stopped_ = true;
  const dist::CommunicatorStats& st = comm_->stats();
  GEMMAD_LOG_INFO("tensor parallel: {} steps in {:.2f} s on rank 0, {:.1f}% of it in collectives: {}", tp_steps_,
                  tp_forward_seconds_, tp_forward_seconds_ > 0 ? 100.0 * (st.seconds() - st.other.seconds) / tp_forward_seconds_ : 0.0,
                  st.ToString());
  std::vector<uint8_t> bytes = EncodeTpStop();
  const Status s = comm_->BroadcastIdle(&bytes, 0);
  if (!s.ok()) GEMMAD_LOG_WARNING("tensor parallel: stopping the workers failed: {}", s.ToString());
}

void Model::BroadcastStep(const ForwardBatch& batch, const KvCache& cache, bool record_hidden) {
  GEMMAD_CHECK(!workers_stopped_, "tensor parallel: a step after the workers were stopped");
  TpStep step;
  step.block_size = cache.spec().groups.empty() ? 16 : cache.spec().groups[0].block_size;
  step.kv_dtype = cache.spec().groups.empty() ? tensor::DType::kBF16 : cache.spec().groups[0].dtype;
  for (int g = 0; g < cache.spec().num_groups(); ++g) step.num_blocks.push_back(cache.num_blocks(g));
  step.record_hidden = record_hidden;
  std::vector<uint8_t> bytes = EncodeTpStep(step, batch, config().hidden_size);
  const Status s = comm_->BroadcastIdle(&bytes, 0);
  GEMMAD_CHECK(s.ok(), "tensor parallel: broadcasting a step failed: {}", s.ToString());
}

Status Model::ServeTensorParallelWorker(const kernels::ExecContext& exec) {
  GEMMAD_CHECK(tp_.size > 1 && tp_.rank != 0, "ServeTensorParallelWorker on rank {} of {}", tp_.rank, tp_.size);
  const Config& c = config();
  std::unique_ptr<KvCache> cache;
  std::vector<uint8_t> bytes;
  for (;;) {
    const Status got = comm_->BroadcastIdle(&bytes, 0);
    GEMMAD_CHECK(got.ok(), "tensor parallel: receiving a step failed: {}", got.ToString());
    GEMMAD_ASSIGN_OR_RETURN(TpStep step, DecodeTpStep(bytes, c.hidden_size));
    if (step.stop) return OkStatus();
    bool same = cache != nullptr && cache->spec().groups[0].block_size == step.block_size &&
                cache->spec().groups[0].dtype == step.kv_dtype;
    for (int g = 0; same && g < cache->spec().num_groups(); ++g) {
      same = static_cast<size_t>(g) < step.num_blocks.size() && cache->num_blocks(g) == step.num_blocks[g];
    }
    if (!same) {
      cache.reset();
      GEMMAD_ASSIGN_OR_RETURN(cache, KvCache::Create(MakeKvCacheSpec(step.block_size, step.kv_dtype), step.num_blocks,
                                                     *kernels::BackendOf(exec).allocator));
    }
    // Only rank 0 receives logits: the view carries the shape Forward checks, and no memory.
    const tensor::TensorView logits{nullptr, tensor::DType::kF32,
                                    tensor::Shape{step.batch.num_logit_rows(), c.vocab_size}};
    HiddenStates hidden;
    GEMMAD_RETURN_IF_ERROR(Forward(exec, step.batch, *cache, logits, step.record_hidden ? &hidden : nullptr));
  }
}

void Model::LmHead(const kernels::ExecContext& exec, const tensor::TensorView& head, const tensor::TensorView& logits) {
  const Config& c = config();
  const auto cap = static_cast<float>(c.final_logit_softcapping);
  if (tp_.size == 1) {
    kernels::Linear(exec, head, weights_.lm_head, logits);
    if (cap > 0.0f) kernels::SoftCap(exec, logits, cap);
    return;
  }
  // Each rank's vocabulary rows [rows, count], padded to [rows, stride] and gathered on rank 0.
  const int64_t rows = head.shape[0], V = c.vocab_size;
  const VocabSlice mine = LmHeadSlice(V, tp_);
  head_local_.assign(static_cast<size_t>(rows * mine.stride), 0.0f);
  if (mine.count > 0) {
    kernels::Linear(exec, head, weights_.lm_head,
                    tensor::TensorView{head_local_.data(), tensor::DType::kF32, tensor::Shape{rows, mine.count}});
    for (int64_t r = rows - 1; r > 0 && mine.count < mine.stride; --r) {
      float* row = head_local_.data() + r * mine.stride;
      std::memmove(row, head_local_.data() + r * mine.count, static_cast<size_t>(mine.count) * sizeof(float));
      std::fill(row + mine.count, row + mine.stride, 0.0f);
    }
  }
  if (tp_.rank == 0) head_gathered_.resize(static_cast<size_t>(tp_.size * rows * mine.stride));
  const Status s = comm_->Gather(head_local_, head_gathered_, 0);
  GEMMAD_CHECK(s.ok(), "tensor parallel: gathering the logits failed: {}", s.ToString());
  if (tp_.rank != 0) return;
  auto* out = logits.As<float>();
  for (int q = 0; q < tp_.size; ++q) {
    const VocabSlice part = LmHeadSlice(V, TpRank{q, tp_.size});
    for (int64_t r = 0; r < rows; ++r) {
      std::memcpy(out + r * V + part.begin, head_gathered_.data() + (q * rows + r) * part.stride,
                  static_cast<size_t>(part.count) * sizeof(float));
    }
  }
  if (cap > 0.0f) kernels::SoftCap(exec, logits, cap);
}

}  // namespace gemmad::model::gemma4
