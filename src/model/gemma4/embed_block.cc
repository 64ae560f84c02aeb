// Token embedding and Per-Layer Embeddings (text-model.md §3.1, §7).
#include <algorithm>
#include <cmath>

#include "io/mmap_file.h"
#include "kernels/ops.h"
#include "model/gemma4/layer_blocks.h"
#include "tensor/half.h"

namespace gemmad::model::gemma4 {

// The reference stores sqrt(n) as an fp32 tensor cast to the weight dtype before multiplying.
float EmbedScale(int64_t n, tensor::DType compute) {
  const float s = static_cast<float>(std::sqrt(static_cast<double>(n)));
  return compute == tensor::DType::kBF16 ? tensor::RoundToBf16(s) : s;
}

namespace {

using tensor::TensorView;

TensorView IdsView(const std::vector<int32_t>& ids) {
  TensorView v;
  v.data = const_cast<int32_t*>(ids.data());
  v.dtype = tensor::DType::kI32;
  v.shape = tensor::Shape{static_cast<int64_t>(ids.size())};
  return v;
}

}  // namespace

void EmbedTokens(const LayerContext& lc) {
  const Config& c = lc.config;
  const Weights& w = lc.weights;
  const int64_t n = lc.batch.num_tokens(), H = c.hidden_size;
  TensorView x = lc.buf.x.View({n, H});
  kernels::EmbeddingGather(lc.exec, w.embed, IdsView(lc.batch.token_ids), EmbedScale(H, w.compute_dtype), x);
  // Multimodal rows take the encoder's output as it is, unscaled (multimodal.md §5.2): host rows
  // copied onto the step's device buffer.
  for (const auto& o : lc.batch.embedding_overrides) {
    TensorView rows{const_cast<float*>(o.data), tensor::DType::kF32, tensor::Shape{o.num_rows, H}};  // host
    TensorView dst = x;
    dst.data = static_cast<float*>(x.data) + o.row * H;
    dst.shape = tensor::Shape{o.num_rows, H};
    kernels::Copy(lc.exec, rows, dst);
  }
  const int64_t P = c.hidden_size_per_layer_input, L = c.num_hidden_layers;
  if (P == 0) return;
  // Token part: the packed table row, scaled by sqrt(P); ids outside the PLE vocabulary, and
  // multimodal rows (§5.3), read row 0 (the pad row), as vLLM does. (Host loops over the batch's
  // token ids, which are host input, and over the mapped table's pages: no tensor data is touched.)
  std::vector<int32_t> ple_ids = lc.batch.token_ids;
  for (int32_t& id : ple_ids) {
    if (id >= c.vocab_size_per_layer_input) id = 0;
  }
  for (const auto& o : lc.batch.embedding_overrides) {
    std::fill(ple_ids.begin() + o.row, ple_ids.begin() + o.row + o.num_rows, 0);
  }
  // The table is a mapped file read a few rows per step: ask for all of the step's rows at once, so
  // rows missing from the page cache are read as one request each, not page fault by page fault.
  // A kQ4_0 table (an int2..int4 checkpoint table read in place) keeps rows in pairs, interleaved
  // block by block (tensor/quant_blocks.h): a row's bytes are its pair's.
  const auto* table = static_cast<const uint8_t*>(w.ple_table.data);
  const size_t row_bytes = static_cast<size_t>(w.ple_table.SizeBytes() / w.ple_table.shape[0]);
  const bool pairs = w.ple_table.dtype == tensor::DType::kQ4_0;
  for (int32_t id : ple_ids) {
    const size_t first = pairs ? static_cast<size_t>(id) / 2 * 2 : static_cast<size_t>(id);
    const size_t rows = pairs ? std::min<size_t>(2, static_cast<size_t>(w.ple_table.shape[0]) - first) : 1;
    io::Advise(table + first * row_bytes, rows * row_bytes, io::Advice::kWillNeed);
  }
  TensorView tok = lc.buf.ple_tmp.View({n, L * P});
  kernels::EmbeddingGather(lc.exec, w.ple_table, IdsView(ple_ids), EmbedScale(P, w.compute_dtype), tok);
  // Context part: projection of the scaled embedding, × H^-1/2, RMSNorm per layer slice.
  TensorView ple = lc.buf.ple.View({n, L * P});
  ProjLinear(lc, x, w.ple_model_projection, ple);
  kernels::Scale(lc.exec, ple, static_cast<float>(1.0 / std::sqrt(static_cast<double>(H))));
  TensorView per_layer = ple;
  per_layer.shape = tensor::Shape{n * L, P};
  kernels::RmsNorm(lc.exec, per_layer, w.ple_projection_norm, per_layer, lc.eps);
  kernels::Add(lc.exec, ple, tok, ple);
  kernels::Scale(lc.exec, ple, static_cast<float>(1.0 / std::sqrt(2.0)));
}

}  // namespace gemmad::model::gemma4
