// Paged KV writes and paged causal attention with online softmax. One task is up to kTaskTokens
// consecutive query rows of one sequence and one KV head, with all the query heads that share it
// (GQA): R = tokens x heads rows of q. Keys are taken in segments of kSegment at fixed key indices
// and, inside a segment, in chunks of kChunk at fixed key indices, each cut after the last key any
// row of the task reads (in steps of kKeyStep); a chunk's keys and values are gathered once
// through the block table, widened to f32 ([nk, d] each, the next chunk's rows prefetched into
// L2 meanwhile), and shared by the task's R rows through the registry's f32 kernels: S = Q·Kᵀ
// (Linear), then O += P·V (Gemm, V as it is stored). Each row's softmax state is formed per
// segment from scratch and the segments' states are merged in segment order, so a decode step of
// one sequence (too few tasks for the threads) runs its segments as tasks of their own and merges
// them afterwards with the same arithmetic. Keys outside a row's [lo, hi] (hi = its key index, or
// key_end - 1 for a row that also reads later keys) are masked to p = 0, keys outside every row's
// range are never read (freed blocks below a sliding window are never touched). A row's result
// depends only on its own q, keys and range, never on which rows shared its task or on the
// threads (batch-invariant, like Linear).
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/view_checks.h"
#include "kernels/cpu/cpu_ops.h"
#include "kernels/registry.h"
#include "kernels/thread_pool.h"

namespace gemmad::kernels::cpu {
namespace {

constexpr int64_t kChunk = 64;       // keys per chunk
constexpr int64_t kTaskTokens = 4;  // query rows of one sequence per task
constexpr int64_t kKeyStep = 16;    // a chunk is gathered up to its last needed key in steps of this
// Keys are taken in segments of kSegment at fixed key indices: each row's softmax state is formed
// per segment from scratch and the segments' states merged in order, so that a long context's
// segments can run on different threads (a decode step) with the same result as in one task.
constexpr int64_t kSegment = 256;
// exp(x) for x below -kUnderflow is taken as 0: those weights are below 2^-115 of the row's
// largest, and left as they are they reach the float denormal range (exp(-87.3) = FLT_MIN), in
// which every multiply-add costs a microcode assist (8.2 s instead of 4.6 s for an E2B 512-token
// prefill with random weights).
constexpr float kUnderflow = 80.0f;
inline float ExpOrZero(float x) { return x < -kUnderflow ? 0.0f : std::exp(x); }

void CheckCache(const TensorView& c, const char* what) {
  internal::CheckCacheDType(c, what);
  internal::CheckRank(c, 4, what);
}

inline float Widen(float v) { return v; }
inline float Widen(uint16_t v) { return tensor::Bf16ToFloat(v); }
// FP8 E4M3 cache entries through a table of the 256 values.
struct E4M3Table {
  float v[256];
  E4M3Table() {
    for (int c = 0; c < 256; ++c) v[c] = tensor::E4M3ToFloat(static_cast<uint8_t>(c));
  }
};
inline float Widen(uint8_t c) {
  static const E4M3Table table;
  return table.v[c];
}

// Per-thread buffers of one task; they only grow (no allocation in a steady-state step).
struct TaskScratch {
  std::vector<float> q, k, v, s, o, tmp, m, l, corr;
  std::vector<int64_t> lo, hi;  // each row's first and last key
  std::vector<uint8_t> live;    // the row has keys in the current chunk
  std::vector<const void*> src;  // the chunk's keys: where each one's row starts in the cache
  void Size(int64_t rows, int64_t d) {
    auto grow = [](auto& v, int64_t n) {
      if (v.size() < static_cast<size_t>(n)) v.resize(static_cast<size_t>(n));
    };
    grow(q, rows * d);
    grow(k, kChunk * d);
    grow(v, kChunk * d);
    grow(s, rows * kChunk);
    grow(o, rows * d);
    grow(tmp, rows * d);
    grow(m, rows);
    grow(l, rows);
    grow(corr, rows);
    grow(live, rows);
    grow(lo, rows);
    grow(hi, rows);
    grow(src, kChunk);
  }
};

struct TaskShape {
  int64_t block_size, row_stride, d, group, heads;
  float scale;
  KvScales kv;  // an FP8 cache's: a KV head's k scale multiplies its scores, its v scale its rows
};

// The rows of one task: query rows t0 + ti (key indices qi0 + ti) of one sequence, query heads
// kvh * group + h0 + gi for gi < g, all reading KV head kvh; row r = ti * g + gi.
struct TaskRows {
  int64_t t0, tokens, qi0, kvh, h0, g;
  int64_t rows() const { return tokens * g; }
};

// Softmax state of a task's rows over some keys: m (running max of scaled scores), l (sum of
// exp(score - m)) and o (sum of exp(score - m)·v, [rows, d]); m = -inf: no key yet.
struct Partial {
  float* m;
  float* l;
  float* o;
};

// Every row without keys (m = -inf, l = 0, o = 0).
void ClearPartial(const Partial& p, int64_t rows, int64_t d) {
  std::fill(p.o, p.o + rows * d, 0.0f);
  std::fill(p.m, p.m + rows, -INFINITY);
  std::fill(p.l, p.l + rows, 0.0f);
}

// Fills ws.q, ws.lo and ws.hi for the task's rows; returns the union of their keys [first, last].
std::pair<int64_t, int64_t> LoadRows(const float* q, const AttentionSequence& seq, const TaskRows& tr, int64_t window,
                                     const TaskShape& sh, TaskScratch& ws) {
  const int64_t d = sh.d, g = tr.g, head0 = tr.kvh * sh.group + tr.h0;
  for (int64_t ti = 0; ti < tr.tokens; ++ti) {
    const float* src = q + ((tr.t0 + ti) * sh.heads + head0) * d;
    std::copy(src, src + g * d, ws.q.data() + ti * g * d);
    for (int64_t gi = 0; gi < g; ++gi) {
      ws.hi[ti * g + gi] = seq.key_end != nullptr ? seq.key_end[tr.t0 + ti - seq.token_begin] - 1 : tr.qi0 + ti;
      ws.lo[ti * g + gi] = window > 0 ? std::max<int64_t>(0, tr.qi0 + ti - window + 1) : 0;
    }
  }
  const int64_t rows = tr.rows();
  return {ws.lo[0], *std::max_element(ws.hi.begin(), ws.hi.begin() + rows)};
}

// The rows' softmax state over the keys of [seg_lo, seg_hi] (a segment, chunk-aligned at
// seg_lo) that each row reads, from scratch, into `p`: keys in chunks of kChunk at fixed key
// indices, each cut after the last key any row reads (in steps of kKeyStep). ws.q/lo/hi hold
// the rows (LoadRows); first/last is their union.
template <typename T>
void SegmentPartial(const CpuKernelTable& kt, const T* kc, const T* vc, const AttentionSequence& seq,
                    const TaskRows& tr, int64_t first, int64_t last, int64_t seg_lo, int64_t seg_hi,
                    const TaskShape& sh, TaskScratch& ws, const Partial& p) {
  const int64_t d = sh.d, rows = tr.rows(), head_off = tr.kvh * d;
  const float scale = sh.scale * internal::KvScaleOf(sh.kv.k, tr.kvh);
  ClearPartial(p, rows, d);
  const int64_t lo = std::max(first, seg_lo), hi = std::min(last, seg_hi);
  for (int64_t c0 = lo / kChunk * kChunk; c0 <= hi; c0 += kChunk) {
    // The chunk's first nk keys: up to the last key any row reads, in whole steps of kKeyStep (a
    // decode step's last chunk is mostly empty). Rows stay batch-invariant: the extra keys of a
    // longer union only add p = 0 terms at the end of P·V's reduction.
    const int64_t nk = std::min(kChunk, (hi - c0 + kKeyStep) / kKeyStep * kKeyStep);
    // Gather: K and V as [nk, d] f32; zeros outside [lo, hi].
    for (int64_t j = 0; j < nk; ++j) {
      const int64_t key = c0 + j;
      if (key < lo || key > hi) {
        ws.src[j] = nullptr;
        continue;
      }
      const int64_t block = seq.block_table[key / sh.block_size];
      ws.src[j] = kc + (block * sh.block_size + key % sh.block_size) * sh.row_stride + head_off;
    }
    for (int64_t j = 0; j < nk; ++j) {
      float* kr = ws.k.data() + j * d;
      float* vr = ws.v.data() + j * d;
      const T* ks = static_cast<const T*>(ws.src[j]);
      if (ks == nullptr) {
        std::fill(kr, kr + d, 0.0f);
        std::fill(vr, vr + d, 0.0f);
        continue;
      }
      const T* vs = vc + (ks - kc);
      // The same key of the next chunk into L2 meanwhile: the cache's blocks sit anywhere in
      // memory, a few KB each, so the hardware prefetchers see short runs only.
      if (const int64_t next = c0 + kChunk + j; next <= hi) {
        const int64_t off = (seq.block_table[next / sh.block_size] * sh.block_size + next % sh.block_size) *
                                sh.row_stride + head_off;
        const char* kp = reinterpret_cast<const char*>(kc + off);
        const char* vp = reinterpret_cast<const char*>(vc + off);
        for (int64_t byte = 0; byte < d * static_cast<int64_t>(sizeof(T)); byte += 64) {
          __builtin_prefetch(kp + byte, 0, 2);
          __builtin_prefetch(vp + byte, 0, 2);
        }
      }
      for (int64_t i = 0; i < d; ++i) kr[i] = Widen(ks[i]);
      for (int64_t i = 0; i < d; ++i) vr[i] = Widen(vs[i]);
    }
    kt.linear_f32(ws.q.data(), rows, d, ws.k.data(), 0, nk, ws.s.data(), nk);  // S = Q·Kᵀ, [rows, nk]
    bool any = false;
    for (int64_t r = 0; r < rows; ++r) {
      float* sr = ws.s.data() + r * nk;
      const int64_t jb = std::max<int64_t>(0, std::max(ws.lo[r], lo) - c0);
      const int64_t je = std::min<int64_t>(nk, std::min(ws.hi[r], hi) - c0 + 1);
      ws.live[r] = jb < je;
      if (jb >= je) {
        std::fill(sr, sr + nk, 0.0f);
        continue;
      }
      float mx = -INFINITY;
      for (int64_t j = jb; j < je; ++j) mx = std::max(mx, sr[j] * scale);
      const float m_new = std::max(p.m[r], mx);
      ws.corr[r] = ExpOrZero(p.m[r] - m_new);  // 0 on the row's first chunk (m = -inf)
      float sum = 0.0f;
      for (int64_t j = 0; j < nk; ++j) {
        const float e = (j >= jb && j < je) ? ExpOrZero(sr[j] * scale - m_new) : 0.0f;
        sr[j] = e;
        sum += e;
      }
      p.l[r] = p.l[r] * ws.corr[r] + sum;
      p.m[r] = m_new;
      any = true;
    }
    if (!any) continue;
    kt.gemm_f32(ws.s.data(), nk, ws.v.data(), d, ws.tmp.data(), d, rows, d, nk);  // P·V, [rows, d]
    for (int64_t r = 0; r < rows; ++r) {
      if (!ws.live[r]) continue;
      float* o = p.o + r * d;
      const float* t = ws.tmp.data() + r * d;
      const float c = ws.corr[r];
      for (int64_t i = 0; i < d; ++i) o[i] = o[i] * c + t[i];
    }
  }
}

// total = total ⊕ part, row by row (the online-softmax merge; rows without keys in `part` are
// left as they are). Every row's result is the merge of its segments' partials in segment order.
void MergeInto(const Partial& total, const Partial& part, int64_t rows, int64_t d) {
  for (int64_t r = 0; r < rows; ++r) {
    if (part.m[r] == -INFINITY) continue;
    const float m_new = std::max(total.m[r], part.m[r]);
    const float a = ExpOrZero(total.m[r] - m_new), b = ExpOrZero(part.m[r] - m_new);
    total.l[r] = total.l[r] * a + part.l[r] * b;
    float* o = total.o + r * d;
    const float* po = part.o + r * d;
    for (int64_t i = 0; i < d; ++i) o[i] = o[i] * a + po[i] * b;
    total.m[r] = m_new;
  }
}

// out rows of the task = o / l.
void WriteRows(const Partial& p, const TaskRows& tr, const TaskShape& sh, float* out) {
  const int64_t d = sh.d, head0 = tr.kvh * sh.group + tr.h0;
  const float v_scale = internal::KvScaleOf(sh.kv.v, tr.kvh);
  for (int64_t ti = 0; ti < tr.tokens; ++ti) {
    float* dst = out + ((tr.t0 + ti) * sh.heads + head0) * d;
    for (int64_t gi = 0; gi < tr.g; ++gi) {
      const int64_t r = ti * tr.g + gi;
      const float inv = v_scale / p.l[r];
      for (int64_t i = 0; i < d; ++i) dst[gi * d + i] = p.o[r * d + i] * inv;
    }
  }
}

// The segments of [first, last]: kSegment keys at fixed key indices.
inline int64_t FirstSegment(int64_t first) { return first / kSegment; }
inline int64_t LastSegment(int64_t last) { return last / kSegment; }

// One task, all its segments in order on this thread.
template <typename T>
void AttendTask(const CpuKernelTable& kt, const float* q, const T* kc, const T* vc, const AttentionSequence& seq,
                const TaskRows& tr, int64_t window, const TaskShape& sh, float* out) {
  thread_local TaskScratch ws;
  thread_local std::vector<float> total_buf;
  const int64_t rows = tr.rows(), d = sh.d;
  ws.Size(rows, d);
  if (total_buf.size() < static_cast<size_t>(rows * (d + 2))) total_buf.resize(static_cast<size_t>(rows * (d + 2)));
  const auto [first, last] = LoadRows(q, seq, tr, window, sh, ws);
  const Partial total{total_buf.data(), total_buf.data() + rows, total_buf.data() + 2 * rows};
  const Partial part{ws.m.data(), ws.l.data(), ws.o.data()};
  ClearPartial(total, rows, d);
  for (int64_t sg = FirstSegment(first); sg <= LastSegment(last); ++sg) {
    SegmentPartial(kt, kc, vc, seq, tr, first, last, sg * kSegment, (sg + 1) * kSegment - 1, sh, ws, part);
    MergeInto(total, part, rows, d);
  }
  WriteRows(total, tr, sh, out);
}

// One segment of a task into its slot of partials (`slot`: rows · (d + 2) floats: m, l, o).
template <typename T>
void AttendSegment(const CpuKernelTable& kt, const float* q, const T* kc, const T* vc, const AttentionSequence& seq,
                   const TaskRows& tr, int64_t window, int64_t sg, const TaskShape& sh, float* slot) {
  thread_local TaskScratch ws;
  const int64_t rows = tr.rows();
  ws.Size(rows, sh.d);
  const auto [first, last] = LoadRows(q, seq, tr, window, sh, ws);
  const Partial part{slot, slot + rows, slot + 2 * rows};
  SegmentPartial(kt, kc, vc, seq, tr, first, last, sg * kSegment, (sg + 1) * kSegment - 1, sh, ws, part);
}

}  // namespace

void KvCacheWrite(const ExecContext& ctx, const TensorView& k, const TensorView& v, const TensorView& slots,
                  const TensorView& k_cache, const TensorView& v_cache, const KvScales& scales) {
  internal::CheckDType(k, tensor::DType::kF32, "KvCacheWrite k");
  internal::CheckDType(v, tensor::DType::kF32, "KvCacheWrite v");
  internal::CheckDType(slots, tensor::DType::kI64, "KvCacheWrite slots");
  CheckCache(k_cache, "KvCacheWrite k_cache");
  CheckCache(v_cache, "KvCacheWrite v_cache");
  GEMMAD_CHECK(k_cache.shape == v_cache.shape && k_cache.dtype == v_cache.dtype, "KvCacheWrite: K/V caches differ");
  const int64_t n = slots.NumElements();
  const int64_t row = k_cache.shape[2] * k_cache.shape[3];
  const int64_t num_slots = k_cache.shape[0] * k_cache.shape[1];
  GEMMAD_CHECK(k.NumElements() == n * row && v.NumElements() == n * row, "KvCacheWrite: k {} v {} for {} slots of {}",
               k.shape.ToString(), v.shape.ToString(), n, row);
  const int64_t* sl = slots.As<const int64_t>();
  const bool bf16 = k_cache.dtype == tensor::DType::kBF16, fp8 = k_cache.dtype == tensor::DType::kF8E4M3;
  ParallelFor(ctx, n, 16, [&](int64_t b, int64_t e) {
    for (int64_t t = b; t < e; ++t) {
      if (sl[t] < 0) continue;
      GEMMAD_CHECK(sl[t] < num_slots, "KvCacheWrite: slot {} outside the cache ({} slots)", sl[t], num_slots);
      const float* ks = k.As<const float>() + t * row;
      const float* vs = v.As<const float>() + t * row;
      if (fp8) {
        uint8_t* kd = k_cache.As<uint8_t>() + sl[t] * row;
        uint8_t* vd = v_cache.As<uint8_t>() + sl[t] * row;
        const int64_t d = k_cache.shape[3];
        for (int64_t i = 0; i < row; ++i) {  // e4m3(x / s): the scales as stored, divided (vLLM's x / scale)
          kd[i] = tensor::FloatToE4M3(ks[i] / internal::KvScaleOf(scales.k, i / d));
          vd[i] = tensor::FloatToE4M3(vs[i] / internal::KvScaleOf(scales.v, i / d));
        }
      } else if (bf16) {
        uint16_t* kd = k_cache.As<uint16_t>() + sl[t] * row;
        uint16_t* vd = v_cache.As<uint16_t>() + sl[t] * row;
        for (int64_t i = 0; i < row; ++i) {
          kd[i] = tensor::FloatToBf16(ks[i]);
          vd[i] = tensor::FloatToBf16(vs[i]);
        }
      } else {
        std::copy(ks, ks + row, k_cache.As<float>() + sl[t] * row);
        std::copy(vs, vs + row, v_cache.As<float>() + sl[t] * row);
      }
    }
  });
}

void PagedAttention(const ExecContext& ctx, const TensorView& q, const TensorView& k_cache,
                    const TensorView& v_cache, std::span<const AttentionSequence> sequences, int64_t window,
                    float scale, const TensorView& out, const KvScales& scales) {
  internal::CheckDType(q, tensor::DType::kF32, "PagedAttention q");
  internal::CheckDType(out, tensor::DType::kF32, "PagedAttention out");
  internal::CheckRank(q, 3, "PagedAttention q");
  CheckCache(k_cache, "PagedAttention k_cache");
  CheckCache(v_cache, "PagedAttention v_cache");
  GEMMAD_CHECK(k_cache.shape == v_cache.shape && k_cache.dtype == v_cache.dtype, "PagedAttention: K/V caches differ");
  const int64_t n = q.shape[0], heads = q.shape[1], d = q.shape[2];
  const int64_t num_blocks = k_cache.shape[0], block_size = k_cache.shape[1], kv_heads = k_cache.shape[2];
  GEMMAD_CHECK(k_cache.shape[3] == d && kv_heads > 0 && heads % kv_heads == 0 && out.shape == q.shape &&
                   q.data != out.data,
               "PagedAttention: q {} cache {} out {}", q.shape.ToString(), k_cache.shape.ToString(),
               out.shape.ToString());
  const int64_t group = heads / kv_heads;
  // Row -> sequence map, and a check that every block the rows will read is present.
  std::vector<int32_t> seq_of_row(static_cast<size_t>(n), -1);
  for (size_t s = 0; s < sequences.size(); ++s) {
    const auto& sq = sequences[s];
    GEMMAD_CHECK(sq.token_begin >= 0 && sq.token_begin + sq.num_tokens <= n, "PagedAttention: sequence {} rows", s);
    for (int64_t t = 0; t < sq.num_tokens; ++t) seq_of_row[sq.token_begin + t] = static_cast<int32_t>(s);
    if (sq.num_tokens == 0) continue;
    int64_t last = sq.first_kv_index + sq.num_tokens - 1;  // the last key any row reads
    for (int64_t t = 0; sq.key_end != nullptr && t < sq.num_tokens; ++t) {
      GEMMAD_CHECK(sq.key_end[t] > sq.first_kv_index + t, "PagedAttention: sequence {} row {} at key {} has key_end {}",
                   s, t, sq.first_kv_index + t, sq.key_end[t]);
      last = std::max(last, sq.key_end[t] - 1);
    }
    const int64_t lo = window > 0 ? std::max<int64_t>(0, sq.first_kv_index - window + 1) : 0;
    GEMMAD_CHECK(last / block_size < sq.block_table_size, "PagedAttention: block table of sequence {} too short", s);
    for (int64_t b = lo / block_size; b <= last / block_size; ++b) {
      GEMMAD_CHECK(sq.block_table[b] >= 0 && sq.block_table[b] < num_blocks,
                   "PagedAttention: sequence {} logical block {} -> {} (cache has {})", s, b, sq.block_table[b],
                   num_blocks);
    }
  }
  // Tasks: runs of up to kTaskTokens rows of one sequence, times the KV heads.
  struct Run {
    int64_t seq, t0, tokens;
  };
  thread_local std::vector<Run> runs;
  runs.clear();
  for (size_t s = 0; s < sequences.size(); ++s) {
    for (int64_t t = 0; t < sequences[s].num_tokens; t += kTaskTokens) {
      runs.push_back({static_cast<int64_t>(s), sequences[s].token_begin + t,
                      std::min(kTaskTokens, sequences[s].num_tokens - t)});
    }
  }
  // Rows of no sequence are zeros.
  for (int64_t t = 0; t < n; ++t) {
    if (seq_of_row[t] < 0) std::fill(out.As<float>() + t * heads * d, out.As<float>() + (t + 1) * heads * d, 0.0f);
  }
  const bool bf16 = k_cache.dtype == tensor::DType::kBF16, fp8 = k_cache.dtype == tensor::DType::kF8E4M3;
  const CpuKernelTable& kt = CpuKernels();
  const TaskShape sh{block_size, kv_heads * d, d, group, heads, scale, scales};
  const Run* run_list = runs.data();
  const int64_t threads = ctx.pool != nullptr ? ctx.pool->num_threads() : 1;
  const int64_t base_tasks = static_cast<int64_t>(runs.size()) * kv_heads;
  const auto rows_of = [&](int64_t run, int64_t kvh, int64_t h0, int64_t g) {
    const Run& ru = run_list[run];
    const auto& sq = sequences[ru.seq];
    return TaskRows{ru.t0, ru.tokens, sq.first_kv_index + (ru.t0 - sq.token_begin), kvh, h0, g};
  };
  // Calls fn(k_cache, v_cache) with the caches as their element type.
  const auto typed = [&](auto&& fn) {
    if (fp8) {
      fn(k_cache.As<const uint8_t>(), v_cache.As<const uint8_t>());
    } else if (bf16) {
      fn(k_cache.As<const uint16_t>(), v_cache.As<const uint16_t>());
    } else {
      fn(k_cache.As<const float>(), v_cache.As<const float>());
    }
  };
  // Too few tasks for the threads (a decode step of one sequence: one task per KV head) and keys
  // in several segments: the segments run as tasks of their own into slots of partial softmax
  // states, merged per task in segment order afterwards (the same merges AttendTask does). Slot
  // (task, j) holds segment seg0[task] + j for j < nseg[task].
  thread_local std::vector<int64_t> seg0, nseg;
  int64_t most_segments = 0;
  if (base_tasks < threads) {
    seg0.resize(static_cast<size_t>(base_tasks));
    nseg.resize(static_cast<size_t>(base_tasks));
    thread_local TaskScratch ws;
    for (int64_t task = 0; task < base_tasks; ++task) {
      const TaskRows tr = rows_of(task / kv_heads, task % kv_heads, 0, group);
      ws.Size(tr.rows(), d);
      const auto [first, last] = LoadRows(q.As<const float>(), sequences[run_list[task / kv_heads].seq], tr, window,
                                          sh, ws);
      seg0[task] = FirstSegment(first);
      nseg[task] = LastSegment(last) - seg0[task] + 1;
      most_segments = std::max(most_segments, nseg[task]);
    }
  }
  if (most_segments > 1) {
    const int64_t slot_floats = group * kTaskTokens * (d + 2);
    const int64_t slots = base_tasks * most_segments;
    thread_local std::vector<float> partials;
    if (partials.size() < static_cast<size_t>(slots * slot_floats)) {
      partials.resize(static_cast<size_t>(slots * slot_floats));
    }
    const int64_t* const seg0_data = seg0.data();  // this thread's vectors, for every worker
    const int64_t* const nseg_data = nseg.data();
    float* const slot_data = partials.data();  // this thread's buffer, for every worker
    ParallelFor(ctx, slots, 1, [&](int64_t b, int64_t e) {
      for (int64_t slot = b; slot < e; ++slot) {
        const int64_t task = slot / most_segments, j = slot % most_segments;
        if (j >= nseg_data[task]) continue;
        const TaskRows tr = rows_of(task / kv_heads, task % kv_heads, 0, group);
        typed([&](const auto* kc, const auto* vc) {
          AttendSegment(kt, q.As<const float>(), kc, vc, sequences[run_list[task / kv_heads].seq], tr, window,
                        seg0_data[task] + j, sh, slot_data + slot * slot_floats);
        });
      }
    });
    thread_local std::vector<float> total_buf;
    for (int64_t task = 0; task < base_tasks; ++task) {
      const TaskRows tr = rows_of(task / kv_heads, task % kv_heads, 0, group);
      const int64_t rows = tr.rows();
      if (total_buf.size() < static_cast<size_t>(rows * (d + 2))) total_buf.resize(static_cast<size_t>(rows * (d + 2)));
      const Partial total{total_buf.data(), total_buf.data() + rows, total_buf.data() + 2 * rows};
      ClearPartial(total, rows, d);
      for (int64_t j = 0; j < nseg[task]; ++j) {
        float* slot = partials.data() + (task * most_segments + j) * slot_floats;
        MergeInto(total, Partial{slot, slot + rows, slot + 2 * rows}, rows, d);
      }
      WriteRows(total, tr, sh, out.As<float>());
    }
    return;
  }
  // Otherwise too few tasks for the threads: the query heads of a group are split between tasks
  // (each gathers the chunks itself).
  int64_t splits = 1;
  while (base_tasks * splits < threads && group % (splits * 2) == 0) splits *= 2;
  const int64_t per_split = group / splits;
  ParallelFor(ctx, base_tasks * splits, 1, [&](int64_t b, int64_t e) {
    for (int64_t task = b; task < e; ++task) {
      const TaskRows tr = rows_of(task / (kv_heads * splits), task / splits % kv_heads, task % splits * per_split,
                                  per_split);
      typed([&](const auto* kc, const auto* vc) {
        AttendTask(kt, q.As<const float>(), kc, vc, sequences[run_list[task / (kv_heads * splits)].seq], tr, window,
                   sh, out.As<float>());
      });
    }
  });
}

}  // namespace gemmad::kernels::cpu
