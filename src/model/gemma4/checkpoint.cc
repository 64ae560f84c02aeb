// Checkpoint: opening a model directory and validating its tensors against the config.
#include "model/gemma4/checkpoint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unordered_set>

#include "base/files.h"
#include "model/gemma4/kv_scales.h"
#include "model/gemma4/weights.h"
#include "model/open_weight_source.h"

namespace gemmad::model::gemma4 {
namespace {

std::string ShapeString(const std::vector<int64_t>& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

// The prefix the decoder tensors use, from where embed_tokens lives.
Result<std::string> DetectPrefix(const Config& config, const WeightSource& source) {
  for (std::string_view p : {kMultimodalPrefix, kTextOnlyPrefix}) {
    if (source.Info(std::string(p) + "embed_tokens.weight") != nullptr) return std::string(p);
  }
  std::string_view expected = config.multimodal ? kMultimodalPrefix : kTextOnlyPrefix;
  return DataLossError(fmt::format("{}: missing tensor '{}embed_tokens.weight'", source.label(), expected));
}

Status CheckOne(const WeightSpec& w, const std::string& full, const WeightInfo& info) {
  // A GGUF matrix or expert stack may be a block type the kernels read as stored (BoundAsStored).
  bool float_type = info.dtype && (*info.dtype == tensor::DType::kBF16 || *info.dtype == tensor::DType::kF16 ||
                                   *info.dtype == tensor::DType::kF32 ||
                                   BoundAsStored(*info.dtype, static_cast<int64_t>(w.shape.size())));
  if (!float_type) {
    return DataLossError(fmt::format("{}: tensor '{}' has dtype {}, expected BF16, F16 or F32", info.origin, full,
                                     info.dtype_name));
  }
  if (info.shape != w.shape) {
    return DataLossError(fmt::format("{}: tensor '{}' has shape {}, config.json implies {}", info.origin, full,
                                     ShapeString(info.shape), ShapeString(w.shape)));
  }
  return OkStatus();
}

}  // namespace

Status ValidateTensors(const Config& config, const WeightSource& source,
                       std::unordered_map<std::string, tensor::TensorView>* tensors, std::string* prefix,
                       CheckpointStats* stats) {
  GEMMAD_ASSIGN_OR_RETURN(*prefix, DetectPrefix(config, source));
  std::unordered_set<std::string> expected;
  for (const WeightSpec& w : TextWeightSpec(config)) {
    std::string full = w.top_level ? w.name : *prefix + w.name;
    expected.insert(full);
    const WeightInfo* t = source.Info(full);
    if (t == nullptr) {
      if (!w.used) continue;
      return DataLossError(fmt::format("{}: missing tensor '{}'", source.label(), full));
    }
    GEMMAD_RETURN_IF_ERROR(CheckOne(w, full, *t));
    GEMMAD_ASSIGN_OR_RETURN(tensor::TensorView v, source.View(full));
    tensors->emplace(w.name, v);
    stats->num_text_tensors++;
    stats->text_bytes += t->size_bytes;
    if (!w.used) stats->unused_text_bytes += t->size_bytes;
  }
  for (const std::string& name : source.tensor_names()) {
    if (expected.count(name) != 0) continue;
    const WeightInfo* t = source.Info(name);
    if (IsNonTextTensor(name)) {
      stats->num_skipped_tensors++;
      stats->skipped_bytes += t->size_bytes;
      continue;
    }
    return DataLossError(fmt::format("{}: unexpected tensor '{}' (not part of the text model config.json describes)",
                                     t->origin, name));
  }
  if (const auto kv_scales = source.kv_cache_scales()) {
    GEMMAD_RETURN_IF_ERROR(CheckKvScales(config, *prefix, *kv_scales, source.config_label()));
  }
  return OkStatus();
}

Result<Checkpoint> Checkpoint::Open(const std::string& model_dir, const CheckpointOptions& options) {
  if (!IsDirectory(model_dir) && !IsGgufPath(model_dir)) {
    return NotFoundError(fmt::format("{}: model directory does not exist", model_dir));
  }
  GEMMAD_ASSIGN_OR_RETURN(std::unique_ptr<WeightSource> source, OpenWeightSource(model_dir, options.show_progress));
  GEMMAD_ASSIGN_OR_RETURN(Checkpoint ck, FromSource(std::move(source)));
  ck.dir_ = model_dir;
  return ck;
}

Result<Checkpoint> Checkpoint::FromSource(std::shared_ptr<const WeightSource> source) {
  Checkpoint ck;
  ck.dir_ = source->label();
  GEMMAD_ASSIGN_OR_RETURN(ck.config_, ParseConfig(source->config_json(), source->config_label()));
  ck.generation_config_ = source->generation_config();
  GEMMAD_RETURN_IF_ERROR(ValidateTensors(ck.config_, *source, &ck.tensors_, &ck.prefix_, &ck.stats_));
  ck.source_ = std::move(source);
  return ck;
}

const tensor::TensorView* Checkpoint::Find(std::string_view spec_name) const {
  auto it = tensors_.find(std::string(spec_name));
  return it == tensors_.end() ? nullptr : &it->second;
}

const tensor::TensorView& Checkpoint::Tensor(std::string_view spec_name) const {
  const tensor::TensorView* v = Find(spec_name);
  GEMMAD_CHECK(v != nullptr, "checkpoint {} has no tensor '{}' (not in the validated spec)", dir_, spec_name);
  return *v;
}

const tensor::TensorView& Checkpoint::LayerTensor(int64_t layer, std::string_view suffix) const {
  return Tensor(fmt::format("layers.{}.{}", layer, suffix));
}

}  // namespace gemmad::model::gemma4
