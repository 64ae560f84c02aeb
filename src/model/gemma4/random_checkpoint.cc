// WriteRandomCheckpoint (see random_checkpoint.h).
#include "model/gemma4/random_checkpoint.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <map>

#include "base/files.h"
#include "base/rng.h"
#include "base/strings.h"
#include "io/progress_bar.h"
#include "io/safetensors_index.h"
#include "io/safetensors_writer.h"
#include "model/gemma4/audio_weight_spec.h"
#include "model/gemma4/random_ct_tensors.h"
#include "model/gemma4/random_values.h"
#include "model/gemma4/vision_weight_spec.h"
#include "model/gemma4/weight_spec.h"
#include "tensor/half.h"

namespace gemmad::model::gemma4 {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// The text tensors, plus the vision and audio towers' in the multimodal layout when the config
// has them.
std::vector<WeightSpec> SpecToWrite(const Config& c, const RandomCheckpointOptions& o) {
  std::vector<WeightSpec> out;
  for (WeightSpec& w : TextWeightSpec(c)) {
    if (w.used || (o.unused_kv_tensors && !w.top_level)) out.push_back(std::move(w));
  }
  if (o.multimodal && c.vision) {
    for (WeightSpec& w : VisionWeightSpec(*c.vision, c.hidden_size)) out.push_back(std::move(w));
  }
  if (o.multimodal && c.audio) {
    for (WeightSpec& w : AudioWeightSpec(*c.audio, c.hidden_size)) out.push_back(std::move(w));
  }
  return out;
}

void Encode(float v, tensor::DType dtype, char* dst) {
  if (dtype == tensor::DType::kF32) {
    std::memcpy(dst, &v, 4);
    return;
  }
  uint16_t h = dtype == tensor::DType::kBF16 ? tensor::FloatToBf16(v) : tensor::FloatToF16(v);
  std::memcpy(dst, &h, 2);
}

// Streams one tensor's random values in chunks (model/gemma4/random_values.h).
io::TensorFill MakeFill(const WeightSpec& w, tensor::DType dtype, uint64_t seed) {
  return [name = w.name, shape = w.shape, n = w.num_elements(), dtype, seed](io::ByteSink& sink) -> Status {
    RandomValueStream values(name, shape, seed);
    size_t esize = tensor::DTypeSize(dtype);
    constexpr int64_t kChunk = 1 << 18;
    std::vector<float> v;
    std::string buf;
    for (int64_t done = 0; done < n; done += kChunk) {
      int64_t m = std::min(kChunk, n - done);
      v.resize(static_cast<size_t>(m));
      values.Next(m, v.data());
      buf.resize(static_cast<size_t>(m) * esize);
      for (int64_t i = 0; i < m; ++i) Encode(v[static_cast<size_t>(i)], dtype, buf.data() + static_cast<size_t>(i) * esize);
      GEMMAD_RETURN_IF_ERROR(sink.Write(buf));
    }
    return OkStatus();
  };
}

Status MakeDirs(const std::string& dir) {
  std::string cur = dir[0] == '/' ? "" : ".";
  for (const std::string& part : StrSplit(dir, '/')) {
    if (part.empty()) continue;
    cur += "/" + part;
    if (::mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST) {
      return IoError(fmt::format("cannot create directory {}: {}", cur, std::strerror(errno)));
    }
  }
  if (!IsDirectory(dir)) return IoError(fmt::format("{}: not a directory", dir));
  return OkStatus();
}

// model.safetensors, the index, and model-NNNNN-of-NNNNN.safetensors from an earlier write.
Status RemoveOldCheckpointFiles(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return IoError(fmt::format("cannot list {}: {}", dir, std::strerror(errno)));
  std::vector<std::string> doomed;
  while (dirent* e = ::readdir(d)) {
    std::string_view n = e->d_name;
    bool shard = n.size() == 32 && n.substr(0, 6) == "model-" && EndsWith(n, ".safetensors");
    if (shard || n == io::kSafetensorsSingleName || n == io::kSafetensorsIndexName) doomed.emplace_back(n);
  }
  ::closedir(d);
  for (const auto& n : doomed) {
    std::string p = JoinPath(dir, n);
    if (::unlink(p.c_str()) != 0) return IoError(fmt::format("cannot remove {}: {}", p, std::strerror(errno)));
  }
  return OkStatus();
}

Status CopyFile(const std::string& from, const std::string& to) {
  GEMMAD_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(from));
  return WriteStringToFile(to, bytes);
}

// Assigns tensors (in name order) to shards of roughly equal byte size.
std::vector<std::vector<const WeightSpec*>> Shard(const std::vector<WeightSpec>& spec, int num_shards,
                                                  size_t esize) {
  std::map<std::string, const WeightSpec*> by_name;
  uint64_t total = 0;
  for (const auto& w : spec) {
    by_name[w.name] = &w;
    total += static_cast<uint64_t>(w.num_elements()) * esize;
  }
  std::vector<std::vector<const WeightSpec*>> shards(num_shards);
  uint64_t acc = 0;
  size_t remaining = by_name.size();
  int s = 0;
  for (const auto& [name, w] : by_name) {
    // Move on once this shard holds its share, keeping at least one tensor for each later shard.
    bool full = acc >= total * static_cast<uint64_t>(s + 1) / static_cast<uint64_t>(num_shards);
    if (s + 1 < num_shards && !shards[s].empty() && (full || remaining <= static_cast<size_t>(num_shards - s - 1))) ++s;
    shards[s].push_back(w);
    acc += static_cast<uint64_t>(w->num_elements()) * esize;
    --remaining;
  }
  return shards;
}

const char* TorchDtype(tensor::DType d) {
  return d == tensor::DType::kF32 ? "float32" : d == tensor::DType::kF16 ? "float16" : "bfloat16";
}

Status WriteTensors(const std::string& dir, const Config& c, const RandomCheckpointOptions& o) {
  std::vector<WeightSpec> spec = SpecToWrite(c, o);
  std::string prefix(o.multimodal ? kMultimodalPrefix : kTextOnlyPrefix);
  size_t esize = tensor::DTypeSize(o.dtype);
  auto shards = Shard(spec, o.num_shards, esize);
  io::ProgressBar bar("Writing random checkpoint", CheckpointDataBytes(c, o), o.show_progress, /*bytes=*/true);
  std::map<std::string, std::string> weight_map;
  for (int s = 0; s < o.num_shards; ++s) {
    io::SafetensorsWriter writer;
    writer.SetMetadata("format", "pt");
    for (const WeightSpec* w : shards[s]) {
      std::string full = w->top_level ? w->name : prefix + w->name;
      if (CtQuantizes(o.ct_format, *w)) {
        for (io::TensorToWrite& t : CtTensors(o.ct_format, full, *w, o.seed)) {
          weight_map[t.name] = io::ShardFileName(s + 1, o.num_shards);
          writer.Add(std::move(t));
        }
        continue;
      }
      writer.Add({full, std::string(tensor::DTypeName(o.dtype)), w->shape, MakeFill(*w, o.dtype, o.seed)});
      weight_map[full] = io::ShardFileName(s + 1, o.num_shards);
    }
    if (s + 1 == o.num_shards && !o.kv_cache_scheme.empty()) {
      for (io::TensorToWrite& t : CtKvScaleTensors(c, prefix, o.kv_cache_scheme, o.seed)) {
        weight_map[t.name] = io::ShardFileName(s + 1, o.num_shards);
        writer.Add(std::move(t));
      }
    }
    std::string file = o.num_shards == 1 ? std::string(io::kSafetensorsSingleName) : io::ShardFileName(s + 1, o.num_shards);
    GEMMAD_RETURN_IF_ERROR(writer.WriteFile(JoinPath(dir, file), [&](uint64_t n) { bar.Advance(n); }));
  }
  bar.Finish();
  if (o.num_shards == 1) return OkStatus();
  uint64_t params = 0;
  for (const auto& w : spec) params += static_cast<uint64_t>(w.num_elements());
  return WriteStringToFile(JoinPath(dir, io::kSafetensorsIndexName),
                           io::BuildSafetensorsIndexJson(weight_map, CheckpointDataBytes(c, o), params));
}

}  // namespace

ValueRecipe RecipeFor(const std::string& name, const std::vector<int64_t>& shape) {
  // Vision tower (multimodal.md §8.5, with clip bounds wide enough to bend only the tails).
  if (IsClipBound(name)) {
    return EndsWith(name, "_min") ? ValueRecipe{ValueRecipe::kUniform, -3.0, -1.0}
                                  : ValueRecipe{ValueRecipe::kUniform, 1.0, 3.0};
  }
  if (EndsWith(name, "position_embedding_table")) return {ValueRecipe::kSymmetric, 0.0, 0.5 * std::sqrt(3.0)};
  if (EndsWith(name, "vision_tower.std_bias")) return {ValueRecipe::kSymmetric, 0.0, 0.1 * std::sqrt(3.0)};
  if (EndsWith(name, "vision_tower.std_scale")) return {ValueRecipe::kUniform, 0.5, 1.5};
  // Audio tower (§8.5): softplus(per_dim_scale) must vary per lane; conv fan-in is in·kh·kw.
  if (EndsWith(name, "self_attn.per_dim_scale")) return {ValueRecipe::kSymmetric, 0.0, 0.5 * std::sqrt(3.0)};
  if (EndsWith(name, "conv.weight") || EndsWith(name, "depthwise_conv1d.weight")) {
    double fan_in = 1;
    for (size_t i = 1; i < shape.size(); ++i) fan_in *= static_cast<double>(shape[i]);
    return {ValueRecipe::kSymmetric, 0.0, std::sqrt(3.0 / fan_in)};
  }
  if (EndsWith(name, "output_proj.bias")) return {ValueRecipe::kSymmetric, 0.0, 0.1 * std::sqrt(3.0)};
  bool unit_scale = EndsWith(name, "norm.weight") || EndsWith(name, "norm_pre_attn.weight") ||
                    EndsWith(name, "norm_post_attn.weight") || EndsWith(name, "norm_out.weight") || EndsWith(name, "layernorm.weight") ||
                    EndsWith(name, "layernorm_1.weight") || EndsWith(name, "layernorm_2.weight") ||
                    EndsWith(name, "layer_scalar") || EndsWith(name, "router.scale") ||
                    EndsWith(name, "router.per_expert_scale");
  if (unit_scale) return {ValueRecipe::kUniform, 0.5, 1.5};
  if (name == "embed_tokens.weight" || name == "embed_tokens_per_layer.weight" || name == "lm_head.weight") {
    return {ValueRecipe::kSymmetric, 0.0, std::sqrt(3.0)};
  }
  double fan_in = static_cast<double>(shape.empty() ? 1 : shape.back());
  return {ValueRecipe::kSymmetric, 0.0, std::sqrt(3.0 / fan_in)};
}

uint64_t CheckpointDataBytes(const Config& config, const RandomCheckpointOptions& options) {
  uint64_t n = 0;
  for (const auto& w : SpecToWrite(config, options)) {
    n += CtQuantizes(options.ct_format, w) ? CtBytes(options.ct_format, w)
                                           : static_cast<uint64_t>(w.num_elements()) * tensor::DTypeSize(options.dtype);
  }
  if (!options.kv_cache_scheme.empty()) {
    for (const io::TensorToWrite& t : CtKvScaleTensors(config, "", options.kv_cache_scheme, options.seed)) {
      n += t.size_bytes();
    }
  }
  return n;
}

Status WriteRandomCheckpoint(const std::string& out_dir, const Config& config, const RandomCheckpointOptions& o) {
  if (o.dtype != tensor::DType::kBF16 && o.dtype != tensor::DType::kF32 && o.dtype != tensor::DType::kF16) {
    return InvalidArgumentError("random checkpoints are BF16, F16 or F32");
  }
  if (o.multimodal && config.family == Family::kGemma3) {
    return InvalidArgumentError("a gemma3_text checkpoint has no multimodal layout (use the text prefix)");
  }
  size_t num_tensors = SpecToWrite(config, o).size();
  if (o.num_shards < 1 || static_cast<size_t>(o.num_shards) > num_tensors) {
    return InvalidArgumentError(fmt::format("--shards must be in [1, {}] (the number of tensors)", num_tensors));
  }
  GEMMAD_RETURN_IF_ERROR(MakeDirs(out_dir));
  GEMMAD_RETURN_IF_ERROR(RemoveOldCheckpointFiles(out_dir));
  ConfigLayout layout = o.multimodal ? ConfigLayout::kMultimodal : ConfigLayout::kTextOnly;
  std::string config_json = ConfigToJson(config, layout, TorchDtype(o.dtype));
  if (o.ct_format != CtWeightFormat::kDense) {
    std::vector<std::string> dense;
    const std::string prefix(o.multimodal ? kMultimodalPrefix : kTextOnlyPrefix);
    for (const WeightSpec& w : SpecToWrite(config, o)) {
      if (IsTextLinear(w) && !CtQuantizes(o.ct_format, w)) dense.push_back(prefix + w.name.substr(0, w.name.size() - 7));
    }
    config_json = AddCtQuantizationConfig(o.ct_format, config_json, dense);
    if (!o.kv_cache_scheme.empty()) config_json = AddCtKvCacheScheme(config_json, o.kv_cache_scheme);
  } else if (!o.kv_cache_scheme.empty()) {
    return InvalidArgumentError("a KV cache scheme needs a compressed-tensors weight format");
  }
  if (!o.kv_cache_scheme.empty() && o.kv_cache_scheme != "tensor" && o.kv_cache_scheme != "attn_head") {
    return InvalidArgumentError("the KV cache scheme must be tensor or attn_head");
  }
  GEMMAD_RETURN_IF_ERROR(WriteStringToFile(JoinPath(out_dir, "config.json"), config_json));
  GEMMAD_RETURN_IF_ERROR(WriteStringToFile(JoinPath(out_dir, "generation_config.json"),
                                           GenerationConfigToJson(config, o.generation)));
  if (!o.tokenizer_dir.empty()) {
    for (const char* f : {"tokenizer.json", "tokenizer_config.json"}) {
      GEMMAD_RETURN_IF_ERROR(CopyFile(JoinPath(o.tokenizer_dir, f), JoinPath(out_dir, f)));
    }
  }
  return WriteTensors(out_dir, config, o);
}

}  // namespace gemmad::model::gemma4
