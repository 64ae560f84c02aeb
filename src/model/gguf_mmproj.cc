// OpenGgufMmproj (see gguf_mmproj.h).
#include "model/gguf_mmproj.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "model/gguf_mmproj_names.h"
#include "tensor/ggml_quants.h"

namespace gemmad::model {
namespace {

using nlohmann::json;
using tensor::DType;

// The Gemma 4 values llama.cpp's clip code uses where an mmproj stores nothing (tools/mtmd/clip.cpp,
// models/gemma4a.cpp); transformers' Gemma4AudioConfig / Gemma4VisionConfig defaults agree.
constexpr double kVisionRopeTheta = 100.0;
constexpr int64_t kVisionPooling = 3;
constexpr int64_t kVisionDefaultBudget = 280;  // transformers' max_soft_tokens
constexpr int64_t kAudioChunk = 12, kAudioContextLeft = 13, kAudioContextRight = 0;
constexpr double kAudioLogitCap = 50.0, kAudioResidual = 0.5, kAudioEps = 1e-6;

class Reader {
 public:
  explicit Reader(GgufMmproj* out) : out_(*out), f_(*out->file), md_(f_.metadata()) {}

  Status Read() {
    auto arch = md_.GetString("general.architecture");
    if (!arch.ok()) return Err(arch.status());
    if (*arch != "clip") {
      return Err(InvalidArgumentError(fmt::format(
          "not an mmproj file (general.architecture is '{}', an mmproj's is 'clip'): --mmproj names the file of a "
          "model's vision/audio encoders, the one llama.cpp's converter writes with --mmproj", *arch)));
    }
    GEMMAD_ASSIGN_OR_RETURN(const bool vision, Flag("clip.has_vision_encoder"));
    GEMMAD_ASSIGN_OR_RETURN(const bool audio, Flag("clip.has_audio_encoder"));
    if (!vision && !audio) return Err(InvalidArgumentError("holds neither a vision nor an audio encoder"));
    for (const ShardTensor& t : f_.tensors()) shapes_[t.info->name] = StoredWeightInfo(t).shape;
    if (vision) GEMMAD_RETURN_IF_ERROR(VisionConfig());
    if (audio) GEMMAD_RETURN_IF_ERROR(AudioConfig());
    for (const ShardTensor& t : f_.tensors()) GEMMAD_RETURN_IF_ERROR(AddTensor(t));
    return OkStatus();
  }

 private:
  Status Err(const Status& s) const { return s.WithPrefix(f_.path()); }

  Result<bool> Flag(std::string_view key) const {
    if (!md_.Has(key)) return false;
    auto r = md_.GetBool(key);
    if (!r.ok()) return Err(r.status());
    return *r;
  }
  Result<int64_t> U32(std::string_view key) const {
    auto r = md_.GetU32(key);
    if (!r.ok()) return Err(r.status());
    if (*r == 0) return Err(InvalidArgumentError(fmt::format("key '{}': must be positive", key)));
    return static_cast<int64_t>(*r);
  }
  Result<double> Eps(std::string_view key) const {
    if (!md_.Has(key)) return 1e-6;
    auto r = md_.GetF64(key);
    if (!r.ok()) return Err(r.status());
    if (!std::isfinite(*r) || *r <= 0) return Err(InvalidArgumentError(fmt::format("key '{}': not a positive number", key)));
    // A FLOAT32 key holds the float nearest the writer's decimal: read back as that decimal (the
    // shortest one that rounds to it), so 1e-6 stays 1e-6 rather than 9.99999997e-7.
    if (md_.Find(key)->type == io::GgufValueType::kFloat32) return std::stod(fmt::format("{}", static_cast<float>(*r)));
    return *r;
  }
  Result<std::vector<int64_t>> Shape(const std::string& name, size_t rank) const {
    auto it = shapes_.find(name);
    if (it == shapes_.end()) return Err(DataLossError(fmt::format("missing tensor '{}'", name)));
    if (it->second.size() != rank) {
      return Err(DataLossError(fmt::format("tensor '{}' has {} dimensions, expected {}", name, it->second.size(), rank)));
    }
    for (int64_t d : it->second) {
      if (d <= 0) return Err(DataLossError(fmt::format("tensor '{}' has an empty dimension", name)));
    }
    return it->second;
  }
  bool Clipped(std::string_view prefix) const {
    for (const auto& [name, shape] : shapes_) {
      if (name.starts_with(prefix) && (name.ends_with(".input_max") || name.ends_with(".input_min") ||
                                       name.ends_with(".output_max") || name.ends_with(".output_min"))) {
        return true;
      }
    }
    return false;
  }
  Status Projector(std::string_view modality, std::string_view want) const {
    const std::string key = fmt::format("clip.{}.projector_type", modality);
    const std::string_view use = md_.Has(key) ? std::string_view(key) : std::string_view("clip.projector_type");
    auto r = md_.GetString(use);
    if (!r.ok()) return Err(r.status());
    if (*r == want) return OkStatus();
    if (*r == "gemma3") {
      return Err(InvalidArgumentError("a Gemma 3 vision projector (projector type 'gemma3'): gemmad runs Gemma 4's "
                                      "encoders only"));
    }
    return Err(InvalidArgumentError(fmt::format("{} projector type '{}' is not supported (expected '{}', Gemma 4)",
                                                modality, *r, want)));
  }
  Status Projection(std::string_view key) {
    GEMMAD_ASSIGN_OR_RETURN(const int64_t dim, U32(key));
    if (out_.projection_dim != 0 && out_.projection_dim != dim) {
      return Err(DataLossError(fmt::format("the encoders project to different widths ({} and {})",
                                           out_.projection_dim, dim)));
    }
    out_.projection_dim = dim;
    return OkStatus();
  }
  Status UnitStats(std::string_view key, double want) const {
    if (!md_.Has(key)) return OkStatus();
    auto r = md_.GetArray(key);
    if (!r.ok()) return Err(r.status());
    const io::GgufArray& a = **r;
    bool ok = a.elem_type == io::GgufValueType::kFloat32 || a.elem_type == io::GgufValueType::kFloat64;
    for (double v : a.f) ok = ok && v == want;
    if (!ok) {
      return Err(InvalidArgumentError(fmt::format("{} is not all {} (Gemma 4's image processor does not normalize; "
                                                  "this encoder expects other pixels)", key, want)));
    }
    return OkStatus();
  }

  Status VisionConfig() {
    GEMMAD_RETURN_IF_ERROR(Projector("vision", "gemma4v"));
    GEMMAD_RETURN_IF_ERROR(Projection("clip.vision.projection_dim"));
    GEMMAD_RETURN_IF_ERROR(UnitStats("clip.vision.image_mean", 0.0));
    GEMMAD_RETURN_IF_ERROR(UnitStats("clip.vision.image_std", 1.0));
    json v;
    v["model_type"] = "gemma4_vision";
    GEMMAD_ASSIGN_OR_RETURN(const int64_t hidden, U32("clip.vision.embedding_length"));
    GEMMAD_ASSIGN_OR_RETURN(const int64_t heads, U32("clip.vision.attention.head_count"));
    v["hidden_size"] = hidden;
    v["num_attention_heads"] = heads;
    GEMMAD_ASSIGN_OR_RETURN(v["intermediate_size"], U32("clip.vision.feed_forward_length"));
    GEMMAD_ASSIGN_OR_RETURN(v["num_hidden_layers"], U32("clip.vision.block_count"));
    GEMMAD_ASSIGN_OR_RETURN(v["patch_size"], U32("clip.vision.patch_size"));
    GEMMAD_ASSIGN_OR_RETURN(v["rms_norm_eps"], Eps("clip.vision.attention.layer_norm_epsilon"));
    GEMMAD_ASSIGN_OR_RETURN(auto q_norm, Shape("v.blk.0.attn_q_norm.weight", 1));
    const int64_t head_dim = q_norm[0];
    v["head_dim"] = head_dim;
    if (md_.Has("clip.vision.attention.head_count_kv")) {
      GEMMAD_ASSIGN_OR_RETURN(v["num_key_value_heads"], U32("clip.vision.attention.head_count_kv"));
    } else {
      GEMMAD_ASSIGN_OR_RETURN(auto k, Shape("v.blk.0.attn_k.weight", 2));
      if (k[0] % head_dim != 0) {
        return Err(DataLossError(fmt::format("v.blk.0.attn_k.weight has {} rows, not a multiple of head_dim {}", k[0],
                                             head_dim)));
      }
      v["num_key_value_heads"] = k[0] / head_dim;
    }
    int64_t pooling = kVisionPooling;
    if (md_.Has("clip.vision.projector.scale_factor")) {
      GEMMAD_ASSIGN_OR_RETURN(pooling, U32("clip.vision.projector.scale_factor"));
    }
    v["pooling_kernel_size"] = pooling;
    GEMMAD_ASSIGN_OR_RETURN(auto pos, Shape("v.position_embd.weight", 3));
    v["position_embedding_size"] = pos[1];
    v["hidden_activation"] = "gelu_pytorch_tanh";
    v["use_clipped_linears"] = Clipped("v.");
    v["standardize"] = shapes_.count("v.std_bias") > 0;
    v["default_output_length"] = kVisionDefaultBudget;
    v["attention_bias"] = false;
    v["rope_parameters"] = {{"rope_type", "axial"}, {"rope_theta", kVisionRopeTheta}};
    out_.vision_config = std::move(v);
    return OkStatus();
  }

  Status AudioConfig() {
    GEMMAD_RETURN_IF_ERROR(Projector("audio", "gemma4a"));
    GEMMAD_RETURN_IF_ERROR(Projection("clip.audio.projection_dim"));
    json a;
    a["model_type"] = "gemma4_audio";
    GEMMAD_ASSIGN_OR_RETURN(a["hidden_size"], U32("clip.audio.embedding_length"));
    GEMMAD_ASSIGN_OR_RETURN(a["num_hidden_layers"], U32("clip.audio.block_count"));
    GEMMAD_ASSIGN_OR_RETURN(a["num_attention_heads"], U32("clip.audio.attention.head_count"));
    GEMMAD_ASSIGN_OR_RETURN(auto c0, Shape("a.conv1d.0.weight", 4));
    GEMMAD_ASSIGN_OR_RETURN(auto c1, Shape("a.conv1d.1.weight", 4));
    a["subsampling_conv_channels"] = {c0[0], c1[0]};
    GEMMAD_ASSIGN_OR_RETURN(auto dw, Shape("a.blk.0.conv_dw.weight", 2));
    a["conv_kernel_size"] = dw[1];
    GEMMAD_ASSIGN_OR_RETURN(auto proj, Shape("a.pre_encode.out.weight", 2));
    a["output_proj_dims"] = proj[0];
    a["use_clipped_linears"] = Clipped("a.");
    a["hidden_act"] = "silu";
    a["rms_norm_eps"] = kAudioEps;
    a["residual_weight"] = kAudioResidual;
    a["attention_chunk_size"] = kAudioChunk;
    a["attention_context_left"] = kAudioContextLeft;
    a["attention_context_right"] = kAudioContextRight;
    a["attention_logit_cap"] = kAudioLogitCap;
    a["attention_invalid_logits_value"] = -1e9;
    a["gradient_clipping"] = 1e10;
    out_.audio_config = std::move(a);
    return OkStatus();
  }

  float* Own(size_t n) {
    out_.owned.push_back(std::make_unique<float[]>(n));
    return out_.owned.back().get();
  }

  Status AddTensor(const ShardTensor& st) {
    const io::GgufTensorInfo& t = *st.info;
    std::optional<MmprojTensorMapping> m = MapMmprojTensorName(t.name);
    const bool is_vision = t.name.starts_with("v.") || t.name.starts_with("mm.input");
    if (!m) return Err(DataLossError(fmt::format("unexpected tensor '{}' (not part of a Gemma 4 mmproj)", t.name)));
    if ((is_vision && out_.vision_config.is_null()) || (!is_vision && out_.audio_config.is_null())) {
      return Err(DataLossError(fmt::format("tensor '{}' belongs to an encoder the metadata does not declare", t.name)));
    }
    MmprojTensor e;
    e.hf_name = m->hf_name;
    e.info = StoredWeightInfo(st);
    const std::string_view bytes = st.bytes();
    const auto* src = reinterpret_cast<const uint8_t*>(bytes.data());
    const std::string_view type = t.type->name;
    const int64_t n = t.num_elements();
    if (m->transform == MmprojTransform::kNone && (type == "F32" || type == "F16" || type == "BF16")) {
      e.view.data = const_cast<uint8_t*>(src);
      e.view.dtype = type == "F32" ? DType::kF32 : type == "F16" ? DType::kF16 : DType::kBF16;
    } else {
      float* values = Own(static_cast<size_t>(n));
      Status s = tensor::DequantizeGgmlRow(t.type->id, src, n, values);
      if (!s.ok()) return Err(s.WithPrefix(fmt::format("tensor '{}'", t.name)));
      GEMMAD_RETURN_IF_ERROR(Transform(t.name, *m, &e.info.shape, values, n));
      e.view.data = values;
      e.view.dtype = DType::kF32;
    }
    e.view.shape = ShapeOf(e.info.shape);
    e.info.dtype = e.view.dtype;
    if (m->transform == MmprojTransform::kUnitLayerScale) return OkStatus();  // checked, not handed on
    if (!names_.emplace(e.hf_name).second) {
      return Err(DataLossError(fmt::format("tensor '{}' maps to '{}' twice", t.name, e.hf_name)));
    }
    out_.tensors.push_back(std::move(e));
    return OkStatus();
  }

  // `values` (n floats, the tensor as stored) and `shape` (the stored PyTorch order) to HF's.
  Status Transform(const std::string& name, const MmprojTensorMapping& m, std::vector<int64_t>* shape, float* values,
                   int64_t n) {
    switch (m.transform) {
      case MmprojTransform::kNone:
        return OkStatus();
      case MmprojTransform::kScalar:
        if (n != 1) return Err(DataLossError(fmt::format("tensor '{}' has {} values, expected 1", name, n)));
        shape->clear();
        return OkStatus();
      case MmprojTransform::kDepthwiseConv:
        if (shape->size() != 2) return Err(DataLossError(fmt::format("tensor '{}' is not 2-D", name)));
        *shape = {(*shape)[0], 1, (*shape)[1]};
        return OkStatus();
      case MmprojTransform::kSoftplus:
        for (int64_t i = 0; i < n; ++i) {
          const double y = values[i];
          if (!(y > 0) || !std::isfinite(y)) {
            return Err(DataLossError(fmt::format("tensor '{}' holds {} (a softplus output is positive)", name, y)));
          }
          // softplus⁻¹(y) = log(eᵞ − 1) = y + log(1 − e⁻ʸ), stable for small and large y.
          values[i] = static_cast<float>(y + std::log(-std::expm1(-y)));
        }
        return OkStatus();
      case MmprojTransform::kUnitLayerScale:
        for (int64_t i = 0; i < n; ++i) {
          if (values[i] != 1.0f) {
            return Err(InvalidArgumentError(fmt::format(
                "tensor '{}' scales a layer's output by {} (gemmad's vision tower, like transformers', has no such "
                "scale; only 1 is accepted)", name, values[i])));
          }
        }
        return OkStatus();
      case MmprojTransform::kPatchEmbed: {
        // Stored [D, 3, p, p] (channel-major conv kernel); HF's input_proj is [D, p·p·3] with the
        // patch flattened (p_y, p_x, c).
        if (shape->size() != 4 || (*shape)[1] != 3 || (*shape)[2] != (*shape)[3]) {
          return Err(DataLossError(fmt::format("tensor '{}' is not a [D, 3, p, p] kernel", name)));
        }
        const int64_t d = (*shape)[0], p = (*shape)[2];
        std::vector<float> copy(values, values + n);
        for (int64_t o = 0; o < d; ++o) {
          for (int64_t c = 0; c < 3; ++c) {
            for (int64_t y = 0; y < p; ++y) {
              for (int64_t x = 0; x < p; ++x) {
                values[((o * p + y) * p + x) * 3 + c] = copy[((o * 3 + c) * p + y) * p + x];
              }
            }
          }
        }
        *shape = {d, 3 * p * p};
        return OkStatus();
      }
    }
    return OkStatus();
  }

  GgufMmproj& out_;
  const GgufShards& f_;
  const io::GgufMetadata& md_;
  std::map<std::string, std::vector<int64_t>, std::less<>> shapes_;
  std::set<std::string> names_;
};

}  // namespace

Result<std::unique_ptr<GgufMmproj>> OpenGgufMmproj(const std::string& path) {
  auto out = std::make_unique<GgufMmproj>();
  GEMMAD_ASSIGN_OR_RETURN(GgufShards file, GgufShards::Open(path));
  out->file = std::make_unique<GgufShards>(std::move(file));
  Reader reader(out.get());
  GEMMAD_RETURN_IF_ERROR(reader.Read());
  return out;
}

}  // namespace gemmad::model
