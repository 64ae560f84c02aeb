// Model loading and the step driver: embed, decoder layers, final norm, tied LM head, soft-cap.
#include "model/gemma4/model.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>

#include "base/log.h"
#include "io/memory_info.h"
#include "io/mmap_file.h"
#include "kernels/thread_pool.h"
#include "kernels/ops.h"
#include "model/ct_source.h"
#include "model/gemma4/kv_plan.h"
#include "model/gemma4/kv_scales.h"
#include "model/gemma4/layer_blocks.h"
#include "model/gemma4/logit_rows.h"
#include "model/gemma4/rope_table.h"

namespace gemmad::model::gemma4 {
namespace {

// Appends x, read back into host memory, to *out (when recording).
void Record(const kernels::ExecContext& exec, HiddenStates* out, const tensor::TensorView& x) {
  if (out == nullptr) return;
  std::vector<float>& host = out->emplace_back(static_cast<size_t>(x.NumElements()));
  kernels::Copy(exec, x, tensor::TensorView{host.data(), tensor::DType::kF32, x.shape, tensor::kHost});
}

tensor::TensorView I64View(std::vector<int64_t>& v) {
  return tensor::TensorView{v.data(), tensor::DType::kI64, tensor::Shape{static_cast<int64_t>(v.size())}};
}

}  // namespace

Result<std::unique_ptr<Model>> Model::Load(const std::string& model_dir, const CheckpointOptions& options,
                                           const ModelOptions& model_options) {
  GEMMAD_ASSIGN_OR_RETURN(Checkpoint ckpt, Checkpoint::Open(model_dir, options));
  return FromCheckpoint(std::move(ckpt), model_options);
}

Result<std::unique_ptr<Model>> Model::Load(std::shared_ptr<const WeightSource> source, const ModelOptions& model_options) {
  GEMMAD_ASSIGN_OR_RETURN(Checkpoint ckpt, Checkpoint::FromSource(std::move(source)));
  return FromCheckpoint(std::move(ckpt), model_options);
}

Result<std::unique_ptr<Model>> Model::FromCheckpoint(Checkpoint checkpoint, const ModelOptions& model_options) {
  std::unique_ptr<Model> m(new Model());
  m->checkpoint_ = std::move(checkpoint);
  // vLLM's rule: a checkpoint that carries its own quantization runs as stored.
  const WeightSource& source = m->checkpoint_.source();
  GEMMAD_ASSIGN_OR_RETURN(std::optional<std::string> qc, FindQuantizationConfig(source.config_json(), source.config_label()));
  if (qc && model_options.quantization != WeightQuantization::kNone) {
    return InvalidArgumentError(fmt::format(
        "Quantization method specified in the model config ({}) does not match the quantization method specified "
        "in the `quantization` argument ({}).",
        QuantizationMethodOf(*qc), WeightQuantizationName(model_options.quantization)));
  }
  const Config& c = m->checkpoint_.config();
  const std::string label = m->checkpoint_.dir() + "/config.json";
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    if (c.is_kv_shared(l) && c.kv_donor(l) < 0) {
      return InvalidArgumentError(label + ": layer " + std::to_string(l) +
                                  " shares KV but no earlier non-shared layer has its type");
    }
  }
  const Checkpoint& ck = m->checkpoint_;
  TensorLookup lookup = [&ck](const std::string& name) -> Result<tensor::TensorView> {
    const tensor::TensorView* v = ck.Find(name);
    if (v == nullptr) return NotFoundError(ck.dir() + ": tensor " + name + " is missing");
    return *v;
  };
  GEMMAD_ASSIGN_OR_RETURN(m->weights_, BindWeights(c, lookup, ""));
  if (model_options.communicator != nullptr) {
    m->comm_ = std::make_shared<dist::CountingCommunicator>(model_options.communicator);
    m->tp_ = TpRank{m->comm_->rank(), m->comm_->size()};
  }
  if (const auto kv_scales = source.kv_cache_scales()) {
    GEMMAD_RETURN_IF_ERROR(BindKvScales(c, ck.prefix(), *kv_scales, source.config_label(), &m->weights_));
    m->has_kv_scales_ = true;
    GEMMAD_LOG_INFO("{}: static FP8 KV cache scales (compressed-tensors kv_cache_scheme): the KV cache is fp8 e4m3 "
                    "unless --kv-cache-dtype names another dtype (which leaves the scales unused)",
                    source.config_label());
  }
  GEMMAD_ASSIGN_OR_RETURN(m->shard_config_, ShardConfig(c, m->tp_));
  if (m->tp_.size > 1 && !source.activation_quant().empty()) {
    // Their output scales would fake-quantize each rank's partial sums, not the sum.
    return InvalidArgumentError(
        "tensor parallel: checkpoints with static activation scales (compressed-tensors int8 activations, the "
        "qat-mobile layout) cannot be split across ranks yet");
  }
  // Before the quantization below: it converts each rank's slices only.
  GEMMAD_RETURN_IF_ERROR(ShardWeights(c, m->tp_, &m->weights_));
  // Static int8 activation scales (compressed-tensors a8/o8), by the bound weight's storage.
  for (const ActivationQuant& aq : source.activation_quant()) {
    GEMMAD_ASSIGN_OR_RETURN(tensor::TensorView v, source.View(aq.weight));
    m->weights_.act_quant[v.data] = {aq.input_scale, aq.output_scale};
  }
  if (model_options.compute_dtype) {
    if (*model_options.compute_dtype != tensor::DType::kBF16 && *model_options.compute_dtype != tensor::DType::kF32) {
      return InvalidArgumentError("the compute dtype must be bfloat16 or float32");
    }
    m->weights_.compute_dtype = *model_options.compute_dtype;
  }
  // Before anything reads them: the streamed matrices' page-cache misses come in as 2 MiB folios;
  // a PLE-table miss reads its own pages only (EmbedTokens asks for each row's pages ahead).
  for (const tensor::TensorView* v : StreamedMatrices(&m->weights_)) {
    io::Advise(v->data, v->SizeBytes(), io::Advice::kHugePages);
  }
  io::Advise(m->weights_.ple_table.data, m->weights_.ple_table.SizeBytes(), io::Advice::kRandom);
  if (model_options.quantization != WeightQuantization::kNone) {
    // Load-time conversion of host (mapped) weights: host code, on the CPU backend's pool.
    kernels::ThreadPool pool(std::max(1, model_options.num_threads));
    GEMMAD_ASSIGN_OR_RETURN(m->quantization_report_,
                            QuantizeModelWeights(model_options.quantization, kernels::ExecContext{&pool}, &m->weights_));
    GEMMAD_LOG_INFO("--quantization {}: {}", WeightQuantizationName(model_options.quantization),
                    m->quantization_report_.ToString());
  }
  // The checkpoint's own int4 matrices (GGUF Q4_0, compressed-tensors int4) in the backend's layout.
  if (const int64_t grouped = GroupInt4Matrices(kernels::ExecContext{}, &m->weights_); grouped > 0) {
    GEMMAD_LOG_INFO("{} int4 matrices of the checkpoint regrouped in rows of 16 (Q4_0x16) for the CPU kernels",
                    grouped);
  }
  // Dense matrices straight from the checkpoint's mapping usually start mid cache line (safetensors
  // aligns tensors to 8 bytes): copied to aligned memory, they stream faster (weight_alignment.h).
  {
    kernels::ThreadPool pool(std::max(1, model_options.num_threads));
    GEMMAD_ASSIGN_OR_RETURN(m->alignment_report_, AlignStreamedMatrices(kernels::ExecContext{&pool}, &m->weights_,
                                                                        io::AvailableMemoryBytes()));
    // What was copied is logged by the serving front ends (cli/model_engine.cc); what could not be is
    // worth a warning everywhere.
    if (m->alignment_report_.num_left > 0) GEMMAD_LOG_WARNING("{}", m->alignment_report_.ToString());
  }
  GEMMAD_ASSIGN_OR_RETURN(m->rope_sliding_, RopeInvFreq(c.rope_sliding, c.head_dim));
  GEMMAD_ASSIGN_OR_RETURN(m->rope_full_, RopeInvFreq(c.rope_full, c.global_head_dim));
  m->workers_stopped_ = m->tp_.size == 1;  // loaded: rank 0 now ends the group when it goes
  return m;
}

KvCacheSpec Model::MakeKvCacheSpec(int64_t block_size, std::optional<tensor::DType> kv_dtype) const {
  return gemma4::MakeKvCacheSpec(shard_config_, block_size, kv_dtype.value_or(default_kv_dtype()));
}

Status Model::CheckCache(const KvCache& cache) const {
  const KvCacheSpec want = gemma4::MakeKvCacheSpec(shard_config_, 1, tensor::DType::kF32);
  const KvCacheSpec& got = cache.spec();
  bool ok = got.layer_kv_source == want.layer_kv_source && got.layer_group == want.layer_group &&
            got.groups.size() == want.groups.size();
  for (size_t g = 0; ok && g < got.groups.size(); ++g) {
    ok = got.groups[g].layers == want.groups[g].layers && got.groups[g].head_dim == want.groups[g].head_dim &&
         got.groups[g].num_kv_heads == want.groups[g].num_kv_heads && got.groups[g].window == want.groups[g].window;
  }
  return ok ? OkStatus() : InvalidArgumentError("KV cache was not made for this model's KV plan");
}

Status Model::Forward(const kernels::ExecContext& exec, const ForwardBatch& batch, KvCache& cache,
                      const tensor::TensorView& logits, HiddenStates* hidden_states) {
  const Config& c = shard_config_;
  GEMMAD_RETURN_IF_ERROR(CheckCache(cache));
  std::vector<int64_t> num_blocks;
  for (int g = 0; g < cache.spec().num_groups(); ++g) num_blocks.push_back(cache.num_blocks(g));
  GEMMAD_RETURN_IF_ERROR(ValidateForwardBatch(batch, cache.spec(), num_blocks, c.vocab_size));
  // Vision blocks see each other both ways on sliding layers of "vision" models only; other models
  // ignore the spans (E2B/E4B decode image tokens causally, multimodal.md §5.5).
  const bool bidirectional = c.use_bidirectional_attention == "vision";
  if (bidirectional) GEMMAD_RETURN_IF_ERROR(CheckBidirectionalSpans(batch));
  const int64_t rows = batch.num_logit_rows(), n = batch.num_tokens(), H = c.hidden_size;
  if (logits.dtype != tensor::DType::kF32 || logits.shape.rank != 2 || logits.shape[0] != rows ||
      logits.shape[1] != c.vocab_size) {
    return InvalidArgumentError("Forward: logits must be F32 [" + std::to_string(rows) + ", " +
                                std::to_string(c.vocab_size) + "], got " + logits.shape.ToString());
  }
  if (hidden_states != nullptr) hidden_states->clear();
  if (n == 0) return OkStatus();
  // Rank 0 under tensor parallelism: the step's wall time, for the summary line of model_tp.cc.
  struct StepTimer {
    Model* m;
    std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
    ~StepTimer() {
      if (m == nullptr) return;
      m->tp_forward_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      ++m->tp_steps_;
    }
  } timer{tp_.size > 1 && tp_.rank == 0 ? this : nullptr};
  if (tp_.size > 1 && tp_.rank == 0) BroadcastStep(batch, cache, hidden_states != nullptr);

  buffers_.Bind(kernels::ScratchAllocatorOf(exec));
  const StepPlan plan = MakeStepPlan(batch, cache.spec(), bidirectional);
  const bool calibrate = kv_calibration_ != nullptr && cache.k(0).dtype == tensor::DType::kF8E4M3;
  const LayerContext full{exec, c, weights_, rope_sliding_, rope_full_, batch, plan, cache, buffers_,
                          static_cast<float>(c.rms_norm_eps), comm_.get(), calibrate ? kv_calibration_.get() : nullptr};
  EmbedTokens(full);
  Record(exec, hidden_states, buffers_.x.View({n, H}));
  ForwardBatch kept;  // the logit rows, once the KV-shared layers are reached
  StepPlan kept_plan;
  const ForwardBatch& live = RunLayers(full, &kept, &kept_plan, hidden_states);
  if (calibrate) AdoptKvCalibration();
  const int64_t rows_now = live.num_tokens();
  const tensor::TensorView x = buffers_.x.View({rows_now, H});
  if (hidden_states != nullptr) {
    tensor::TensorView normed = buffers_.normed.View({n, H});
    kernels::RmsNorm(exec, x, weights_.final_norm, normed, full.eps);
    Record(exec, hidden_states, normed);
  }
  if (rows == 0) return OkStatus();
  // Tied LM head over the logit rows (sequences in order, offsets ascending), then the soft-cap.
  std::vector<int64_t> head_rows;  // [rows] the logit rows of x
  head_rows.reserve(static_cast<size_t>(rows));
  for (const auto& sq : live.sequences) {
    for (int32_t off : sq.logit_offsets) head_rows.push_back(sq.token_begin + off);
  }
  tensor::TensorView head = buffers_.head.View({rows, H});
  kernels::GatherRows(exec, x, I64View(head_rows), head);
  kernels::RmsNorm(exec, head, weights_.final_norm, head, full.eps);
  if (keep_logit_hidden_) {
    logit_hidden_.resize(static_cast<size_t>(rows * H));
    kernels::Copy(exec, head, tensor::TensorView{logit_hidden_.data(), tensor::DType::kF32, tensor::Shape{rows, H}});
  }
  LmHead(exec, head, logits);
  return OkStatus();
}

Status Model::CalculateKvScalesOnFirstForward() {
  if (tp_.size > 1) {
    return InvalidArgumentError("--calculate-kv-scales with --tensor-parallel-size > 1 is not supported yet");
  }
  kv_calibration_ = std::make_unique<KvScaleCalibration>();
  return OkStatus();
}

void Model::AdoptKvCalibration() {
  const KvScaleCalibration& cal = *kv_calibration_;
  float k_lo = 0.0f, k_hi = 0.0f, v_lo = 0.0f, v_hi = 0.0f;
  int64_t measured = 0;
  for (size_t l = 0; l < cal.k.size(); ++l) {
    if (cal.k[l].empty()) continue;
    weights_.layers[l].k_scale = cal.k[l];
    weights_.layers[l].v_scale = cal.v[l];
    k_lo = measured == 0 ? cal.k[l][0] : std::min(k_lo, cal.k[l][0]);
    k_hi = std::max(k_hi, cal.k[l][0]);
    v_lo = measured == 0 ? cal.v[l][0] : std::min(v_lo, cal.v[l][0]);
    v_hi = std::max(v_hi, cal.v[l][0]);
    ++measured;
  }
  kv_calibration_.reset();
  GEMMAD_LOG_INFO("--calculate-kv-scales: FP8 KV scales of {} layers from the first forward: k {:.4g}..{:.4g}, "
                  "v {:.4g}..{:.4g} (amax / 200, amax / 100)",
                  measured, k_lo, k_hi, v_lo, v_hi);
}

const ForwardBatch& Model::RunLayers(const LayerContext& full, ForwardBatch* kept, StepPlan* kept_plan,
                                     HiddenStates* hidden_states) {
  const Config& c = shard_config_;
  const int64_t n = full.batch.num_tokens(), H = c.hidden_size, L = c.num_hidden_layers;
  // From the first KV-shared layer on only the logit rows are computed (unless every layer's
  // output is recorded): those layers write no KV, so the other rows are dead (§6).
  const int64_t first_shared = c.num_kv_shared_layers > 0 ? c.first_kv_shared_layer() : L;
  const LayerContext* lc = &full;
  std::optional<LayerContext> kept_context;
  for (int64_t l = 0; l < L; ++l) {
    if (l == first_shared && hidden_states == nullptr && full.batch.num_logit_rows() < n) {
      std::vector<int64_t> source_rows;
      *kept = LogitRowsBatch(full.batch, &source_rows);
      CompactRows(full.exec, buffers_.x, n, H, source_rows);
      if (c.hidden_size_per_layer_input > 0) {
        CompactRows(full.exec, buffers_.ple, n, L * c.hidden_size_per_layer_input, source_rows);
      }
      *kept_plan = MakeStepPlan(*kept, full.cache.spec(), c.use_bidirectional_attention == "vision");
      kept_context.emplace(LayerContext{full.exec, c, weights_, rope_sliding_, rope_full_, *kept, *kept_plan,
                                        full.cache, buffers_, full.eps, full.comm, full.kv_calibration});
      lc = &*kept_context;
      if (kept->num_tokens() == 0) break;
    }
    AttentionBlock(*lc, l);
    FeedForwardBlock(*lc, l);
    if (c.hidden_size_per_layer_input > 0) PerLayerInputBlock(*lc, l);
    const tensor::TensorView x = buffers_.x.View({lc->batch.num_tokens(), H});
    if (c.has_layer_scalar) kernels::Scale(full.exec, x, weights_.layers[l].layer_scalar);
    if (l + 1 < L) Record(full.exec, hidden_states, x);
  }
  return lc->batch;
}

void Model::EmbedToken(const kernels::ExecContext& exec, int32_t token, std::span<float> out) const {
  const int64_t H = config().hidden_size;
  GEMMAD_CHECK(static_cast<int64_t>(out.size()) == H && token >= 0 && token < config().vocab_size,
               "EmbedToken: token {} into {} floats", token, out.size());
  tensor::TensorView ids{&token, tensor::DType::kI32, tensor::Shape{1}};
  kernels::EmbeddingGather(exec, weights_.embed, ids, EmbedScale(H, weights_.compute_dtype),
                           tensor::TensorView{out.data(), tensor::DType::kF32, tensor::Shape{1, H}});
}

}  // namespace gemmad::model::gemma4
