// Checkpoint: opening a model directory and validating its tensors against the config.
#include "model/gemma4/checkpoint.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <unordered_set>

#include "base/files.h"
#include "io/safetensors_index.h"

namespace gemmad::model::gemma4 {
namespace {

std::string ShapeString(const std::vector<int64_t>& s) { return fmt::format("[{}]", fmt::join(s, ", ")); }

// The prefix the decoder tensors use, from where embed_tokens lives.
Result<std::string> DetectPrefix(const Config& config, const io::TensorStore& store, const std::string& label) {
  for (std::string_view p : {kMultimodalPrefix, kTextOnlyPrefix}) {
    if (store.Find(std::string(p) + "embed_tokens.weight") != nullptr) return std::string(p);
  }
  std::string_view expected = config.multimodal ? kMultimodalPrefix : kTextOnlyPrefix;
  return DataLossError(fmt::format("{}: missing tensor '{}embed_tokens.weight'", label, expected));
}

Status CheckOne(const WeightSpec& w, const std::string& full, const io::StoredTensor& t) {
  const auto& info = *t.info;
  bool float_type = info.dtype && (*info.dtype == tensor::DType::kBF16 || *info.dtype == tensor::DType::kF16 ||
                                   *info.dtype == tensor::DType::kF32);
  if (!float_type) {
    return DataLossError(fmt::format("{}: tensor '{}' has dtype {}, expected BF16, F16 or F32", t.file->path(), full,
                                     info.dtype_name));
  }
  if (info.shape != w.shape) {
    return DataLossError(fmt::format("{}: tensor '{}' has shape {}, config.json implies {}", t.file->path(), full,
                                     ShapeString(info.shape), ShapeString(w.shape)));
  }
  return OkStatus();
}

}  // namespace

Status ValidateTensors(const Config& config, const io::TensorStore& store, const std::string& label,
                       std::unordered_map<std::string, tensor::TensorView>* tensors, std::string* prefix,
                       CheckpointStats* stats) {
  GEMMAD_ASSIGN_OR_RETURN(*prefix, DetectPrefix(config, store, label));
  std::unordered_set<std::string> expected;
  for (const WeightSpec& w : TextWeightSpec(config)) {
    std::string full = w.top_level ? w.name : *prefix + w.name;
    expected.insert(full);
    const io::StoredTensor* t = store.Find(full);
    if (t == nullptr) {
      if (!w.used) continue;
      return DataLossError(fmt::format("{}: missing tensor '{}'", label, full));
    }
    GEMMAD_RETURN_IF_ERROR(CheckOne(w, full, *t));
    GEMMAD_ASSIGN_OR_RETURN(tensor::TensorView v, t->file->View(*t->info));
    tensors->emplace(w.name, v);
    stats->num_text_tensors++;
    stats->text_bytes += t->info->size_bytes();
    if (!w.used) stats->unused_text_bytes += t->info->size_bytes();
  }
  for (const std::string& name : store.names()) {
    if (expected.count(name) != 0) continue;
    const io::StoredTensor* t = store.Find(name);
    if (IsNonTextTensor(name)) {
      stats->num_skipped_tensors++;
      stats->skipped_bytes += t->info->size_bytes();
      continue;
    }
    return DataLossError(fmt::format("{}: unexpected tensor '{}' (not part of the text model config.json describes)",
                                     t->file->path(), name));
  }
  return OkStatus();
}

Result<Checkpoint> Checkpoint::Open(const std::string& model_dir, const CheckpointOptions& options) {
  if (!IsDirectory(model_dir)) return NotFoundError(fmt::format("{}: model directory does not exist", model_dir));
  Checkpoint ck;
  ck.dir_ = model_dir;
  GEMMAD_ASSIGN_OR_RETURN(ck.config_, LoadConfig(model_dir));
  GEMMAD_ASSIGN_OR_RETURN(ck.generation_config_, LoadGenerationConfig(model_dir));
  GEMMAD_ASSIGN_OR_RETURN(ck.store_, io::TensorStore::OpenDirectory(model_dir, options.show_progress));
  std::string label = ck.store_.index_path().empty() ? ck.store_.files().front()->path() : ck.store_.index_path();
  GEMMAD_RETURN_IF_ERROR(ValidateTensors(ck.config_, ck.store_, label, &ck.tensors_, &ck.prefix_, &ck.stats_));
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
