// QuantizeModelWeights: walks the streamed matrices and converts each with kernels::QuantizeWeights.
#include "model/gemma4/weight_quantization.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>

#include "kernels/ops.h"

namespace gemmad::model::gemma4 {
namespace {

class Quantizer {
 public:
  Quantizer(tensor::DType dtype, const kernels::ExecContext& exec, Weights* w) : dtype_(dtype), exec_(exec), w_(w) {}

  // Converts *v (rows of its last dim) when it can be; an empty view is skipped silently.
  void Convert(tensor::TensorView* v) {
    if (v->data == nullptr) return;
    const int64_t in = v->shape[v->shape.rank - 1];
    if (in % 32 != 0 || (v->dtype != tensor::DType::kF32 && v->dtype != tensor::DType::kBF16)) {
      ++report_.num_kept;
      return;
    }
    tensor::TensorView q = *v;
    q.dtype = dtype_;
    auto buf = std::unique_ptr<uint8_t[]>(new uint8_t[q.SizeBytes()]);
    q.data = buf.get();
    kernels::QuantizeWeights(exec_, *v, q);
    report_.bytes_before += v->SizeBytes();
    report_.bytes_after += q.SizeBytes();
    ++report_.num_quantized;
    w_->owned_bytes.push_back(std::move(buf));
    *v = q;
  }
  QuantizationReport& report() { return report_; }

 private:
  tensor::DType dtype_;
  const kernels::ExecContext& exec_;
  Weights* w_;
  QuantizationReport report_;
};

}  // namespace

Result<WeightQuantization> ParseWeightQuantization(std::string_view name) {
  if (name == "int8") return WeightQuantization::kInt8;
  if (name == "int4") return WeightQuantization::kInt4;
  if (name == "none" || name.empty()) return WeightQuantization::kNone;
  return InvalidArgumentError(fmt::format(
      "quantization method '{}' is not supported (gemmad quantizes at load time: int8 = per-channel int8, "
      "int4 = group-wise int4 in blocks of 32, none)",
      name));
}

std::string_view WeightQuantizationName(WeightQuantization q) {
  switch (q) {
    case WeightQuantization::kInt8: return "int8";
    case WeightQuantization::kInt4: return "int4";
    case WeightQuantization::kNone: return "none";
  }
  return "none";
}

std::string QuantizationReport::ToString() const {
  return fmt::format("{} matrices quantized ({:.1f} MiB -> {:.1f} MiB) in {:.2f} s, {} kept as stored", num_quantized,
                     static_cast<double>(bytes_before) / (1 << 20), static_cast<double>(bytes_after) / (1 << 20),
                     seconds, num_kept);
}

QuantizationReport QuantizeModelWeights(WeightQuantization q, const kernels::ExecContext& exec,
                                        Weights* w) {
  if (q == WeightQuantization::kNone) return {};
  const auto start = std::chrono::steady_clock::now();
  Quantizer z(q == WeightQuantization::kInt8 ? tensor::DType::kQ8R : tensor::DType::kQ4_0, exec, w);
  // The LM head gets its own copy; the embedding rows stay as stored for the gather.
  z.Convert(&w->lm_head);
  z.Convert(&w->ple_model_projection);
  for (LayerWeights& l : w->layers) {
    for (tensor::TensorView* v : {&l.q_proj, &l.k_proj, &l.v_proj, &l.o_proj, &l.gate_proj, &l.up_proj, &l.down_proj,
                                  &l.ple_gate, &l.ple_projection, &l.experts_gate_up, &l.experts_down}) {
      z.Convert(v);
    }
  }
  z.report().seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return z.report();
}

}  // namespace gemmad::model::gemma4
