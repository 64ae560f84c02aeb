// QuantizeModelWeights: walks the streamed matrices and converts each with kernels::QuantizeWeights.
#include "model/gemma4/weight_quantization.h"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "io/mmap_file.h"
#include "io/progress_bar.h"
#include "kernels/ops.h"
#include "tensor/q4_groups.h"

namespace gemmad::model::gemma4 {
namespace {

// Two passes over the same views: Plan() lists the convertible ones and their offsets in one
// arena (in the order a decode step reads them), Run() allocates the arena on huge pages and
// converts into it.
class Quantizer {
 public:
  Quantizer(tensor::DType dtype, const kernels::ExecContext& exec, Weights* w) : dtype_(dtype), exec_(exec), w_(w) {}

  // Counts *v in (rows of its last dim) when it can be converted.
  void Plan(tensor::TensorView* v) {
    const int64_t in = v->shape[v->shape.rank - 1];
    if (in % 32 != 0 || (v->dtype != tensor::DType::kF32 && v->dtype != tensor::DType::kBF16)) {
      ++report_.num_kept;
      return;
    }
    tensor::TensorView q = *v;
    q.dtype = DTypeFor(*v);
    planned_.push_back({v, arena_bytes_});
    // Each matrix starts on a 4 KiB page, so no two share a page and all kernel loads stay aligned.
    arena_bytes_ += (static_cast<size_t>(q.SizeBytes()) + kMatrixAlign - 1) / kMatrixAlign * kMatrixAlign;
  }

  Status Run(const std::string& label) {
    GEMMAD_ASSIGN_OR_RETURN(io::HugePageBuffer arena, io::HugePageBuffer::Allocate(arena_bytes_));
    uint64_t total = 0;
    for (const auto& p : planned_) total += static_cast<uint64_t>(p.view->SizeBytes());
    // Minutes for the large models: a bar on a terminal, log lines in a service log.
    io::ProgressBar progress(label, total, /*enabled=*/true, /*bytes=*/true);
    const io::FileMappings files = io::FileMappings::Read();  // the checkpoint's mappings, read once
    for (const auto& [v, offset] : planned_) {
      tensor::TensorView q = *v;
      q.dtype = DTypeFor(*v);
      q.data = arena.data() + offset;
      kernels::QuantizeWeights(exec_, *v, q);
      report_.bytes_before += v->SizeBytes();
      report_.bytes_after += q.SizeBytes();
      ++report_.num_quantized;
      if (q.dtype == tensor::DType::kQ4_0x16) ++report_.num_grouped;
      progress.Advance(static_cast<uint64_t>(v->SizeBytes()));
      const tensor::TensorView source = *v;
      *v = q;
      report_.released_bytes += ReleaseSource(source, files);
    }
    progress.Finish();
    report_.huge_page_bytes = arena.HugePageBytes();
    w_->owned_bytes.push_back(std::move(arena));
    return OkStatus();
  }
  QuantizationReport& report() { return report_; }

 private:
  // The pages of a converted matrix's source leave the process's resident set as soon as it is
  // converted (io::ReleaseFilePages: mapped checkpoint files only, never anonymous memory), so
  // neither the load's peak nor the serving process holds the bf16 copy beside the quantized one.
  // Only where no view of the model still reads those bytes (a tied embedding's stay for the
  // gather): a reader would get the file's bytes back, without any change made in place.
  size_t ReleaseSource(const tensor::TensorView& source, const io::FileMappings& files) const {
    const ByteRange r = ByteRange::Of(source);
    for (const tensor::TensorView* v : AllViews(*w_)) {
      if (r.Overlaps(ByteRange::Of(*v))) return 0;
    }
    return io::ReleaseFilePages(r.begin, static_cast<size_t>(r.end - r.begin), files);
  }

  // int4 matrices take the layout the backend reads fastest (the same blocks either way);
  // expert stacks (rank 3) keep row pairs, which MoeExperts slices per expert.
  tensor::DType DTypeFor(const tensor::TensorView& v) const {
    if (dtype_ != tensor::DType::kQ4_0 || v.shape.rank != 2) return dtype_;
    return kernels::Int4WeightDType(exec_, v.shape);
  }

  static constexpr size_t kMatrixAlign = 4096;
  struct Planned {
    tensor::TensorView* view;
    size_t offset;
  };
  tensor::DType dtype_;
  const kernels::ExecContext& exec_;
  Weights* w_;
  std::vector<Planned> planned_;
  size_t arena_bytes_ = 0;
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
  return fmt::format("{} matrices quantized ({:.1f} MiB -> {:.1f} MiB, {:.1f} MiB of it on huge pages; {} of them in "
                     "rows of 16) in {:.2f} s, {} kept as stored; {:.1f} MiB of source pages released", num_quantized,
                     static_cast<double>(bytes_before) / (1 << 20), static_cast<double>(bytes_after) / (1 << 20),
                     static_cast<double>(huge_page_bytes) / (1 << 20), num_grouped, seconds, num_kept,
                     static_cast<double>(released_bytes) / (1 << 20));
}

Result<QuantizationReport> QuantizeModelWeights(WeightQuantization q, const kernels::ExecContext& exec,
                                                Weights* w) {
  if (q == WeightQuantization::kNone) return QuantizationReport{};
  const auto start = std::chrono::steady_clock::now();
  Quantizer z(q == WeightQuantization::kInt8 ? tensor::DType::kQ8R : tensor::DType::kQ4_0, exec, w);
  // The LM head gets its own copy; the embedding rows stay as stored for the gather.
  for (tensor::TensorView* v : StreamedMatrices(w)) z.Plan(v);
  GEMMAD_RETURN_IF_ERROR(z.Run(fmt::format("Quantizing weights (--quantization {})", WeightQuantizationName(q))));
  z.report().seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return z.report();
}

int64_t GroupInt4Matrices(const kernels::ExecContext& exec, Weights* w) {
  // A tied head that is the embedding itself (not a vocabulary slice of it) is regrouped with it: the
  // gather reads any int4 layout; any other view of the embedding's bytes keeps them in pairs.
  const bool tied = w->lm_head.data == w->embed.data && w->lm_head.dtype == w->embed.dtype &&
                    w->lm_head.shape == w->embed.shape;
  std::vector<tensor::TensorView*> candidates;
  std::vector<ByteRange> others = {ByteRange::Of(w->ple_table)};  // bytes that must stay as they are
  if (!tied) others.push_back(ByteRange::Of(w->embed));
  for (tensor::TensorView* v : StreamedMatrices(w)) {
    const bool fits = v->dtype == tensor::DType::kQ4_0 && v->shape.rank == 2 &&
                      kernels::Int4WeightDType(exec, v->shape) == tensor::DType::kQ4_0x16;
    if (fits) {
      candidates.push_back(v);
    } else {
      others.push_back(ByteRange::Of(*v));
    }
  }
  int64_t grouped = 0;
  std::vector<uint8_t> pairs;
  for (size_t i = 0; i < candidates.size(); ++i) {
    tensor::TensorView* v = candidates[i];
    const ByteRange r = ByteRange::Of(*v);
    bool shared = false;
    for (const ByteRange& o : others) shared = shared || r.Overlaps(o);
    for (size_t j = 0; j < candidates.size(); ++j) {
      shared = shared || (j != i && r.Overlaps(ByteRange::Of(*candidates[j])));
    }
    if (shared) continue;
    pairs.assign(r.begin, r.end);
    tensor::GroupQ4_0Rows(pairs.data(), v->shape[0], v->shape[1], static_cast<uint8_t*>(v->data));
    v->dtype = tensor::DType::kQ4_0x16;
    if (tied && v == &w->lm_head) w->embed.dtype = v->dtype;
    ++grouped;
  }
  return grouped;
}

}  // namespace gemmad::model::gemma4
