// GgufSource (see gguf_source.h).
#include "model/gguf_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <tuple>
#include <utility>
#include <vector>

#include "base/log.h"
#include "io/huge_page_buffer.h"
#include "io/mmap_file.h"
#include "model/gguf_shards.h"
#include "model/gguf_config.h"
#include "model/gguf_mmproj.h"
#include "model/gguf_names.h"
#include "tensor/ggml_quants.h"
#include "tensor/ggml_types.h"
#include "tensor/half.h"
#include "tensor/quant_blocks.h"

namespace gemmad::model {
namespace {

using tensor::DType;
using tensor::TensorView;

struct Entry {
  WeightInfo info;
  TensorView view;
  // The tensor as the file stores it (for the split experts' combine): its bytes in the mapping
  // and its ggml type.
  const uint8_t* raw = nullptr;
  const tensor::GgmlTypeInfo* type = nullptr;
};

class GgufSource final : public WeightSource {
 public:
  static Result<std::unique_ptr<WeightSource>> Open(const std::string& path, const GgufSourceOptions& options);

  const std::string& label() const override { return file_.path(); }
  const std::string& config_label() const override { return config_label_; }
  const std::string& config_json() const override { return config_.config_json; }
  const GenerationConfig& generation_config() const override { return config_.generation_config; }
  const std::vector<std::string>& tensor_names() const override { return names_; }
  const WeightInfo* Info(std::string_view name) const override {
    auto it = entries_.find(name);
    return it == entries_.end() ? nullptr : &it->second.info;
  }
  Result<TensorView> View(std::string_view name) const override {
    auto it = entries_.find(name);
    if (it == entries_.end()) return NotFoundError(fmt::format("{}: no tensor '{}'", file_.path(), name));
    return it->second.view;
  }
  std::vector<std::string> files() const override {
    std::vector<std::string> out = file_.paths();
    if (mmproj_) {
      for (const std::string& p : mmproj_->file->paths()) out.push_back(p);
    }
    return out;
  }
  const TokenizerHints& tokenizer_hints() const override { return hints_; }

 private:
  GgufSource(GgufShards file, GgufSourceOptions options) : file_(std::move(file)), options_(options) {}
  Status AddTensor(const ShardTensor& st);
  Status CombineSplitExperts();
  void AddUnitLayerScalars();
  Status AttachMmproj(const std::string& path);
  float* Own(size_t n) {
    owned_.push_back(std::make_unique<float[]>(n));
    return owned_.back().get();
  }
  // ggml Q4_0 rows [rows, in] as tensor/quant_blocks.h's kQ4_0 (block b of rows 2p and 2p+1 side by
  // side, a lone last row as plain blocks): the same scales and nibbles, only moved. `shape` is the
  // tensor's (PyTorch order): [rows, in], or a stack [E, F, in] of E matrices with F even (rows =
  // E·F; pairs never cross two matrices, the layout --quantization int4 gives a stack).
  TensorView RepackQ4_0(const uint8_t* src, std::vector<int64_t> shape) {
    const int64_t in = shape.back(), rows = shape.size() == 2 ? shape[0] : shape[0] * shape[1];
    const size_t nb = static_cast<size_t>(in / tensor::kQuantBlock), bytes = tensor::RowBytes(DType::kQ4_0, in);
    uint8_t* dst = OwnBytes(bytes * static_cast<size_t>(rows));
    for (int64_t r = 0; r + 1 < rows; r += 2) {
      for (size_t b = 0; b < nb; ++b) {
        const uint8_t* even = src + (static_cast<size_t>(r) * nb + b) * 18;
        const uint8_t* odd = even + nb * 18;
        uint8_t* out = dst + (static_cast<size_t>(r / 2) * nb + b) * 36;
        std::memcpy(out, even, 2);
        std::memcpy(out + 2, odd, 2);
        std::memcpy(out + 4, even + 2, 16);
        std::memcpy(out + 20, odd + 2, 16);
      }
    }
    if (rows % 2 == 1) {
      const size_t last = static_cast<size_t>(rows - 1) * nb * 18;
      std::memcpy(dst + last, src + last, nb * 18);
    }
    TensorView v;
    v.data = dst;
    v.dtype = DType::kQ4_0;
    v.shape = ShapeOf(shape);
    return v;
  }
  // Memory for matrices the kernels stream (repacked int4, combined expert stacks): carved from
  // arenas of at least kArenaBytes on huge pages (io/huge_page_buffer.h), each matrix on its own
  // 4 KiB pages, so a decode step's reads need one TLB entry per 2 MiB instead of per 4 KiB; the heap
  // where the kernel refuses such a mapping.
  uint8_t* OwnBytes(size_t bytes) {
    constexpr size_t kArenaBytes = size_t{64} << 20, kAlign = 4096;
    const size_t need = (bytes + kAlign - 1) / kAlign * kAlign;
    if (arenas_.empty() || arena_used_ + need > arenas_.back().size()) {
      auto arena = io::HugePageBuffer::Allocate(std::max(kArenaBytes, need));
      if (!arena.ok()) {
        owned_bytes_.push_back(std::make_unique<uint8_t[]>(bytes));
        return owned_bytes_.back().get();
      }
      arenas_.push_back(std::move(arena).value());
      arena_used_ = 0;
    }
    uint8_t* p = arenas_.back().data() + arena_used_;
    arena_used_ += need;
    return p;
  }
  // A tensor the source converted into memory of its own is not read from the file again: its mapped
  // pages leave the resident set (they stay in the page cache; a read would fault them back in).
  void ReleaseConverted(const uint8_t* src, size_t bytes) {
    if (!mappings_) mappings_ = io::FileMappings::Read();
    released_bytes_ += io::ReleaseFilePages(src, bytes, *mappings_);
  }
  TensorView OwnedView(const float* data, std::vector<int64_t> shape) {
    TensorView v;
    v.data = const_cast<float*>(data);
    v.dtype = DType::kF32;
    v.shape = ShapeOf(shape);
    return v;
  }

  GgufShards file_;
  GgufSourceOptions options_;
  GgufModelConfig config_;
  std::string config_label_;
  std::map<std::string, Entry, std::less<>> entries_;
  std::vector<std::string> names_;
  std::vector<std::unique_ptr<float[]>> owned_;
  std::vector<std::unique_ptr<uint8_t[]>> owned_bytes_;
  std::vector<io::HugePageBuffer> arenas_;  // OwnBytes' memory; the last one is being filled
  size_t arena_used_ = 0;
  std::optional<io::FileMappings> mappings_;  // read at the first release, after the files were mapped
  size_t released_bytes_ = 0;
  TokenizerHints hints_;
  std::unique_ptr<GgufMmproj> mmproj_;
};

Status GgufSource::AddTensor(const ShardTensor& st) {
  const io::GgufTensorInfo& t = *st.info;
  if (t.name == "rope_freqs.weight" && config_.arch == GgufArch::kGemma4) return OkStatus();  // in the config
  std::optional<GgufTensorMapping> m = MapGgufTensorName(config_.arch, t.name);
  if (!m) {
    return DataLossError(fmt::format("{}: unexpected tensor '{}' (not part of a {} text model)", file_.path(), t.name,
                                     config_.arch == GgufArch::kGemma3 ? "gemma3" : "gemma4"));
  }
  Entry e;
  e.info = StoredWeightInfo(st);
  const std::string_view bytes = st.bytes();
  const auto* src = reinterpret_cast<const uint8_t*>(bytes.data());
  const std::string_view type = t.type->name;
  const bool plain = type == "F32" || type == "F16" || type == "BF16";
  const std::optional<DType> native = tensor::DTypeForGgmlType(t.type->id);
  if (plain && !m->subtract_one) {
    e.view.data = const_cast<uint8_t*>(src);
    e.view.dtype = type == "F32" ? DType::kF32 : type == "F16" ? DType::kF16 : DType::kBF16;
    e.view.shape = ShapeOf(e.info.shape);
  } else if (t.type->id == tensor::kGgmlQ4_0 && !options_.dequantize_all &&
             (t.ne.size() == 2 || (t.ne.size() == 3 && t.ne[1] % 2 == 0))) {
    e.view = RepackQ4_0(src, e.info.shape);  // gemmad's kQ4_0: the same blocks, rows in pairs
    ReleaseConverted(src, t.size_bytes);
  } else if (native && (t.ne.size() == 2 || t.ne.size() == 3) && !m->subtract_one && !options_.dequantize_all) {
    // A matrix, or an expert stack [E, F, H] whose experts' rows are matrices of their own: read
    // in place by the kernels.
    e.view.data = const_cast<uint8_t*>(src);
    e.view.dtype = *native;
    e.view.shape = ShapeOf(e.info.shape);
  } else {
    // The rows are back to back and each a whole number of blocks (the reader checked), so the
    // tensor is one run of blocks.
    const int64_t n = t.num_elements();
    float* out = Own(static_cast<size_t>(n));
    Status s = tensor::DequantizeGgmlRow(t.type->id, src, n, out);
    if (!s.ok()) return s.WithPrefix(fmt::format("{}: tensor '{}'", file_.path(), t.name));
    if (m->subtract_one) {
      for (int64_t i = 0; i < n; ++i) out[i] -= 1.0f;  // Gemma 3 stores 1 + w (spec §3.3)
    }
    e.view = OwnedView(out, e.info.shape);
    ReleaseConverted(src, t.size_bytes);
  }
  e.info.dtype = e.view.dtype;
  e.raw = src;
  e.type = t.type;
  if (!entries_.emplace(m->hf_name, std::move(e)).second) {
    return DataLossError(fmt::format("{}: tensor '{}' maps to '{}' twice", file_.path(), t.name, m->hf_name));
  }
  return OkStatus();
}

// The split expert form (ffn_gate_exps + ffn_up_exps, each [E, Fe, H]) as HF's experts.gate_up_proj
// [E, 2·Fe, H]: per expert the gate rows, then the up rows. Two halves stored alike stay so (rows
// are whole blocks, and a kQ4_0 half has Fe even: its pairs stay within an expert), moved per
// expert; halves stored differently are both dequantized to f32 from the file's bytes.
Status GgufSource::CombineSplitExperts() {
  std::vector<std::string> gates;
  for (const auto& [name, e] : entries_) {
    if (name.ends_with(".experts.gate_proj")) gates.push_back(name);
  }
  for (const std::string& gate_name : gates) {
    const std::string base = gate_name.substr(0, gate_name.size() - std::string_view("gate_proj").size());
    auto up = entries_.find(base + "up_proj");
    const Entry& g = entries_.at(gate_name);
    if (up == entries_.end() || up->second.info.shape != g.info.shape || g.info.shape.size() != 3) {
      return DataLossError(fmt::format("{}: '{}' needs a matching up projection of the same shape", file_.path(),
                                       gate_name));
    }
    const int64_t E = g.info.shape[0], Fe = g.info.shape[1], H = g.info.shape[2];
    const Entry* parts[2] = {&g, &up->second};
    Entry combined;
    combined.info = g.info;
    combined.info.shape = {E, 2 * Fe, H};
    combined.info.size_bytes += up->second.info.size_bytes;
    if (g.view.dtype == up->second.view.dtype) {
      const size_t half_bytes = static_cast<size_t>(Fe) * tensor::RowBytes(g.view.dtype, H);
      uint8_t* out = OwnBytes(2 * half_bytes * static_cast<size_t>(E));
      for (int64_t x = 0; x < E; ++x) {
        for (int half = 0; half < 2; ++half) {
          std::memcpy(out + (2 * x + half) * half_bytes,
                      static_cast<const uint8_t*>(parts[half]->view.data) + x * half_bytes, half_bytes);
        }
      }
      combined.view.data = out;
      combined.view.dtype = g.view.dtype;
      combined.view.shape = ShapeOf(combined.info.shape);
    } else {
      float* out = Own(static_cast<size_t>(E * 2 * Fe * H));
      for (int half = 0; half < 2; ++half) {
        const Entry& part = *parts[half];
        const uint64_t expert_bytes = static_cast<uint64_t>(Fe) * *tensor::GgmlRowBytes(*part.type, static_cast<uint64_t>(H));
        for (int64_t x = 0; x < E; ++x) {
          Status s = tensor::DequantizeGgmlRow(part.type->id, part.raw + x * expert_bytes, Fe * H,
                                               out + (x * 2 + half) * Fe * H);
          if (!s.ok()) return s.WithPrefix(fmt::format("{}: tensor '{}'", file_.path(), half == 0 ? gate_name : base + "up_proj"));
        }
      }
      combined.view = OwnedView(out, combined.info.shape);
    }
    combined.info.dtype = combined.view.dtype;
    entries_.erase(up);
    entries_.erase(gate_name);
    entries_.emplace(base + "gate_up_proj", std::move(combined));
  }
  return OkStatus();
}

// layer_output_scale is optional in llama.cpp's loader (spec §3.5): absent means 1.
void GgufSource::AddUnitLayerScalars() {
  if (config_.arch != GgufArch::kGemma4) return;
  std::vector<std::string> layers;
  for (const auto& [name, e] : entries_) {
    if (name.ends_with(".input_layernorm.weight")) {
      layers.push_back(name.substr(0, name.size() - std::string_view("input_layernorm.weight").size()));
    }
  }
  for (const std::string& p : layers) {
    if (entries_.count(p + "layer_scalar") > 0) continue;
    float* one = Own(1);
    *one = 1.0f;
    Entry e;
    e.info.shape = {1};
    e.info.dtype = DType::kF32;
    e.info.dtype_name = "F32";
    e.info.origin = file_.path() + " (absent: 1.0)";
    e.view = OwnedView(one, {1});
    entries_.emplace(p + "layer_scalar", std::move(e));
  }
}

// The encoders of an mmproj companion: its tensors join the text model's, the config becomes the
// multimodal form (text_config + vision_config / audio_config) with the media token ids found by
// name in the text file's vocabulary, as Gemma 4's tokenizer spells them.
Status GgufSource::AttachMmproj(const std::string& path) {
  if (config_.arch != GgufArch::kGemma4 && options_.mmproj_found) {
    GEMMAD_LOG_WARNING("{}: not reading {} found beside it (gemmad runs Gemma 4's encoders only; this is a Gemma 3 "
                       "text model)", file_.path(), path);
    return OkStatus();
  }
  if (config_.arch != GgufArch::kGemma4) {
    return InvalidArgumentError(fmt::format("{}: an mmproj companion ({}) is only read beside a Gemma 4 text model",
                                            file_.path(), path));
  }
  GEMMAD_ASSIGN_OR_RETURN(mmproj_, OpenGgufMmproj(path));
  nlohmann::json text = nlohmann::json::parse(config_.config_json);
  const int64_t hidden = text.at("hidden_size").get<int64_t>();
  if (mmproj_->projection_dim != hidden) {
    return InvalidArgumentError(fmt::format("{}: its encoders project to width {}, but the text model {} has hidden "
                                            "size {} (an mmproj of another model; --no-mmproj serves text only)",
                                            path, mmproj_->projection_dim, file_.path(), hidden));
  }
  auto tokens = file_.metadata().GetStringArray("tokenizer.ggml.tokens");
  if (!tokens.ok()) return tokens.status().WithPrefix(file_.path());
  auto id_of = [&](std::string_view token) -> std::optional<int64_t> {
    auto it = std::find(tokens->begin(), tokens->end(), token);
    if (it == tokens->end()) return std::nullopt;
    return static_cast<int64_t>(it - tokens->begin());
  };
  nlohmann::json top;
  top["architectures"] = {"Gemma4ForConditionalGeneration"};
  top["model_type"] = "gemma4";
  top["vision_config"] = mmproj_->vision_config;
  top["audio_config"] = mmproj_->audio_config;
  top["image_token_id"] = top["video_token_id"] = top["audio_token_id"] = nullptr;
  for (auto [key, token, needed] : {std::tuple{"image_token_id", "<|image|>", !mmproj_->vision_config.is_null()},
                                    std::tuple{"video_token_id", "<|video|>", false},
                                    std::tuple{"audio_token_id", "<|audio|>", !mmproj_->audio_config.is_null()}}) {
    if (auto id = id_of(token)) {
      top[key] = *id;
    } else if (needed) {
      return DataLossError(fmt::format("{}: the vocabulary has no {} token, which {}'s encoder needs", file_.path(),
                                       token, path));
    }
  }
  for (const char* key : {"tie_word_embeddings", "pad_token_id", "bos_token_id", "eos_token_id"}) {
    if (text.contains(key)) top[key] = text[key];
  }
  top["text_config"] = std::move(text);
  config_.config_json = top.dump(2);
  for (MmprojTensor& t : mmproj_->tensors) {
    Entry e;
    e.info = t.info;
    e.view = t.view;
    if (!entries_.emplace(t.hf_name, std::move(e)).second) {
      return DataLossError(fmt::format("{}: tensor '{}' is also in {}", path, t.hf_name, file_.path()));
    }
  }
  return OkStatus();
}

Result<std::unique_ptr<WeightSource>> GgufSource::Open(const std::string& path, const GgufSourceOptions& options) {
  GEMMAD_ASSIGN_OR_RETURN(GgufShards file, GgufShards::Open(path));
  std::unique_ptr<GgufSource> s(new GgufSource(std::move(file), options));
  GEMMAD_ASSIGN_OR_RETURN(s->config_, GgufConfigFromFile(s->file_));
  s->config_label_ = s->file_.path() + " (metadata)";
  for (const ShardTensor& t : s->file_.tensors()) GEMMAD_RETURN_IF_ERROR(s->AddTensor(t));
  GEMMAD_RETURN_IF_ERROR(s->CombineSplitExperts());
  if (s->released_bytes_ > 0) {
    GEMMAD_LOG_INFO("{}: {:.1f} MiB of tensors converted at load, their mapped pages released", s->file_.path(),
                    static_cast<double>(s->released_bytes_) / (1 << 20));
  }
  s->AddUnitLayerScalars();
  if (!options.mmproj.empty()) GEMMAD_RETURN_IF_ERROR(s->AttachMmproj(options.mmproj));
  for (const auto& [name, e] : s->entries_) s->names_.push_back(name);
  s->hints_.gguf_file = s->file_.path();
  if (s->file_.metadata().Has("tokenizer.chat_template")) {
    auto t = s->file_.metadata().GetString("tokenizer.chat_template");
    if (!t.ok()) return t.status().WithPrefix(path);
    s->hints_.chat_template = std::move(*t);
  }
  return std::unique_ptr<WeightSource>(std::move(s));
}

}  // namespace

Result<std::unique_ptr<WeightSource>> OpenGgufSource(const std::string& path, const GgufSourceOptions& options) {
  return GgufSource::Open(path, options);
}

}  // namespace gemmad::model
