// CtSource (see ct_source.h).
#include "model/ct_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "base/log.h"
#include "io/huge_page_buffer.h"
#include "io/mmap_file.h"
#include "model/ct_config.h"
#include "model/ct_kv_scales.h"
#include "tensor/ct_pack.h"
#include "tensor/half.h"
#include "tensor/i8b_rows.h"
#include "tensor/lut_rows.h"
#include "tensor/quant_blocks.h"

namespace gemmad::model {
namespace {

using tensor::DType;
using tensor::TensorView;

constexpr std::string_view kPacked = ".weight_packed", kScale = ".weight_scale", kShape = ".weight_shape",
                           kZeroPoint = ".weight_zero_point", kGIdx = ".weight_g_idx", kInputScale = ".input_scale",
                           kOutputScale = ".output_scale";

bool EndsWithAny(std::string_view name, std::initializer_list<std::string_view> suffixes) {
  return std::any_of(suffixes.begin(), suffixes.end(), [&](std::string_view s) { return name.ends_with(s); });
}

// How one quantized module is presented.
enum class Out { kQ4_0, kBf16, kF32, kF8R, kLut4R, kLut2R, kI8BR };

struct Module {
  std::string name;  // checkpoint module name (no suffix)
  const CtScheme* scheme = nullptr;
  int64_t rows = 0, cols = 0, groups = 0;  // N, K, scale columns
  int bits = 0;
  TensorView packed, scale, zero_point;    // zero_point.data == nullptr when symmetric
  TensorView fp8;                          // float-quantized: the E4M3 weight [N, K] (packed unused)
  TensorView int8;                         // int-quantized: the int8 weight [N, K] (packed unused)
  bool act_quant = false;                  // static int8 input/output activations (mobile QAT)
  float input_scale = 0.0f, output_scale = 0.0f;
  Out out = Out::kBf16;
  size_t offset = 0, bytes = 0;            // in the arena
  std::string origin;
};


class CtSource final : public WeightSource {
 public:
  static Result<std::unique_ptr<WeightSource>> Open(std::unique_ptr<WeightSource> base, const std::string& qc,
                                                    const CtSourceOptions& options) {
    std::unique_ptr<CtSource> s(new CtSource(std::move(base)));
    auto parsed = ParseCtConfig(qc);
    if (!parsed.ok()) return parsed.status().WithPrefix(s->base_->config_label());
    s->config_ = std::move(parsed).value();
    if (s->config_.kv_cache_scheme) {
      GEMMAD_ASSIGN_OR_RETURN(s->kv_scales_,
                              ReadCtKvScales(*s->config_.kv_cache_scheme, *s->base_, &s->hidden_, &s->config_));
    }
    GEMMAD_RETURN_IF_ERROR(s->Plan(options));
    GEMMAD_RETURN_IF_ERROR(s->Fill());
    return std::unique_ptr<WeightSource>(std::move(s));
  }

  const std::string& label() const override { return base_->label(); }
  const std::string& config_label() const override { return base_->config_label(); }
  const std::string& config_json() const override { return base_->config_json(); }
  const GenerationConfig& generation_config() const override { return base_->generation_config(); }
  const std::vector<std::string>& tensor_names() const override { return names_; }
  const WeightInfo* Info(std::string_view name) const override {
    auto it = info_.find(name);
    if (it != info_.end()) return &it->second;
    return hidden_.contains(name) ? nullptr : base_->Info(name);
  }
  Result<TensorView> View(std::string_view name) const override {
    auto it = views_.find(name);
    if (it != views_.end()) return it->second;
    if (hidden_.contains(name)) return NotFoundError(fmt::format("{}: no tensor '{}'", label(), name));
    return base_->View(name);
  }
  std::vector<std::string> files() const override { return base_->files(); }
  const TokenizerHints& tokenizer_hints() const override { return base_->tokenizer_hints(); }
  std::optional<std::vector<KvCacheScales>> kv_cache_scales() const override { return kv_scales_; }
  std::vector<ActivationQuant> activation_quant() const override {
    std::vector<ActivationQuant> out;
    for (const Module& m : modules_) {
      if (m.act_quant) out.push_back({m.name + ".weight", m.input_scale, m.output_scale});
    }
    return out;
  }

 private:
  explicit CtSource(std::unique_ptr<WeightSource> base) : base_(std::move(base)) {}

  Status Error(const std::string& module, const std::string& what) const {
    return DataLossError(fmt::format("{}: module '{}': {}", base_->config_label(), module, what));
  }

  Result<TensorView> Tensor(const std::string& name, std::initializer_list<DType> dtypes, const std::string& module) const {
    const WeightInfo* info = base_->Info(name);
    if (info == nullptr) return Error(module, fmt::format("tensor '{}' is missing", name));
    if (!info->dtype || std::find(dtypes.begin(), dtypes.end(), *info->dtype) == dtypes.end()) {
      return Error(module, fmt::format("tensor '{}' has dtype {}", name, info->dtype_name));
    }
    return base_->View(name);
  }

  // A static per-tensor int8 activation scale ([1] or a scalar, any float dtype).
  Result<float> ActScale(const std::string& module, std::string_view suffix) const {
    GEMMAD_ASSIGN_OR_RETURN(TensorView v, Tensor(module + std::string(suffix), {DType::kF32, DType::kBF16, DType::kF16}, module));
    if (v.NumElements() != 1) return Error(module, fmt::format("{} is {}, not one value", suffix.substr(1), v.shape.ToString()));
    const float s = ScaleAt(v, 0);
    if (!(s >= 0.0f) || !std::isfinite(s)) return Error(module, fmt::format("{} is {}", suffix.substr(1), s));
    return s;
  }

  // Static int8 per-tensor activations around the module (mobile QAT's a8/o8): their scales, and
  // the module runs on its reference weights (dequantized) so the product is the reference's.
  Status PlanActivations(Module& m, const std::string& scheme) {
    const auto& in = m.scheme->input_activations;
    const auto& out = m.scheme->output_activations;
    if (!in && !out) return OkStatus();
    for (const auto* a : {&in, &out}) {
      if (!*a) continue;
      const CtArgs& x = **a;
      if (x.is_float || x.num_bits != 8 || x.dynamic || !x.symmetric || x.strategy != CtStrategy::kTensor) {
        return Error(m.name, fmt::format("{}: quantized activations ({}) are not supported yet; gemmad runs weight-only "
                                         "schemes, static int8 per-tensor activations and FP8_DYNAMIC",
                                         scheme, x.ToString()));
      }
    }
    m.act_quant = true;
    if (in) {
      GEMMAD_ASSIGN_OR_RETURN(m.input_scale, ActScale(m.name, kInputScale));
    }
    if (out) {
      GEMMAD_ASSIGN_OR_RETURN(m.output_scale, ActScale(m.name, kOutputScale));
    }
    return OkStatus();
  }

  Status PlanModule(const std::string& name, const CtSourceOptions& options, bool int_quantized = false) {
    Module m;
    m.name = name;
    m.scheme = config_.SchemeFor(name, CtKindOf(name));
    if (m.scheme == nullptr || !m.scheme->weights) {
      return Error(name, fmt::format("has {} weights but the quantization_config gives it no weight scheme",
                                     int_quantized ? "int8" : "packed"));
    }
    const CtArgs& w = *m.scheme->weights;
    const std::string scheme = fmt::format("scheme {} ({})", m.scheme->name, w.ToString());
    if (int_quantized ? (m.scheme->format != "int-quantized" && m.scheme->format != "naive-quantized")
                      : m.scheme->format != "pack-quantized") {
      return Error(name, fmt::format("{} has format \"{}\" but the tensors are {}", scheme, m.scheme->format,
                                     int_quantized ? "int8 (int-quantized)" : "pack-quantized"));
    }
    if (w.is_float || w.dynamic) return Error(name, scheme + ": packed weights must be static integers");
    if (w.strategy != CtStrategy::kTensor && w.strategy != CtStrategy::kChannel && w.strategy != CtStrategy::kGroup) {
      return Error(name, scheme + ": only tensor, channel and group weight strategies are supported");
    }
    if (w.actorder == "group" || w.actorder == "dynamic" || base_->Info(name + std::string(kGIdx)) != nullptr) {
      return Error(name, scheme + ": activation ordering (weight_g_idx) is not supported, as in vLLM");
    }
    GEMMAD_RETURN_IF_ERROR(PlanActivations(m, scheme));
    m.bits = w.num_bits;
    if (int_quantized) {
      GEMMAD_ASSIGN_OR_RETURN(m.int8, Tensor(name + ".weight", {DType::kI8}, name));
      if (m.int8.shape.rank != 2) return Error(name, fmt::format("weight is {}, not a matrix", m.int8.shape.ToString()));
      m.rows = m.int8.shape[0];
      m.cols = m.int8.shape[1];
      if (base_->Info(name + std::string(kPacked)) != nullptr) return Error(name, "has both a weight and a weight_packed");
    } else {
      GEMMAD_ASSIGN_OR_RETURN(TensorView shape, Tensor(name + std::string(kShape), {DType::kI64, DType::kI32}, name));
      if (shape.NumElements() != 2) return Error(name, "weight_shape does not hold two sizes");
      m.rows = shape.dtype == DType::kI64 ? shape.As<const int64_t>()[0] : shape.As<const int32_t>()[0];
      m.cols = shape.dtype == DType::kI64 ? shape.As<const int64_t>()[1] : shape.As<const int32_t>()[1];
      if (m.rows <= 0 || m.cols <= 0 || m.rows > (int64_t{1} << 31) || m.cols > (int64_t{1} << 31)) {
        return Error(name, fmt::format("weight_shape [{}, {}] is not a matrix shape", m.rows, m.cols));
      }
      GEMMAD_ASSIGN_OR_RETURN(m.packed, Tensor(name + std::string(kPacked), {DType::kI32}, name));
      const int64_t words = tensor::CtPackedWords(m.cols, m.bits);
      if (!(m.packed.shape == tensor::Shape{m.rows, words})) {
        return Error(name, fmt::format("weight_packed is {} but int{} rows of {} take [{}, {}]", m.packed.shape.ToString(),
                                       m.bits, m.cols, m.rows, words));
      }
    }
    m.groups = w.strategy == CtStrategy::kGroup ? (m.cols + w.group_size - 1) / w.group_size : 1;
    GEMMAD_ASSIGN_OR_RETURN(m.scale, Tensor(name + std::string(kScale), {DType::kBF16, DType::kF16, DType::kF32}, name));
    const bool per_tensor = w.strategy == CtStrategy::kTensor;
    if (per_tensor ? m.scale.NumElements() != 1 : !(m.scale.shape == tensor::Shape{m.rows, m.groups})) {
      return Error(name, fmt::format("weight_scale is {}; {} over [{}, {}] needs {}", m.scale.shape.ToString(), w.ToString(),
                                     m.rows, m.cols, per_tensor ? std::string("[1]") : fmt::format("[{}, {}]", m.rows, m.groups)));
    }
    if (!w.symmetric) {
      GEMMAD_ASSIGN_OR_RETURN(m.zero_point, Tensor(name + std::string(kZeroPoint), {DType::kI32, DType::kI8}, name));
      const int64_t zp_rows = per_tensor ? 1 : m.rows;
      const bool ok = m.zero_point.dtype == DType::kI8
                          ? m.zero_point.NumElements() == zp_rows * m.groups
                          : m.zero_point.shape == tensor::Shape{tensor::CtPackedWords(zp_rows, m.bits), m.groups} ||
                                (per_tensor && m.zero_point.NumElements() == 1);
      if (!ok) return Error(name, fmt::format("weight_zero_point is {}", m.zero_point.shape.ToString()));
    } else if (base_->Info(name + std::string(kZeroPoint)) != nullptr) {
      return Error(name, scheme + " is symmetric but the checkpoint has a weight_zero_point");
    }
    m.origin = base_->Info(name + std::string(int_quantized ? ".weight" : kPacked))->origin;
    m.out = m.scale.dtype == DType::kBF16 ? Out::kBf16 : Out::kF32;
    const int lut = LutBitsOf(m);
    if (!options.dequantize_all && !m.act_quant && Q4Native(m)) {
      m.out = Out::kQ4_0;
    } else if (!options.dequantize_all && lut != 0 && LutTablesFit(m)) {
      m.out = lut == 2 ? Out::kLut2R : Out::kLut4R;
    } else if (!options.dequantize_all && I8BNative(m)) {
      m.out = Out::kI8BR;
    }
    m.bytes = m.out == Out::kQ4_0 || m.out == Out::kLut4R || m.out == Out::kLut2R || m.out == Out::kI8BR
                  ? tensor::RowBytes(OutDType(m.out), m.cols) * static_cast<size_t>(m.rows)
                  : static_cast<size_t>(m.rows * m.cols) * (m.out == Out::kBf16 ? 2 : 4);
    m.offset = arena_bytes_;
    arena_bytes_ += (m.bytes + 63) / 64 * 64;
    modules_.push_back(std::move(m));
    return OkStatus();
  }

  // int2..int4 symmetric, every 32-block inside one scale group, every scale exact in f16: the
  // integers fit Q4_0's nibbles (u = q + 8) as they are.
  static bool Q4Native(const Module& m) {
    const CtArgs& w = *m.scheme->weights;
    if (m.bits < 2 || m.bits > 4 || !w.symmetric || m.cols % tensor::kQuantBlock != 0 || m.int8.data != nullptr) {
      return false;
    }
    if (w.strategy == CtStrategy::kGroup && w.group_size % tensor::kQuantBlock != 0) return false;
    for (int64_t i = 0; i < m.scale.NumElements(); ++i) {
      const float s = ScaleAt(m.scale, i);
      if (tensor::F16ToFloat(tensor::FloatToF16(s)) != s) return false;
    }
    return true;
  }

  // int2..int4 with one scale (and zero point) per row, packed: every weight of a row is one of
  // its 2^b reference values, so the row is read in place as codes into a table of exactly those
  // values (tensor/lut_rows.h): the mobile QAT Linears (whose reference product, bf16(q·s) times
  // the fake-quantized input, the int8 kernels cannot reproduce). The code width of the layout: 2
  // for int2 rows of whole 64-groups, else 4; 0 when the module does not qualify.
  static int LutBitsOf(const Module& m) {
    const CtStrategy st = m.scheme->weights->strategy;
    if (m.bits < 2 || m.bits > 4 || m.int8.data != nullptr || (st != CtStrategy::kChannel && st != CtStrategy::kTensor)) {
      return 0;
    }
    if (m.bits == 2 && m.cols % tensor::LutGroupElements(2) == 0) return 2;
    return m.cols % tensor::LutGroupElements(4) == 0 ? 4 : 0;
  }

  // int8 `int-quantized` symmetric weights with bf16 scales per row (or one per tensor) and static
  // int8 activations: each weight is bf16(q · s), which a kI8BR row (tensor/i8b_rows.h) holds as the
  // checkpoint's bytes and a scale: the mobile QAT files' PLE gates. Weight-only int8 modules stay
  // dequantized (bf16 rows, which tensor parallelism can split; kI8BR rows it cannot yet).
  static bool I8BNative(const Module& m) {
    const CtStrategy st = m.scheme->weights->strategy;
    return m.int8.data != nullptr && m.act_quant && m.scheme->weights->symmetric && m.scale.dtype == DType::kBF16 &&
           (st == CtStrategy::kChannel || st == CtStrategy::kTensor);
  }

  static DType OutDType(Out o) {
    switch (o) {
      case Out::kQ4_0: return DType::kQ4_0;
      case Out::kF8R: return DType::kF8R;
      case Out::kLut4R: return DType::kLut4R;
      case Out::kLut2R: return DType::kLut2R;
      case Out::kI8BR: return DType::kI8BR;
      case Out::kBf16: return DType::kBF16;
      case Out::kF32: return DType::kF32;
    }
    return DType::kF32;
  }

  // FP8 weights (float-quantized, RedHat's *-FP8-dynamic: per-channel E4M3, dynamic per-token FP8
  // activations) as kF8R rows {fp32 scale; the checkpoint's bytes}.
  Status PlanFp8Module(const std::string& name) {
    Module m;
    m.name = name;
    m.scheme = config_.SchemeFor(name, CtKindOf(name));
    if (m.scheme == nullptr || !m.scheme->weights) {
      return Error(name, "has FP8 weights but the quantization_config gives it no weight scheme");
    }
    const CtArgs& w = *m.scheme->weights;
    const std::string scheme = fmt::format("scheme {} ({})", m.scheme->name, w.ToString());
    if (!w.is_float || w.num_bits != 8 || !w.symmetric || w.dynamic ||
        (w.strategy != CtStrategy::kChannel && w.strategy != CtStrategy::kTensor)) {
      return Error(name, scheme + ": FP8 weights must be float8, static, symmetric, per channel or per tensor");
    }
    if (m.scheme->format != "float-quantized" && m.scheme->format != "naive-quantized") {
      return Error(name, fmt::format("{} has format \"{}\" but the weight is stored as F8_E4M3", scheme, m.scheme->format));
    }
    const auto& a = m.scheme->input_activations;
    if (!a || !a->is_float || a->num_bits != 8 || !a->dynamic || a->strategy != CtStrategy::kToken || !a->symmetric ||
        m.scheme->output_activations) {
      return Error(name, fmt::format("{}: FP8 weights run with dynamic per-token FP8 activations (FP8_DYNAMIC); input "
                                     "activations {} are not supported yet",
                                     scheme, a ? a->ToString() : std::string("none (W8A16)")));
    }
    GEMMAD_ASSIGN_OR_RETURN(m.fp8, Tensor(name + ".weight", {DType::kF8E4M3}, name));
    if (m.fp8.shape.rank != 2) return Error(name, fmt::format("weight is {}, not a matrix", m.fp8.shape.ToString()));
    m.rows = m.fp8.shape[0];
    m.cols = m.fp8.shape[1];
    m.groups = 1;
    GEMMAD_ASSIGN_OR_RETURN(m.scale, Tensor(name + std::string(kScale), {DType::kBF16, DType::kF16, DType::kF32}, name));
    const bool per_tensor = w.strategy == CtStrategy::kTensor;
    if (per_tensor ? m.scale.NumElements() != 1 : m.scale.NumElements() != m.rows) {
      return Error(name, fmt::format("weight_scale is {}; {} over [{}, {}] needs {}", m.scale.shape.ToString(), w.ToString(),
                                     m.rows, m.cols, per_tensor ? std::string("[1]") : fmt::format("[{}, 1]", m.rows)));
    }
    m.origin = base_->Info(name + ".weight")->origin;
    m.out = Out::kF8R;
    m.bytes = tensor::RowBytes(DType::kF8R, m.cols) * static_cast<size_t>(m.rows);
    m.offset = arena_bytes_;
    arena_bytes_ += (m.bytes + 63) / 64 * 64;
    modules_.push_back(std::move(m));
    return OkStatus();
  }

  Status Plan(const CtSourceOptions& options) {
    if (!config_.compressed()) {
      GEMMAD_LOG_INFO("{}: compressed-tensors quantization_status \"{}\": the weights are stored unpacked",
                      base_->config_label(), config_.quantization_status);
    }
    for (const std::string& n : base_->tensor_names()) {
      if (n.ends_with(kPacked)) {
        GEMMAD_RETURN_IF_ERROR(PlanModule(n.substr(0, n.size() - kPacked.size()), options));
        continue;
      }
      const WeightInfo* info = base_->Info(n);
      if (n.ends_with(".weight") && info != nullptr && info->dtype == DType::kF8E4M3) {
        GEMMAD_RETURN_IF_ERROR(PlanFp8Module(n.substr(0, n.size() - 7)));
        continue;
      }
      if (n.ends_with(".weight") && info != nullptr && info->dtype == DType::kI8) {
        GEMMAD_RETURN_IF_ERROR(PlanModule(n.substr(0, n.size() - 7), options, /*int_quantized=*/true));
        continue;
      }
      if (n.ends_with(".weight") && info != nullptr && info->dtype_name == "F8_E5M2") {
        const std::string module = n.substr(0, n.size() - 7);
        const CtScheme* s = config_.SchemeFor(module, CtKindOf(module));
        return Error(module, fmt::format("{} weights ({}) are not supported yet (FP8 weights must be E4M3)",
                                         info->dtype_name, s && s->weights ? s->weights->ToString() : "no scheme"));
      }
    }
    std::set<std::string, std::less<>> names, planned;
    for (const Module& m : modules_) planned.insert(m.name);
    for (const std::string& n : base_->tensor_names()) {
      if (hidden_.contains(n)) continue;  // the KV cache scales (ReadCtKvScales)
      if (EndsWithAny(n, {kPacked, kScale, kShape, kZeroPoint, kGIdx, kInputScale, kOutputScale})) {
        const std::string module = n.substr(0, n.rfind('.'));
        if (!planned.contains(module)) {
          return Error(module, fmt::format("tensor '{}' without a quantized weight", n));
        }
        hidden_.insert(n);
        continue;
      }
      names.insert(n);
    }
    for (const Module& m : modules_) {
      const std::string w = m.name + ".weight";
      if (m.out != Out::kF8R && m.int8.data == nullptr && names.contains(w)) {
        return Error(m.name, "has both a weight and a weight_packed");
      }
      names.insert(w);  // an FP8 module's own name: presented as kF8R
    }
    GEMMAD_RETURN_IF_ERROR(PlanExpertStacks(&names));
    names_.assign(names.begin(), names.end());
    return OkStatus();
  }

  // Per-expert 2-D modules (`<p>.experts.<e>.{gate,up,down}_proj`, as llm-compressor saves the
  // 26B-A4B after unfusing its experts: RedHat's *-26B-A4B-it-FP8-dynamic) become the stacks the
  // MoE kernels read, `<p>.gate_up_proj` [E, 2·Ie, H] (each expert's gate rows, then its up rows)
  // and `<p>.down_proj` [E, H, Ie]: the experts' rows laid out back to back in the arena, so a
  // stack is one view. FP8 only (kF8R rows); the members are not listed.
  Status PlanExpertStacks(std::set<std::string, std::less<>>* names) {
    static const std::regex kExpert(R"((.*\.experts)\.(\d+)\.(gate|up|down)_proj)");
    std::map<std::string, std::map<int64_t, std::array<int, 3>>> groups;  // prefix -> expert -> module (gate, up, down)
    for (size_t i = 0; i < modules_.size(); ++i) {
      std::smatch mt;
      if (!std::regex_match(modules_[i].name, mt, kExpert)) continue;
      if (modules_[i].out != Out::kF8R) {
        return Error(modules_[i].name, "per-expert weights are read as FP8 only (RedHat's *-FP8-dynamic layout); "
                                       "this scheme's are not supported yet");
      }
      const int64_t e = std::stoll(mt[2].str().substr(0, 9));
      auto& slot = groups[mt[1].str()].try_emplace(e, std::array<int, 3>{-1, -1, -1}).first->second;
      slot[mt[3] == "gate" ? 0 : mt[3] == "up" ? 1 : 2] = static_cast<int>(i);
    }
    if (groups.empty()) return OkStatus();
    std::vector<bool> member(modules_.size(), false);
    for (auto& [prefix, experts] : groups) {
      const int64_t E = static_cast<int64_t>(experts.size());
      if (experts.rbegin()->first != E - 1) {
        return Error(prefix,
                     fmt::format("has {} per-expert modules but expert {} among them", E, experts.rbegin()->first));
      }
      Stack st;
      st.prefix = prefix;
      for (const auto& [e, slot] : experts) {
        for (int k = 0; k < 3; ++k) {
          if (slot[k] < 0) {
            return Error(fmt::format("{}.{}", prefix, e),
                         fmt::format("has no {}_proj", k == 0 ? "gate" : k == 1 ? "up" : "down"));
          }
          member[static_cast<size_t>(slot[k])] = true;
        }
        const Module& g = modules_[static_cast<size_t>(slot[0])];
        const Module& u = modules_[static_cast<size_t>(slot[1])];
        const Module& d = modules_[static_cast<size_t>(slot[2])];
        if (e == 0) {
          st.inter = g.rows;
          st.hidden = g.cols;
        }
        if (g.rows != st.inter || u.rows != st.inter || g.cols != st.hidden || u.cols != st.hidden ||
            d.rows != st.hidden || d.cols != st.inter) {
          return Error(fmt::format("{}.{}", prefix, e),
                       fmt::format("gate {}x{}, up {}x{}, down {}x{}: the experts must all be [{}, {}] and [{}, {}]",
                                   g.rows, g.cols, u.rows, u.cols, d.rows, d.cols, st.inter, st.hidden, st.hidden,
                                   st.inter));
        }
        st.gate_up.push_back(slot[0]);
        st.gate_up.push_back(slot[1]);
        st.down.push_back(slot[2]);
      }
      st.experts = E;
      stacks_.push_back(std::move(st));
    }
    // Offsets again: every other module as before, then each stack's members back to back.
    arena_bytes_ = 0;
    for (size_t i = 0; i < modules_.size(); ++i) {
      if (member[i]) continue;
      modules_[i].offset = arena_bytes_;
      arena_bytes_ += (modules_[i].bytes + 63) / 64 * 64;
    }
    for (const Stack& st : stacks_) {
      for (const std::vector<int>* part : {&st.gate_up, &st.down}) {
        for (int i : *part) {
          Module& m = modules_[static_cast<size_t>(i)];
          m.offset = arena_bytes_;
          arena_bytes_ += m.bytes;
          names->erase(m.name + ".weight");
          hidden_.insert(m.name + ".weight");
        }
        arena_bytes_ = (arena_bytes_ + 63) / 64 * 64;
      }
      names->insert(st.prefix + ".gate_up_proj");
      names->insert(st.prefix + ".down_proj");
    }
    return OkStatus();
  }

  // After Fill: the stacks' views (PlanExpertStacks), in place of their members'.
  void AddExpertStackViews() {
    for (const Stack& st : stacks_) {
      const Module& first = modules_[static_cast<size_t>(st.gate_up[0])];
      const Module& first_down = modules_[static_cast<size_t>(st.down[0])];
      const std::pair<std::string, tensor::Shape> stacks[2] = {
          {st.prefix + ".gate_up_proj", tensor::Shape{st.experts, 2 * st.inter, st.hidden}},
          {st.prefix + ".down_proj", tensor::Shape{st.experts, st.hidden, st.inter}}};
      for (int k = 0; k < 2; ++k) {
        TensorView v;
        v.data = arena_.data() + (k == 0 ? first : first_down).offset;
        v.dtype = DType::kF8R;
        v.shape = stacks[k].second;
        WeightInfo info;
        info.shape = {v.shape[0], v.shape[1], v.shape[2]};
        info.dtype = DType::kF8R;
        info.dtype_name = std::string(tensor::DTypeName(DType::kF8R));
        info.size_bytes = tensor::RowBytes(DType::kF8R, v.shape[2]) * static_cast<size_t>(v.shape[0] * v.shape[1]);
        info.origin = (k == 0 ? first : first_down).origin;
        views_.emplace(stacks[k].first, v);
        info_.emplace(stacks[k].first, std::move(info));
      }
      for (const std::vector<int>* part : {&st.gate_up, &st.down}) {
        for (int i : *part) {
          views_.erase(modules_[static_cast<size_t>(i)].name + ".weight");
          info_.erase(modules_[static_cast<size_t>(i)].name + ".weight");
        }
      }
    }
  }

  Status Fill() {
    GEMMAD_ASSIGN_OR_RETURN(arena_, io::HugePageBuffer::Allocate(arena_bytes_));
    size_t native = 0, dequantized = 0, fp8 = 0, lut = 0, int8 = 0;
    // A module's tensors are hidden once converted and nothing reads them again: their mapped pages
    // leave the resident set (they stay in the page cache; a read would fault them back in).
    const io::FileMappings files = io::FileMappings::Read();
    for (const Module& m : modules_) {
      uint8_t* dst = arena_.data() + m.offset;
      if (m.out == Out::kQ4_0) {
        FillQ4(m, dst);
        ++native;
      } else if (m.out == Out::kLut4R || m.out == Out::kLut2R) {
        FillLut(m, dst);
        ++lut;
      } else if (m.out == Out::kF8R) {
        FillF8R(m, dst);
        ++fp8;
      } else if (m.out == Out::kI8BR) {
        FillI8BR(m, dst);
        ++int8;
      } else {
        Dequantize(m, dst);
        ++dequantized;
      }
      TensorView v;
      v.data = dst;
      v.dtype = OutDType(m.out);
      v.shape = tensor::Shape{m.rows, m.cols};
      WeightInfo info;
      info.shape = {m.rows, m.cols};
      info.dtype = v.dtype;
      info.dtype_name = std::string(tensor::DTypeName(v.dtype));
      info.size_bytes = m.bytes;
      info.origin = m.origin;
      views_.emplace(m.name + ".weight", v);
      info_.emplace(m.name + ".weight", std::move(info));
      for (const TensorView* t : {&m.packed, &m.scale, &m.zero_point, &m.fp8, &m.int8}) {
        if (t->data != nullptr) released_bytes_ += io::ReleaseFilePages(t->data, t->SizeBytes(), files);
      }
    }
    AddExpertStackViews();
    const auto act = std::count_if(modules_.begin(), modules_.end(), [](const Module& m) { return m.act_quant; });
    GEMMAD_LOG_INFO("compressed-tensors checkpoint: {} modules read in place as int4 blocks of 32, {} as code tables "
                    "per row, {} as FP8 rows, {} as int8 rows, {} dequantized to their reference weights at load "
                    "({:.1f} MiB); {} with static int8 activations; {:.1f} MiB of source pages released",
                    native, lut, fp8, int8, dequantized, static_cast<double>(arena_bytes_) / (1 << 20), act,
                    static_cast<double>(released_bytes_) / (1 << 20));
    return OkStatus();
  }

  // Scale of element (r, k).
  float ScaleOf(const Module& m, int64_t r, int64_t k) const {
    const CtArgs& w = *m.scheme->weights;
    if (w.strategy == CtStrategy::kTensor) return ScaleAt(m.scale, 0);
    const int64_t g = w.strategy == CtStrategy::kGroup ? k / w.group_size : 0;
    return ScaleAt(m.scale, r * m.groups + g);
  }
  // Zero points as [rows (1 per tensor), groups] integers; empty when symmetric.
  std::vector<int32_t> ZeroPoints(const Module& m) const {
    if (m.zero_point.data == nullptr) return {};
    const int64_t rows = m.scheme->weights->strategy == CtStrategy::kTensor ? 1 : m.rows;
    std::vector<int32_t> out(static_cast<size_t>(rows * m.groups));
    if (m.zero_point.dtype == DType::kI8) {
      for (size_t i = 0; i < out.size(); ++i) out[i] = m.zero_point.As<const int8_t>()[i];
      return out;
    }
    // Packed along the rows: column g of the [ceil(rows*b/32), G] words is one bit stream over rows.
    const int64_t packed_rows = m.zero_point.NumElements() / m.groups;
    std::vector<int32_t> column(static_cast<size_t>(packed_rows));
    for (int64_t g = 0; g < m.groups; ++g) {
      for (int64_t i = 0; i < packed_rows; ++i) column[static_cast<size_t>(i)] = m.zero_point.As<const int32_t>()[i * m.groups + g];
      for (int64_t r = 0; r < rows; ++r) out[static_cast<size_t>(r * m.groups + g)] = tensor::CtUnpack(column.data(), r, m.bits);
    }
    return out;
  }

  void Dequantize(const Module& m, uint8_t* dst) const {
    const auto* packed = m.packed.As<const int32_t>();
    const int64_t words = m.int8.data != nullptr ? 0 : m.packed.shape[1];
    const std::vector<int32_t> zp = ZeroPoints(m);
    const CtArgs& w = *m.scheme->weights;
    for (int64_t r = 0; r < m.rows; ++r) {
      const int32_t* row = packed + r * words;
      const int8_t* plain = m.int8.data != nullptr ? m.int8.As<const int8_t>() + r * m.cols : nullptr;
      for (int64_t k = 0; k < m.cols; ++k) {
        const int64_t g = w.strategy == CtStrategy::kGroup ? k / w.group_size : 0;
        const int32_t z = zp.empty() ? 0 : zp[static_cast<size_t>((w.strategy == CtStrategy::kTensor ? 0 : r) * m.groups + g)];
        const int32_t q = plain != nullptr ? plain[k] : tensor::CtUnpack(row, k, m.bits);
        const float v = ReferenceValue(m, q - z, ScaleOf(m, r, k));
        const size_t i = static_cast<size_t>(r * m.cols + k);
        if (m.out == Out::kBf16) {
          reinterpret_cast<uint16_t*>(dst)[i] = tensor::FloatToBf16(v);  // exact: v is a bf16 value
        } else {
          reinterpret_cast<float*>(dst)[i] = v;
        }
      }
    }
  }

  // The library's weight (q - z) · s, rounded once to the scale's dtype (it multiplies in bf16 for
  // a bf16 scale, f16 for f16).
  static float ReferenceValue(const Module& m, int32_t q_minus_z, float s) {
    const float v = static_cast<float>(q_minus_z) * s;
    if (m.scale.dtype == DType::kBF16) return tensor::Bf16ToFloat(tensor::FloatToBf16(v));
    if (m.scale.dtype == DType::kF16) return tensor::F16ToFloat(tensor::FloatToF16(v));
    return v;
  }

  // Row r's table: its 2^b reference values as 16-bit integers times a unit (tensor/lut_rows.h);
  // false when they have no such form (non-finite scales, zero points far outside the code range).
  bool RowTable(const Module& m, const std::vector<int32_t>& zp, int64_t r, tensor::LutTable* table) const {
    const int n = 1 << m.bits, offset = 1 << (m.bits - 1);
    const bool per_tensor = m.scheme->weights->strategy == CtStrategy::kTensor;
    const int32_t z = zp.empty() ? 0 : zp[static_cast<size_t>(per_tensor ? 0 : r)];
    const float s = ScaleOf(m, r, 0);
    float values[16];
    for (int u = 0; u < n; ++u) values[u] = ReferenceValue(m, u - offset - z, s);
    return tensor::LutTableOf(values, n, s, table);
  }

  bool LutTablesFit(const Module& m) const {
    const std::vector<int32_t> zp = ZeroPoints(m);
    tensor::LutTable table;
    for (int64_t r = 0; r < m.rows; ++r) {
      if (!RowTable(m, zp, r, &table)) return false;
    }
    return true;
  }

  // kLut4R / kLut2R rows: each row's table (checked by LutTablesFit at planning), its codes as stored.
  void FillLut(const Module& m, uint8_t* dst) const {
    const int layout = m.out == Out::kLut2R ? 2 : 4;
    const size_t stride = tensor::RowBytes(OutDType(m.out), m.cols);
    const std::vector<int32_t> zp = ZeroPoints(m);
    std::vector<uint8_t> codes(static_cast<size_t>(m.cols));
    for (int64_t r = 0; r < m.rows; ++r) {
      tensor::LutTable table;
      GEMMAD_CHECK(RowTable(m, zp, r, &table), "FillLut: {} row {}", m.name, r);
      const int32_t* row = m.packed.As<const int32_t>() + r * m.packed.shape[1];
      for (int64_t k = 0; k < m.cols; ++k) codes[static_cast<size_t>(k)] = static_cast<uint8_t>(tensor::CtUnpackU(row, k, m.bits));
      tensor::WriteLutRow(table, m.bits, layout, codes.data(), m.cols, dst + static_cast<size_t>(r) * stride);
    }
  }

  void FillI8BR(const Module& m, uint8_t* dst) const {
    const size_t stride = tensor::RowBytes(DType::kI8BR, m.cols);
    for (int64_t r = 0; r < m.rows; ++r) {
      const int8_t* q = m.int8.As<const int8_t>() + r * m.cols;
      tensor::WriteI8BRow(ScaleOf(m, r, 0), q, m.cols, dst + static_cast<size_t>(r) * stride);
    }
  }

  void FillF8R(const Module& m, uint8_t* dst) const {
    const size_t stride = tensor::RowBytes(DType::kF8R, m.cols);
    for (int64_t r = 0; r < m.rows; ++r) {
      const float d = ScaleAt(m.scale, m.scale.NumElements() == 1 ? 0 : r);
      uint8_t* row = dst + static_cast<size_t>(r) * stride;
      std::memcpy(row, &d, sizeof(float));
      std::memcpy(row + sizeof(float), m.fp8.As<const uint8_t>() + r * m.cols, static_cast<size_t>(m.cols));
    }
  }

  // kQ4_0: rows in pairs (block b of rows 2p, 2p+1 = {d[2]; qs[2][16]}), a lone last row as plain
  // blocks; nibble j of a block holds element j (low) and j + 16 (high), each u = q + 8.
  void FillQ4(const Module& m, uint8_t* dst) const {
    const int64_t nb = m.cols / tensor::kQuantBlock, words = m.packed.shape[1];
    const auto* packed = m.packed.As<const int32_t>();
    for (int64_t r = 0; r < m.rows; ++r) {
      const int32_t* row = packed + r * words;
      for (int64_t b = 0; b < nb; ++b) {
        uint16_t* d;
        uint8_t* qs;
        if (m.rows % 2 == 1 && r == m.rows - 1) {
          auto* blk = reinterpret_cast<tensor::BlockQ4_0*>(dst) + (r * nb + b);
          d = &blk->d;
          qs = blk->qs;
        } else {
          auto* blk = reinterpret_cast<tensor::BlockQ4_0x2*>(dst) + ((r / 2) * nb + b);
          d = &blk->d[r % 2];
          qs = blk->qs[r % 2];
        }
        *d = tensor::FloatToF16(ScaleOf(m, r, b * tensor::kQuantBlock));
        const int32_t to_nibble = 8 - (1 << (m.bits - 1));  // the CT value u = q + 2^(b-1) -> q + 8
        for (int64_t j = 0; j < 16; ++j) {
          const int64_t k = b * tensor::kQuantBlock + j;
          qs[j] = static_cast<uint8_t>((tensor::CtUnpackU(row, k, m.bits) + to_nibble) |
                                       ((tensor::CtUnpackU(row, k + 16, m.bits) + to_nibble) << 4));
        }
      }
    }
  }

  std::unique_ptr<WeightSource> base_;
  CtConfig config_;
  std::vector<Module> modules_;
  // One MoE layer's per-expert FP8 modules presented as stacks (PlanExpertStacks).
  struct Stack {
    std::string prefix;           // "model.language_model.layers.3.experts"
    int64_t experts = 0, inter = 0, hidden = 0;
    std::vector<int> gate_up, down;  // modules_ indices: gate 0, up 0, gate 1, ...; down 0, down 1, ...
  };
  std::vector<Stack> stacks_;
  size_t arena_bytes_ = 0;
  size_t released_bytes_ = 0;  // mapped pages of converted modules released after Fill converted them
  io::HugePageBuffer arena_;
  std::vector<std::string> names_;
  std::set<std::string, std::less<>> hidden_;
  std::optional<std::vector<KvCacheScales>> kv_scales_;  // set when the config has a kv_cache_scheme
  std::map<std::string, TensorView, std::less<>> views_;
  std::map<std::string, WeightInfo, std::less<>> info_;
};

}  // namespace

Result<std::optional<std::string>> FindQuantizationConfig(const std::string& config_json, const std::string& label) {
  auto j = nlohmann::ordered_json::parse(config_json, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::optional<std::string>();  // the config parser says why
  auto it = j.find("quantization_config");
  if (it == j.end() || it->is_null()) return std::optional<std::string>();
  if (!it->is_object()) return DataLossError(label + ": quantization_config is not an object");
  return std::optional<std::string>(it->dump());
}

std::string QuantizationMethodOf(const std::string& qc) {
  auto j = nlohmann::json::parse(qc, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object() || !j.contains("quant_method") || !j["quant_method"].is_string()) return "";
  return j["quant_method"].get<std::string>();
}

Result<std::unique_ptr<WeightSource>> OpenCtSource(std::unique_ptr<WeightSource> base, const std::string& qc,
                                                   const CtSourceOptions& options) {
  return CtSource::Open(std::move(base), qc, options);
}

}  // namespace gemmad::model
