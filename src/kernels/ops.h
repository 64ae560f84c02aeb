// Kernel entry points: free functions over TensorViews with an explicit ExecContext; the one way
// code outside kernels/ runs an op. Each forwards, after checking that every view lives on the
// backend's device, to the op table of the context's backend (kernels/backend.h: the CPU backend
// when none is set, or the scalar reference backend). Shapes in the comments are the contract; a
// mismatch is a programming error (GEMMAD_CHECK). Activations are fp32; weights may be fp32 or
// bf16 (read as stored, widened in registers) or block-quantized; KV caches may be fp32 or bf16.
// Every op has a scalar reference in kernels/reference/ and a parity test.
#pragma once

#include <cstdint>
#include <span>

#include "kernels/attention_sequence.h"
#include "kernels/context.h"
#include "tensor/tensor_view.h"

namespace gemmad::kernels {

using tensor::TensorView;

// ---- dense algebra -----------------------------------------------------------------------
// y = x · wᵀ. x: [n, in] f32; w: [out, in] f32|bf16|Q8_R|Q4_0|a kGgml* type; y: [n, out] f32 (must not alias
// x). Quantized weights (in % 32 == 0) meet x quantized per token in int8 blocks of 32
// (tensor/quant_blocks.h).
void Linear(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y);
// ys[m] = x · ws[m]ᵀ for up to 4 projections of the same x (q/k/v, gate/up) as one job over
// their concatenated rows: one pool dispatch, one activation quantization. Each (ws[m], ys[m])
// follows Linear's contract (dtypes may differ); results equal separate Linear calls bit for bit.
void LinearMany(const ExecContext& ctx, const TensorView& x, std::span<const TensorView> ws,
                std::span<const TensorView> ys);
// y = s · Σ_i k[t, i] · w[o, i] with k = clamp(round-half-even(x / s), −128, 127): a Linear whose input is
// fake-quantized to int8 with a static per-tensor scale s > 0 (compressed-tensors' a8, mobile QAT), for
// any w Linear takes. Equal to Linear on the fake-quantized input k · s up to the order of fp32 sums.
// The CPU backend multiplies the integers k by kLut4R / kLut2R tables' integers exactly (16-bit
// products, integer sums) where the CPU has AVX512-VNNI; elsewhere it runs Linear on k · s.
void LinearStaticInt8(const ExecContext& ctx, const TensorView& x, float s, const TensorView& w, const TensorView& y);
// LinearStaticInt8(x, s[m], ws[m], ys[m]) for up to 4 weights of the same x (q/k/v, gate/up), as one
// pool job where every weight has the integer kernels; results equal the separate calls bit for bit.
void LinearStaticInt8Many(const ExecContext& ctx, const TensorView& x, std::span<const float> s,
                          std::span<const TensorView> ws, std::span<const TensorView> ys);

// y = x · wᵀ for f32 weights and many rows (a tower's frames): Linear's contract (x: [n, in] f32;
// y: [n, out] f32, must not alias x) with w either [out, in] f32 or prepacked by PackGemmWeights,
// computed as an outer-product GEMM over packed panels of x and wᵀ: for a prepacked w always (a
// portable tile where the kernel table has no packed one); for [out, in] where the table has a
// packed tile (AVX-512) and there are enough rows and outputs, else as Linear. Its rounding differs
// from Linear's (in is accumulated in blocks of 512).
void LinearGemm(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& y);
// Load time: packed = wᵀ in 32-column panels, packed[p, k, c] = w[32p + c, k] (0 past out), the
// layout LinearGemm streams without packing it per call. w: [out, in] f32; packed:
// [ceil(out / kGemmPanelCols), in, kGemmPanelCols] f32 (must not alias w).
inline constexpr int64_t kGemmPanelCols = 32;
void PackGemmWeights(const ExecContext& ctx, const TensorView& w, const TensorView& packed);

// ---- weight quantization (load time) ------------------------------------------------------
// dst = quantize(src) row by row (tensor/quant_blocks.h). src: [rows, in] f32|bf16 (rank ≥ 2
// views are taken as rows of their last dim); dst: same shape, dtype Q8_R, Q4_0 or Q4_0x16 (rank 2,
// rows % 16 == 0), in % 32 == 0, data of dst.SizeBytes() bytes. Deterministic: the result does not
// depend on the pool.
void QuantizeWeights(const ExecContext& ctx, const TensorView& src, const TensorView& dst);
// The int4 layout (Q4_0 or Q4_0x16: the same blocks, tensor/quant_blocks.h) this backend reads a
// matrix of `shape` fastest in; every backend reads both.
tensor::DType Int4WeightDType(const ExecContext& ctx, const tensor::Shape& shape);

// RMSNorm over the last dim: out = x · pow(mean(x²) + eps, -0.5) · weight (text-model.md §4.1;
// the weight is used as stored, never 1 + w). x, out: [rows, n] f32 (may alias); weight: [n]
// f32|bf16, or a view with data == nullptr for the weightless norm. A per-head norm passes
// x viewed as [num_tokens · num_heads, head_dim].
void RmsNorm(const ExecContext& ctx, const TensorView& x, const TensorView& weight,
             const TensorView& out, float eps);

// NeoX (rotate-half) RoPE in place. x: [n, num_heads, head_dim] f32; positions: [n] i32;
// inv_freq: [head_dim / 2] f32 (zeros leave their lane pair unchanged: proportional RoPE).
void RopeNeox(const ExecContext& ctx, const TensorView& x, const TensorView& positions,
              const TensorView& inv_freq);

// ---- element-wise --------------------------------------------------------------------------
// GeGLU: out = gelu_tanh(gate) ⊙ up. All f32 with equal element counts (out may alias either).
void GeluTanhMul(const ExecContext& ctx, const TensorView& gate, const TensorView& up,
                 const TensorView& out);
// x = cap · tanh(x / cap), in place; f32.
void SoftCap(const ExecContext& ctx, const TensorView& x, float cap);
// Row-wise softmax in place. x: [rows, n] f32.
void Softmax(const ExecContext& ctx, const TensorView& x);
// out = a + b (f32, equal element counts; out may alias a or b).
void Add(const ExecContext& ctx, const TensorView& a, const TensorView& b, const TensorView& out);
// x *= s, in place; f32.
void Scale(const ExecContext& ctx, const TensorView& x, float s);
// x = clamp(round-half-even(x / s), -128, 127) · s, in place; f32, s > 0 (the static int8 fake
// quantization of compressed-tensors a8/o8 schemes, tensor/int8_round.h; NaN stays NaN).
void FakeQuantInt8(const ExecContext& ctx, const TensorView& x, float s);
// out = a ⊙ b (f32, equal element counts; out may alias a or b).
void Mul(const ExecContext& ctx, const TensorView& a, const TensorView& b, const TensorView& out);
// out = min(max(x, lo), hi) element-wise (torch.clamp: NaN stays NaN; ±inf bounds clamp nothing).
// x, out: f32 with equal element counts (out may alias x); lo <= hi.
void Clamp(const ExecContext& ctx, const TensorView& x, float lo, float hi, const TensorView& out);
// out = exp((x - shift) · scale) element-wise for arguments <= 0 (softmax weights, sampling): 0
// where the argument is below kExpShiftedFloor (kernels/registry.h; -inf included), within 3 ulp
// of std::exp elsewhere. x, out: f32 with equal element counts (out may alias x).
void ExpShifted(const ExecContext& ctx, const TensorView& x, float shift, float scale, const TensorView& out);

// ---- data movement ---------------------------------------------------------------------------
// dst = src byte for byte: equal dtypes and element counts (shapes may differ: a reshape), not
// block-quantized. Either side may be host memory while the other is on the backend's device
// (reading results back, e.g. recorded hidden states).
void Copy(const ExecContext& ctx, const TensorView& src, const TensorView& dst);
// out[i, :] = x[rows[i], :]. x: [n, w]; rows: [r] i64, each in [0, n); out: [r, w], x's dtype (not
// block-quantized). out may alias x only for an in-place compaction: rows ascending with
// rows[i] >= i (rows are moved in ascending order).
void GatherRows(const ExecContext& ctx, const TensorView& x, const TensorView& rows, const TensorView& out);
// out[t, :] = x[t, begin : begin + w]. x: [n, width]; out: [n, w] x's dtype (not block-quantized,
// must not alias x); 0 <= begin, begin + w <= width.
void SliceColumns(const ExecContext& ctx, const TensorView& x, int64_t begin, const TensorView& out);

// ---- embeddings ------------------------------------------------------------------------------
// out[t, :] = table[ids[t], :] · scale. table: [num_rows, m] f32|bf16|any block type (may be a memory-mapped
// file: only the rows named are touched); ids: [n] i32, each in [0, num_rows); out: [n, m] f32.
void EmbeddingGather(const ExecContext& ctx, const TensorView& table, const TensorView& ids,
                     float scale, const TensorView& out);

// ---- paged attention ---------------------------------------------------------------------------
// One KV cache of one layer: k, v: [num_blocks, block_size, num_kv_heads, head_dim] f32|bf16|FP8 E4M3.
// Key index j of a sequence lives in physical block block_table[j / block_size], row
// j % block_size.
//
// Static scales of an FP8 E4M3 cache (a compressed-tensors kv_cache_scheme: each attention's
// k_scale / v_scale, as vLLM loads them): the cache stores e4m3(x / s), saturated at ±448, and
// reads back e4m3 · s. Empty: 1; one value: the whole cache; num_kv_heads values: per KV head
// (strategy attn_head). Only an FP8 cache takes scales (others: empty).
struct KvScales {
  std::span<const float> k, v;
  bool empty() const { return k.empty() && v.empty(); }
};

// Writes new keys/values. k, v: [n, num_kv_heads, head_dim] f32; slots: [n] i64, each
// block · block_size + row, or -1 to skip the token. bf16 caches round to nearest even.
void KvCacheWrite(const ExecContext& ctx, const TensorView& k, const TensorView& v,
                  const TensorView& slots, const TensorView& k_cache, const TensorView& v_cache,
                  const KvScales& scales = {});

// The sequences (kernels/attention_sequence.h) say where each one's rows and keys are.
// Attention of every query row over its sequence's cached keys [lo, hi], where qi is the row's
// key index, lo = 0 (window == 0) or max(0, qi - window + 1), and hi = qi (causal) or, with the
// sequence's key_end, key_end[row] - 1 >= qi (later keys too: the window bounds past keys only).
// Keys below lo are never read, so their blocks may be freed (-1). GQA: query head h reads KV
// head h / (nH / nkv).
// Online softmax in fp32. q, out: [n, num_heads, head_dim] f32 (must not alias).
// An FP8 cache's `scales` (KvCacheWrite) multiply the keys' scores and the values' sums back.
void PagedAttention(const ExecContext& ctx, const TensorView& q, const TensorView& k_cache,
                    const TensorView& v_cache, std::span<const AttentionSequence> sequences,
                    int64_t window, float scale, const TensorView& out, const KvScales& scales = {});

// ---- dense attention -------------------------------------------------------------------------
// Non-causal, unmasked attention of every query row over all m keys of contiguous K/V (the vision
// encoder's bidirectional attention over one image's patches): out[i, h] = Σ_j softmax_j(scale ·
// q[i, h] · k[j, g]) · v[j, g] with g = h / (H / Hkv), softmax in fp32. q, out: [n, H, d] f32 (out
// must not alias q, k or v); k, v: [m, Hkv, d] f32, m >= 1, H % Hkv == 0; scale > 0. Never holds the
// whole [n, m] score matrix of a head.
void DenseAttention(const ExecContext& ctx, const TensorView& q, const TensorView& k, const TensorView& v,
                    float scale, const TensorView& out);

// ---- audio tower (multimodal.md §4.3–§4.5) -----------------------------------------------------
// out = x · sigmoid(x) (SiLU); out = max(x, 0) (ReLU). x, out: f32 with equal element counts (out
// may alias x).
void Silu(const ExecContext& ctx, const TensorView& x, const TensorView& out);
void Relu(const ExecContext& ctx, const TensorView& x, const TensorView& out);
// GLU over the last dim: out[r, i] = x[r, i] · sigmoid(x[r, w + i]). x: [n, 2w] f32; out: [n, w]
// f32 (must not alias x).
void Glu(const ExecContext& ctx, const TensorView& x, const TensorView& out);
// LayerNorm over the last dim, weight only (no bias): out = (x − mean) · (var + eps)^-1/2 · weight
// with the biased variance. x, out: [rows, n] f32 (may alias); weight: [n] f32.
void LayerNorm(const ExecContext& ctx, const TensorView& x, const TensorView& weight, const TensorView& out,
               float eps);
// im2col of a channel-last image for a square k×k convolution with stride s and zero padding p:
// out[i, j, (a·k + b)·C + c] = x[i·s − p + a, j·s − p + b, c] (0 outside x). x: [H, W, C] f32;
// out: [Ho, Wo, k·k·C] f32 with Ho = (H + 2p − k) / s + 1, Wo likewise (must not alias x).
// out · Wᵀ is the convolution for weights W [Cout, k, k, C].
void Im2Col(const ExecContext& ctx, const TensorView& x, int64_t kernel, int64_t stride, int64_t pad,
            const TensorView& out);
// Causal depthwise 1-D convolution over time: out[t, d] = Σ_m w[d, m] · x[t − K + 1 + m, d] (0
// before the start). x, out: [T, D] f32 (must not alias); w: [D, K] f32.
void CausalDepthwiseConv1d(const ExecContext& ctx, const TensorView& x, const TensorView& w, const TensorView& out);

// The audio tower's chunked local attention with relative positions (HF Gemma4AudioAttention with
// every frame valid, multimodal.md §4.5). Queries are taken in blocks of `chunk`; block b sees the
// context slots j = 0 .. W−1 at key s = b·chunk − past + j, W = chunk + past + future. For query
// t = b·chunk + i and slot j, with q' = q[t] ⊙ q_scale and k' = k[s] · k_scale:
//   logit = cap · tanh((q'·k' + (0 <= j − i < L ? q'·rel_k[j − i] : 0)) / cap)
//   logit = (0 <= s < T and (0 <= t − s < past or 0 < s − t < future)) ? logit : invalid
// softmax over the W slots in fp32 (all masked: uniform), out[t] = Σ_j p_j · v[s_j] (0 outside).
struct ChunkedAttentionParams {
  int64_t chunk = 0, past = 0, future = 0;
  float k_scale = 1.0f, cap = 0.0f, invalid = -1e9f;  // cap > 0
};
// q, k, v, out: [T, H, d] f32 (out must not alias); q_scale: [d] f32; rel_k: [L, H, d] f32 with
// L = W / 2 + 1 (the sinusoids of relative positions W/2 … 0, projected).
void ChunkedAttention(const ExecContext& ctx, const TensorView& q, const TensorView& q_scale, const TensorView& k,
                      const TensorView& v, const TensorView& rel_k, const ChunkedAttentionParams& params,
                      const TensorView& out);

// ---- mixture of experts --------------------------------------------------------------------
// Routing (text-model.md §8): softmax over all experts, top-K (ties: lower id), renormalise,
// then multiply per_expert_scale. logits: [n, E] f32; per_expert_scale: [E] f32|bf16;
// weights: [n, K] f32; ids: [n, K] i32 (by probability, descending).
void MoeRoute(const ExecContext& ctx, const TensorView& logits, const TensorView& per_expert_scale,
              const TensorView& weights, const TensorView& ids);
// out[t] = Σ_k weights[t,k] · down[e]·(gelu_tanh(gate)⊙up), (gate; up) = gate_up[e]·x[t],
// e = ids[t,k]; contributions are accumulated per expert in ascending id (the reference
// model's order). x: [n, H] f32; gate_up: [E, 2·Ie, H] f32|bf16 (gate rows first);
// down: [E, H, Ie] same dtype (or Q8_R|Q4_0); out: [n, H] f32 (overwritten; must not alias x).
void MoeExperts(const ExecContext& ctx, const TensorView& x, const TensorView& gate_up,
                const TensorView& down, const TensorView& weights, const TensorView& ids,
                const TensorView& out);

}  // namespace gemmad::kernels
