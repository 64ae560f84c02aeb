// Tensor-parallel slices of a Gemma 4 decoder's weights (tp_shard.h).
#include "model/gemma4/tp_shard.h"

#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "io/huge_page_buffer.h"
#include "tensor/quant_blocks.h"

namespace gemmad::model::gemma4 {
namespace {

using tensor::DType;

Status NotDivisible(TpRank tp, int64_t n, const char* what) {
  return InvalidArgumentError(fmt::format("tensor parallel size {} does not divide the {} {} of this model", tp.size,
                                          n, what));
}

// KV heads per rank: nkv / t when t divides nkv; 1 (replicated) when nkv divides t.
Result<int64_t> LocalKvHeads(int64_t nkv, TpRank tp, const char* what) {
  if (nkv <= 0) return nkv;
  if (nkv % tp.size == 0) return nkv / tp.size;
  if (tp.size % nkv == 0) return int64_t{1};
  return InvalidArgumentError(fmt::format(
      "tensor parallel size {} and the {} {} of this model: one must divide the other", tp.size, nkv, what));
}

// Every storage type the weight sources produce: plain elements and ggml blocks (rows of whole
// blocks), kQ8R/kF8R (a float row scale before each row's bytes) and kQ4_0 (rows stored in pairs,
// a lone last row when the count is odd: a row range must start on a pair; tensor/quant_blocks.h).
bool Sliceable(DType t) {
  return t == DType::kF32 || t == DType::kBF16 || t == DType::kF16 || t == DType::kF8E4M3 || t == DType::kQ8R ||
         t == DType::kF8R || t == DType::kQ4_0 || tensor::GgmlTypeId(t);
}

Status Unsliceable(const std::string& name, const TensorView& m) {
  return InvalidArgumentError(fmt::format("tensor parallel: {} is stored as {}, which cannot be split across ranks yet",
                                          name, tensor::DTypeName(m.dtype)));
}

// Rows [b, b + c) of an R-row kQ4_0 matrix are themselves one when they start on a pair and end
// on one (or at the lone last row).
bool PairAligned(DType t, int64_t b, int64_t c, int64_t R) {
  return t != DType::kQ4_0 || (b % 2 == 0 && (c % 2 == 0 || b + c == R));
}

// The bytes of columns [c0, c0 + n) of a matrix of `rows` rows of C columns, row after row
// (a kQ4_0 row pair counts as one unit, its columns block-interleaved).
void CopyColumns(DType t, const uint8_t* s, int64_t rows, int64_t C, int64_t c0, int64_t n, uint8_t* dst) {
  if (t == DType::kQ4_0) {
    const int64_t nb = C / tensor::kQuantBlock, b0 = c0 / tensor::kQuantBlock, mb = n / tensor::kQuantBlock;
    const size_t pair = sizeof(tensor::BlockQ4_0x2), lone = sizeof(tensor::BlockQ4_0);
    for (int64_t p = 0; p < rows / 2; ++p, dst += mb * pair) std::memcpy(dst, s + (p * nb + b0) * pair, mb * pair);
    if (rows % 2 != 0) std::memcpy(dst, s + (rows / 2) * nb * pair + b0 * lone, mb * lone);
    return;
  }
  const size_t row_bytes = tensor::RowBytes(t, C);
  const bool row_scale = t == DType::kQ8R || t == DType::kF8R;  // {float d; byte q[C]}
  const size_t head = row_scale ? sizeof(float) : 0;
  const size_t off = row_scale ? head + static_cast<size_t>(c0) : tensor::RowBytes(t, c0);
  const size_t len = row_scale ? static_cast<size_t>(n) : tensor::RowBytes(t, n);
  for (int64_t r = 0; r < rows; ++r, dst += head + len) {
    std::memcpy(dst, s + r * row_bytes, head);
    std::memcpy(dst + head, s + r * row_bytes + off, len);
  }
}

// The column copies, planned first and then written into one owned arena.
class ColumnCopier {
 public:
  // *v [.., R, C] becomes its columns [c0, c0 + n) (a copy), for every leading index.
  Status Columns(const std::string& name, TensorView* v, int64_t c0, int64_t n) {
    const int64_t C = v->shape[v->shape.rank - 1], R = v->shape[v->shape.rank - 2];
    const int64_t blk = v->dtype == DType::kQ8R ? tensor::kQuantBlock : tensor::BlockElements(v->dtype);
    const bool experts_pairs = v->dtype != DType::kQ4_0 || v->shape.rank == 2 || R % 2 == 0;
    if (!Sliceable(v->dtype) || c0 % blk != 0 || n % blk != 0 || !experts_pairs) return Unsliceable(name, *v);
    const int64_t rows = v->NumElements() / C;
    TensorView src = *v;
    Add(v, n, [src, rows, C, c0, n](uint8_t* dst) {
      CopyColumns(src.dtype, static_cast<const uint8_t*>(src.data), rows, C, c0, n, dst);
    });
    return OkStatus();
  }
  // *v [E, R, C] keeps, per leading index, the rows listed in `ranges` ({begin, count} each).
  Status Rows3(const std::string& name, TensorView* v, std::vector<std::pair<int64_t, int64_t>> ranges) {
    const int64_t E = v->shape[0], R = v->shape[1], C = v->shape[2];
    bool aligned = Sliceable(v->dtype) && (v->dtype != DType::kQ4_0 || R % 2 == 0);
    for (const auto& [b, c] : ranges) aligned = aligned && PairAligned(v->dtype, b, c, R) && (v->dtype != DType::kQ4_0 || c % 2 == 0);
    if (!aligned) return Unsliceable(name, *v);
    int64_t kept = 0;
    for (const auto& [b, c] : ranges) kept += c;
    const size_t row_bytes = tensor::RowBytes(v->dtype, C);
    TensorView src = *v;
    v->shape = tensor::Shape{E, kept, C};
    pending_.push_back({v, static_cast<size_t>(v->SizeBytes()), [src, E, R, ranges, row_bytes](uint8_t* dst) {
                          const auto* s = static_cast<const uint8_t*>(src.data);
                          for (int64_t e = 0; e < E; ++e) {
                            for (const auto& [b, c] : ranges) {
                              const size_t bytes = static_cast<size_t>(c) * row_bytes;
                              std::memcpy(dst, s + (e * R + b) * row_bytes, bytes);
                              dst += bytes;
                            }
                          }
                        }});
    return OkStatus();
  }
  Status Run(Weights* w) {
    size_t total = 0;
    std::vector<size_t> offsets;
    for (const Pending& p : pending_) {
      offsets.push_back(total);
      total += (p.bytes + kAlign - 1) / kAlign * kAlign;
    }
    if (total == 0) return OkStatus();
    GEMMAD_ASSIGN_OR_RETURN(io::HugePageBuffer arena, io::HugePageBuffer::Allocate(total));
    for (size_t i = 0; i < pending_.size(); ++i) {
      uint8_t* dst = arena.data() + offsets[i];
      pending_[i].fill(dst);
      pending_[i].view->data = dst;
      pending_[i].view->device = tensor::kHost;
    }
    w->owned_bytes.push_back(std::move(arena));
    return OkStatus();
  }

 private:
  static constexpr size_t kAlign = 4096;
  struct Pending {
    TensorView* view;
    size_t bytes;
    std::function<void(uint8_t*)> fill;
  };
  void Add(TensorView* v, int64_t new_cols, std::function<void(uint8_t*)> fill) {
    v->shape.dims[v->shape.rank - 1] = new_cols;
    pending_.push_back({v, static_cast<size_t>(v->SizeBytes()), std::move(fill)});
  }
  std::vector<Pending> pending_;
};

// *v [R, C] becomes the view of rows [r0, r0 + n).
Status RowSlice(const std::string& name, TensorView* v, int64_t r0, int64_t n) {
  if (!Sliceable(v->dtype) || !PairAligned(v->dtype, r0, n, v->shape[0])) return Unsliceable(name, *v);
  const int64_t C = v->shape[1];
  v->data = static_cast<uint8_t*>(v->data) + static_cast<size_t>(r0) * tensor::RowBytes(v->dtype, C);
  v->shape = tensor::Shape{n, C};
  return OkStatus();
}

Status ShardLayer(const Config& full, const Config& local, TpRank tp, int64_t l, LayerWeights& w, ColumnCopier& cc) {
  const std::string at = fmt::format("layer {} ", l);
  const int64_t d = full.layer_head_dim(l), nHl = local.num_attention_heads;
  GEMMAD_RETURN_IF_ERROR(RowSlice(at + "q_proj", &w.q_proj, tp.rank * nHl * d, nHl * d));
  if (w.k_proj.data != nullptr) {
    const int64_t nkvl = local.layer_num_kv_heads(l);
    const int64_t first = FirstKvHead(full.layer_num_kv_heads(l), tp);
    GEMMAD_RETURN_IF_ERROR(RowSlice(at + "k_proj", &w.k_proj, first * d, nkvl * d));
    if (w.v_proj.data != nullptr) GEMMAD_RETURN_IF_ERROR(RowSlice(at + "v_proj", &w.v_proj, first * d, nkvl * d));
    for (std::vector<float>* s : {&w.k_scale, &w.v_scale}) {  // per KV head: this rank's heads
      if (s->size() > 1) *s = std::vector<float>(s->begin() + first, s->begin() + first + nkvl);
    }
  }
  GEMMAD_RETURN_IF_ERROR(cc.Columns(at + "o_proj", &w.o_proj, tp.rank * nHl * d, nHl * d));
  const int64_t Il = local.layer_intermediate_size(l);
  GEMMAD_RETURN_IF_ERROR(RowSlice(at + "gate_proj", &w.gate_proj, tp.rank * Il, Il));
  GEMMAD_RETURN_IF_ERROR(RowSlice(at + "up_proj", &w.up_proj, tp.rank * Il, Il));
  GEMMAD_RETURN_IF_ERROR(cc.Columns(at + "down_proj", &w.down_proj, tp.rank * Il, Il));
  if (full.enable_moe_block) {
    const int64_t Ie = full.moe_intermediate_size, Iel = local.moe_intermediate_size;
    GEMMAD_RETURN_IF_ERROR(
        cc.Rows3(at + "experts.gate_up_proj", &w.experts_gate_up, {{tp.rank * Iel, Iel}, {Ie + tp.rank * Iel, Iel}}));
    GEMMAD_RETURN_IF_ERROR(cc.Columns(at + "experts.down_proj", &w.experts_down, tp.rank * Iel, Iel));
  }
  return OkStatus();
}

}  // namespace

Result<Config> ShardConfig(const Config& full, TpRank tp) {
  if (tp.size < 1 || tp.rank < 0 || tp.rank >= tp.size) {
    return InvalidArgumentError(fmt::format("tensor parallel rank {} of {}", tp.rank, tp.size));
  }
  Config c = full;
  if (tp.size == 1) return c;
  if (full.num_attention_heads % tp.size != 0) return NotDivisible(tp, full.num_attention_heads, "attention heads");
  c.num_attention_heads = full.num_attention_heads / tp.size;
  GEMMAD_ASSIGN_OR_RETURN(c.num_key_value_heads, LocalKvHeads(full.num_key_value_heads, tp, "key-value heads"));
  GEMMAD_ASSIGN_OR_RETURN(c.num_global_key_value_heads,
                          LocalKvHeads(full.num_global_key_value_heads, tp, "global key-value heads"));
  if (full.intermediate_size % tp.size != 0) {
    return NotDivisible(tp, full.intermediate_size, "MLP intermediate units");
  }
  c.intermediate_size = full.intermediate_size / tp.size;
  if (full.enable_moe_block) {
    if (full.moe_intermediate_size % tp.size != 0) {
      return NotDivisible(tp, full.moe_intermediate_size, "intermediate units of each expert");
    }
    c.moe_intermediate_size = full.moe_intermediate_size / tp.size;
  }
  return c;
}

int64_t FirstKvHead(int64_t nkv, TpRank tp) {
  if (nkv % tp.size == 0) return tp.rank * (nkv / tp.size);
  return tp.rank / (tp.size / nkv);  // replicated: the head of this rank's q heads
}

VocabSlice LmHeadSlice(int64_t vocab_size, TpRank tp) {
  VocabSlice s;
  s.stride = (vocab_size + tp.size - 1) / tp.size;
  s.begin = std::min<int64_t>(vocab_size, tp.rank * s.stride);
  s.count = std::min<int64_t>(vocab_size, s.begin + s.stride) - s.begin;
  return s;
}

Status ShardWeights(const Config& full, TpRank tp, Weights* w) {
  if (tp.size == 1) return OkStatus();
  GEMMAD_ASSIGN_OR_RETURN(Config local, ShardConfig(full, tp));
  ColumnCopier cc;
  for (int64_t l = 0; l < full.num_hidden_layers; ++l) {
    GEMMAD_RETURN_IF_ERROR(ShardLayer(full, local, tp, l, w->layers[static_cast<size_t>(l)], cc));
  }
  const VocabSlice vs = LmHeadSlice(full.vocab_size, tp);
  GEMMAD_RETURN_IF_ERROR(RowSlice("lm_head (embed_tokens)", &w->lm_head, vs.begin, vs.count));
  return cc.Run(w);
}

}  // namespace gemmad::model::gemma4
