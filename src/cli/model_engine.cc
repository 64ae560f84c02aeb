// CreateModelEngine: Model::Load -> KvCacheSpec -> kv::PlanKvCache -> ModelRunner -> Engine.
#include "cli/model_engine.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <utility>

#include "base/log.h"
#include "kernels/registry.h"
#include "kernels/stream_params_choice.h"
#include "kernels/thread_pool.h"
#include "kv/kv_plan.h"
#include "model/ct_source.h"
#include "model/gemma4/assistant.h"
#include "model/gemma4/model.h"
#include "model/open_weight_source.h"
#include "runner/model_runner.h"
#include "runner/audio_encoder.h"
#include "runner/encoder_set.h"
#include "runner/vision_encoder.h"

namespace gemmad::cli {
namespace {

// A Runner that also owns the thread pool its ModelRunner computes with.
class PooledRunner : public runner::Runner {
 public:
  PooledRunner(std::unique_ptr<kernels::ThreadPool> pool, std::unique_ptr<runner::Runner> inner)
      : pool_(std::move(pool)), inner_(std::move(inner)) {}
  int32_t vocab_size() const override { return inner_->vocab_size(); }
  Result<runner::StepResult> Execute(const sched::SchedulerOutput& out) override { return inner_->Execute(out); }
  bool SupportsModality(mm::Modality m) const override { return inner_->SupportsModality(m); }
  bool SetTokenDrafter(std::shared_ptr<const spec::TokenDrafter> drafter, int32_t num_tokens) override {
    return inner_->SetTokenDrafter(std::move(drafter), num_tokens);
  }

 private:
  std::unique_ptr<kernels::ThreadPool> pool_;  // outlives inner_ (declared first, destroyed last)
  std::unique_ptr<runner::Runner> inner_;
};

}  // namespace

Status CheckMaxModelLen(int64_t max_model_len, int64_t max_position_embeddings, bool allow_long) {
  if (max_model_len <= max_position_embeddings) return OkStatus();
  if (allow_long) {
    GEMMAD_LOG_WARNING("max_model_len {} is greater than the model's max_position_embeddings {} "
                       "(VLLM_ALLOW_LONG_MAX_MODEL_LEN=1); outputs beyond it may be wrong",
                       max_model_len, max_position_embeddings);
    return OkStatus();
  }
  return InvalidArgumentError(fmt::format(
      "User-specified max_model_len ({}) is greater than the derived max_model_len "
      "(max_position_embeddings={} in the model's config.json). To allow overriding this maximum, set "
      "the env var VLLM_ALLOW_LONG_MAX_MODEL_LEN=1",
      max_model_len, max_position_embeddings));
}

// --quantization naming a checkpoint's own method (compressed-tensors) requires the checkpoint to
// carry it; --quantization int8/int4 on such a checkpoint is refused by Model::Load.
static Status CheckQuantizationMethod(const model::WeightSource& source, const ModelEngineOptions& o) {
  GEMMAD_ASSIGN_OR_RETURN(std::optional<std::string> qc,
                          model::FindQuantizationConfig(source.config_json(), source.config_label()));
  const std::string method = qc ? model::QuantizationMethodOf(*qc) : "";
  if (!o.checkpoint_quantization.empty() && method != o.checkpoint_quantization) {
    return InvalidArgumentError(fmt::format("--quantization {}: {} has no {} quantization_config", o.checkpoint_quantization,
                                            source.config_label(), o.checkpoint_quantization));
  }
  return OkStatus();
}

// The --speculative-config draft model: a Gemma 4 assistant that fits the target.
static Result<std::unique_ptr<model::gemma4::Assistant>> LoadAssistant(std::shared_ptr<const model::WeightSource> source,
                                                                       const model::gemma4::Config& target) {
  const nlohmann::json j = nlohmann::json::parse(source->config_json(), nullptr, /*allow_exceptions=*/false);
  const std::string type = j.is_object() && j.contains("model_type") && j["model_type"].is_string()
                               ? j["model_type"].get<std::string>() : "";
  if (type != "gemma4_assistant") {
    return InvalidArgumentError(fmt::format(
        "--speculative-config: model {} has model_type '{}': gemmad drafts with Gemma 4 assistant checkpoints "
        "(gemma4_assistant, method mtp) or by n-gram lookup (method ngram)",
        source->label(), type));
  }
  auto a = model::gemma4::Assistant::Load(std::move(source), target);
  if (!a.ok()) return a.status().WithPrefix("--speculative-config: model");
  return std::move(*a);
}

Result<ModelEngine> CreateModelEngine(const ModelEngineOptions& o) {
  model::gemma4::ModelOptions mo;
  mo.quantization = o.quantization;
  mo.compute_dtype = o.dtype;
  mo.num_threads = std::max(1, o.num_threads);
  mo.communicator = o.communicator;
  if (o.communicator && o.communicator->size() > 1 && o.assistant) {
    return InvalidArgumentError(
        "--speculative-config: MTP drafting with --tensor-parallel-size > 1 is not supported yet (n-gram drafting is)");
  }
  std::shared_ptr<const model::WeightSource> source = o.source;
  if (!source) {
    GEMMAD_ASSIGN_OR_RETURN(auto opened, model::OpenWeightSource(o.model_dir));
    source = std::move(opened);
  }
  GEMMAD_RETURN_IF_ERROR(CheckQuantizationMethod(*source, o));
  GEMMAD_ASSIGN_OR_RETURN(auto model, model::gemma4::Model::Load(source, mo));
  if (o.communicator && o.communicator->size() > 1) {
    // The other ranks load their shards meanwhile (cli/tensor_parallel.cc): serve once all have.
    GEMMAD_RETURN_IF_ERROR(o.communicator->Barrier());
    GEMMAD_LOG_INFO("tensor parallel: {} ranks hold their shards", o.communicator->size());
  }
  if (model->alignment_report().num_copied > 0) GEMMAD_LOG_INFO("{}", model->alignment_report().ToString());
  const auto& cfg = model->config();
  const int64_t derived_len = o.max_model_len > 0 ? o.max_model_len : cfg.max_position_embeddings;
  GEMMAD_RETURN_IF_ERROR(CheckMaxModelLen(derived_len, cfg.max_position_embeddings, o.allow_long_max_model_len));
  model::KvCacheSpec spec = model->MakeKvCacheSpec(o.block_size, o.kv_cache_dtype);
  if (o.calculate_kv_scales) {
    if (spec.groups.at(0).dtype == tensor::DType::kF8E4M3) {
      GEMMAD_RETURN_IF_ERROR(model->CalculateKvScalesOnFirstForward());
    } else {
      GEMMAD_LOG_WARNING("--calculate-kv-scales: no effect, the KV cache is {} (scales apply to an FP8 cache)",
                         tensor::DTypeName(spec.groups.at(0).dtype));
    }
  }
  std::unique_ptr<model::gemma4::Assistant> assistant;
  if (o.assistant) {
    GEMMAD_ASSIGN_OR_RETURN(assistant, LoadAssistant(o.assistant, cfg));
  }

  kv::KvPlanInput plan_in;
  plan_in.groups = runner::KvGroupsForSpec(spec);
  plan_in.block_size = o.block_size;
  plan_in.budget_bytes = o.kv_cache_bytes;
  plan_in.max_model_len = derived_len;
  plan_in.max_num_seqs = o.max_num_seqs;
  plan_in.max_num_batched_tokens = o.max_num_batched_tokens;
  plan_in.fit_max_model_len = o.max_model_len < 0;  // --max-model-len -1/auto
  GEMMAD_ASSIGN_OR_RETURN(kv::KvPlan plan, kv::PlanKvCache(plan_in));
  const int64_t max_model_len = plan.max_model_len;
  if (plan_in.fit_max_model_len) {
    const double gib = static_cast<double>(o.kv_cache_bytes) / (1024.0 * 1024.0 * 1024.0);
    if (max_model_len < derived_len) {
      GEMMAD_LOG_INFO("Auto-fit max_model_len: reduced from {} to {} to fit in the KV cache space ({:.2f} GiB)",
                      derived_len, max_model_len, gib);
    } else {
      GEMMAD_LOG_INFO("Auto-fit max_model_len: the full model context length {} fits in the KV cache space "
                      "({:.2f} GiB)", max_model_len, gib);
    }
  }

  std::vector<int64_t> blocks;
  for (const auto& g : plan.groups) blocks.push_back(g.num_blocks);
  kv::KvCacheConfig kv = runner::KvConfigForSpec(spec, blocks, o.enable_prefix_caching);
  if (assistant) kv.sliding_extra_keys = 1;  // the assistant reads W + 1 past keys
  for (const auto& g : kv.groups) {
    GEMMAD_LOG_INFO("KV group {}: {} blocks of {} tokens ({:.1f} MiB, {})", g.name, g.num_blocks - 1, o.block_size,
                    static_cast<double>(g.num_blocks * g.bytes_per_block) / (1024.0 * 1024.0),
                    tensor::DTypeName(spec.groups.front().dtype));
  }

  const auto& stream = kernels::AppliedStreamChoice();
  if (!stream.error.empty()) return InvalidArgumentError(stream.error);
  GEMMAD_LOG_INFO("CPU kernels: {} table, decode streaming {} ({})", kernels::CpuKernels().name,
                  kernels::FormatStreamParams(kernels::ActiveStreamParams()), stream.why);
  auto pool = std::make_unique<kernels::ThreadPool>(std::max(1, o.num_threads));
  kernels::ExecContext exec{pool.get(), o.backend};
  engine::EngineConfig ec;
  ec.scheduler = {o.max_num_seqs, o.max_num_batched_tokens, max_model_len};
  ec.kv = kv;
  ec.eos_token_id = o.eos_token_id;
  if (!ec.eos_token_id && !cfg.eos_token_ids.empty()) ec.eos_token_id = static_cast<int32_t>(cfg.eos_token_ids[0]);
  ec.max_logprobs = o.max_logprobs;
  ec.seed = o.seed;
  ec.iteration_timeout_s = o.iteration_timeout_s;
  // The vision tower (images and video frames) and the audio tower, unless the checkpoint has
  // none or the server runs with --language-model-only (then they are not even read).
  std::vector<std::unique_ptr<runner::MultimodalEncoder>> encoders;
  VisionFacts vision;
  vision.bidirectional = cfg.use_bidirectional_attention == "vision";
  if (cfg.image_token_id > 0) vision.image_token_id = static_cast<int32_t>(cfg.image_token_id);
  if (cfg.video_token_id > 0) vision.video_token_id = static_cast<int32_t>(cfg.video_token_id);
  if (cfg.vision && !o.language_model_only) {
    GEMMAD_ASSIGN_OR_RETURN(auto encoder, runner::CreateGemma4VisionEncoder(source, exec));
    encoders.push_back(std::move(encoder));
    vision.loaded = true;
    vision.patch_size = cfg.vision->patch_size;
    vision.pooling_kernel = cfg.vision->pooling_kernel_size;
    vision.default_max_soft_tokens = cfg.vision->default_output_length;
    GEMMAD_LOG_INFO("vision tower: {} layers, hidden {}, patch {}, default budget {} soft tokens",
                    cfg.vision->num_hidden_layers, cfg.vision->hidden_size, cfg.vision->patch_size,
                    cfg.vision->default_output_length);
  }
  AudioFacts audio;
  audio.tower = cfg.audio.has_value();
  if (cfg.audio_token_id > 0) audio.audio_token_id = static_cast<int32_t>(cfg.audio_token_id);
  if (cfg.audio && !o.language_model_only) {
    GEMMAD_ASSIGN_OR_RETURN(auto encoder, runner::CreateGemma4AudioEncoder(source, exec));
    encoders.push_back(std::move(encoder));
    audio.loaded = true;
    audio.num_mels = cfg.audio->subsampling_conv_channels.at(0);
    GEMMAD_LOG_INFO("audio tower: {} layers, hidden {}, {} mel bins", cfg.audio->num_hidden_layers,
                    cfg.audio->hidden_size, audio.num_mels);
  }
  GEMMAD_ASSIGN_OR_RETURN(auto runner, runner::ModelRunner::Create(std::move(model), kv, exec, o.kv_cache_dtype,
                                                                   runner::CombineEncoders(std::move(encoders))));
  if (assistant && o.num_speculative_tokens > 0) {
    const auto& ac = assistant->config();
    GEMMAD_LOG_INFO("speculative decoding: {} ({} layers, hidden {}, {}), {} drafted tokens per step, verified by the "
                    "target in the same step",
                    o.drafter_label, ac.text.num_hidden_layers, ac.text.hidden_size,
                    ac.use_ordered_embeddings ? fmt::format("centroid masking: top {} of {} clusters", ac.centroid_top_k,
                                                            ac.num_centroids)
                                              : std::string("full tied head"),
                    o.num_speculative_tokens);
    runner->SetMtpAssistant(std::move(assistant), o.num_speculative_tokens);
    ec.num_speculative_tokens = o.num_speculative_tokens;
  } else if (o.drafter && o.num_speculative_tokens > 0) {
    runner->SetTokenDrafter(o.drafter, o.num_speculative_tokens);
    ec.num_speculative_tokens = o.num_speculative_tokens;
    GEMMAD_LOG_INFO("speculative decoding: {}, {} drafted tokens per step, verified by the target in the same step",
                    o.drafter_label, o.num_speculative_tokens);
  }
  std::unique_ptr<runner::Runner> served = std::move(runner);
  if (o.wrap_runner) served = o.wrap_runner(std::move(served));  // test binary only
  auto pooled = std::make_unique<PooledRunner>(std::move(pool), std::move(served));

  ModelEngine out;
  out.vision = vision;
  out.audio = audio;
  out.engine = std::make_unique<engine::Engine>(ec, std::move(pooled));
  out.kv = kv;
  out.kv_cache_bytes = plan.total_bytes;
  GEMMAD_RETURN_IF_ERROR(out.engine->Start());
  return out;
}

}  // namespace gemmad::cli
