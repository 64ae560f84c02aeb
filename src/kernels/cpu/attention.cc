// Paged KV writes and paged causal attention with online softmax. One task is up to kTaskTokens
// consecutive query rows of one sequence and one KV head, with all the query heads that share it
// (GQA; halved until there are as many tasks as threads): R = tokens x heads rows of q. Keys are
// visited in chunks of kChunk at fixed key indices (multiples of kChunk), each cut after the last
// key any row of the task reads (in steps of kKeyStep); a chunk's keys and values are gathered
// once through the block table, widened to f32 (values transposed), and shared by the task's R
// rows through the registry's f32 Linear: S = Q·Kᵀ, then O += P·V. Keys outside a row's [lo, hi]
// (hi = its key index, or key_end - 1 for a row that also reads later keys) are masked to p = 0,
// keys outside every row's range are never read (freed blocks below a sliding window are never
// touched). A row's result depends only on its own q, keys and range, never on which rows shared
// its task (batch-invariant, like Linear).
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
  std::vector<float> q, k, vt, s, o, tmp, m, l, corr;
  std::vector<int64_t> lo, hi;  // each row's first and last key
  std::vector<uint8_t> live;  // the row has keys in the current chunk
  void Size(int64_t rows, int64_t d) {
    auto grow = [](auto& v, int64_t n) {
      if (v.size() < static_cast<size_t>(n)) v.resize(static_cast<size_t>(n));
    };
    grow(q, rows * d);
    grow(k, kChunk * d);
    grow(vt, d * kChunk);
    grow(s, rows * kChunk);
    grow(o, rows * d);
    grow(tmp, rows * d);
    grow(m, rows);
    grow(l, rows);
    grow(corr, rows);
    grow(live, rows);
    grow(lo, rows);
    grow(hi, rows);
  }
};

struct TaskShape {
  int64_t block_size, row_stride, d, group, heads;
  float scale;
};

// Rows r = token ti * g + head gi of the task: query rows t0 + ti (key indices qi0 + ti) of
// one sequence, query heads kvh * group + h0 + gi for gi < g, all reading KV head kvh.
template <typename T>
void AttendTask(const CpuKernelTable& kt, const float* q, const T* kc, const T* vc, const AttentionSequence& seq,
                int64_t t0, int64_t tokens, int64_t qi0, int64_t window, int64_t kvh, int64_t h0, int64_t g,
                const TaskShape& sh, float* out) {
  const int64_t d = sh.d, rows = tokens * g, head0 = kvh * sh.group + h0;
  thread_local TaskScratch ws;
  ws.Size(rows, d);
  for (int64_t ti = 0; ti < tokens; ++ti) {
    const float* src = q + ((t0 + ti) * sh.heads + head0) * d;
    std::copy(src, src + g * d, ws.q.data() + ti * g * d);
    for (int64_t gi = 0; gi < g; ++gi) {
      ws.hi[ti * g + gi] = seq.key_end != nullptr ? seq.key_end[t0 + ti - seq.token_begin] - 1 : qi0 + ti;
      ws.lo[ti * g + gi] = window > 0 ? std::max<int64_t>(0, qi0 + ti - window + 1) : 0;
    }
  }
  std::fill(ws.o.begin(), ws.o.begin() + rows * d, 0.0f);
  std::fill(ws.m.begin(), ws.m.begin() + rows, -INFINITY);
  std::fill(ws.l.begin(), ws.l.begin() + rows, 0.0f);
  const int64_t first = ws.lo[0], last = *std::max_element(ws.hi.begin(), ws.hi.begin() + rows);  // union
  const int64_t head_off = kvh * d;
  for (int64_t c0 = first / kChunk * kChunk; c0 <= last; c0 += kChunk) {
    // The chunk's first nk keys: up to the last key any row reads, in whole steps of kKeyStep (a
    // decode step's last chunk is mostly empty). Rows stay batch-invariant: the extra keys of a
    // longer union only add p = 0 terms at the end of P·V's reduction.
    const int64_t nk = std::min(kChunk, (last - c0 + kKeyStep) / kKeyStep * kKeyStep);
    // Gather: K as [nk, d], V transposed as [d, nk]; zeros outside [first, last].
    for (int64_t j = 0; j < nk; ++j) {
      const int64_t key = c0 + j;
      float* kr = ws.k.data() + j * d;
      if (key < first || key > last) {
        std::fill(kr, kr + d, 0.0f);
        for (int64_t i = 0; i < d; ++i) ws.vt[i * nk + j] = 0.0f;
        continue;
      }
      const int64_t block = seq.block_table[key / sh.block_size];
      const int64_t off = (block * sh.block_size + key % sh.block_size) * sh.row_stride + head_off;
      for (int64_t i = 0; i < d; ++i) kr[i] = Widen(kc[off + i]);
      for (int64_t i = 0; i < d; ++i) ws.vt[i * nk + j] = Widen(vc[off + i]);
    }
    kt.linear_f32(ws.q.data(), rows, d, ws.k.data(), 0, nk, ws.s.data(), nk);  // S = Q·Kᵀ, [rows, nk]
    bool any = false;
    for (int64_t r = 0; r < rows; ++r) {
      float* sr = ws.s.data() + r * nk;
      const int64_t jb = std::max<int64_t>(0, ws.lo[r] - c0), je = std::min<int64_t>(nk, ws.hi[r] - c0 + 1);
      ws.live[r] = jb < je;
      if (jb >= je) {
        std::fill(sr, sr + nk, 0.0f);
        continue;
      }
      float mx = -INFINITY;
      for (int64_t j = jb; j < je; ++j) mx = std::max(mx, sr[j] * sh.scale);
      const float m_new = std::max(ws.m[r], mx);
      ws.corr[r] = ExpOrZero(ws.m[r] - m_new);  // 0 on the row's first chunk (m = -inf)
      float sum = 0.0f;
      for (int64_t j = 0; j < nk; ++j) {
        const float p = (j >= jb && j < je) ? ExpOrZero(sr[j] * sh.scale - m_new) : 0.0f;
        sr[j] = p;
        sum += p;
      }
      ws.l[r] = ws.l[r] * ws.corr[r] + sum;
      ws.m[r] = m_new;
      any = true;
    }
    if (!any) continue;
    kt.linear_f32(ws.s.data(), rows, nk, ws.vt.data(), 0, d, ws.tmp.data(), d);  // P·V
    for (int64_t r = 0; r < rows; ++r) {
      if (!ws.live[r]) continue;
      float* o = ws.o.data() + r * d;
      const float* t = ws.tmp.data() + r * d;
      const float c = ws.corr[r];
      for (int64_t i = 0; i < d; ++i) o[i] = o[i] * c + t[i];
    }
  }
  for (int64_t ti = 0; ti < tokens; ++ti) {
    float* dst = out + ((t0 + ti) * sh.heads + head0) * d;
    for (int64_t gi = 0; gi < g; ++gi) {
      const int64_t r = ti * g + gi;
      const float inv = 1.0f / ws.l[r];
      for (int64_t i = 0; i < d; ++i) dst[gi * d + i] = ws.o[r * d + i] * inv;
    }
  }
}

}  // namespace

void KvCacheWrite(const ExecContext& ctx, const TensorView& k, const TensorView& v, const TensorView& slots,
                  const TensorView& k_cache, const TensorView& v_cache) {
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
        for (int64_t i = 0; i < row; ++i) {
          kd[i] = tensor::FloatToE4M3(ks[i]);
          vd[i] = tensor::FloatToE4M3(vs[i]);
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
                    float scale, const TensorView& out) {
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
  const TaskShape sh{block_size, kv_heads * d, d, group, heads, scale};
  const Run* run_list = runs.data();
  // Too few tasks for the threads (a decode step of one sequence: one task per KV head): the
  // query heads of a group are split between tasks (each gathers the chunks itself).
  const int64_t threads = ctx.pool != nullptr ? ctx.pool->num_threads() : 1;
  const int64_t base_tasks = static_cast<int64_t>(runs.size()) * kv_heads;
  int64_t splits = 1;
  while (base_tasks * splits < threads && group % (splits * 2) == 0) splits *= 2;
  const int64_t per_split = group / splits;
  ParallelFor(ctx, base_tasks * splits, 1, [&](int64_t b, int64_t e) {
    for (int64_t task = b; task < e; ++task) {
      const Run& ru = run_list[task / (kv_heads * splits)];
      const int64_t kvh = task / splits % kv_heads, h0 = task % splits * per_split;
      const auto& sq = sequences[ru.seq];
      const int64_t qi0 = sq.first_kv_index + (ru.t0 - sq.token_begin);
      if (fp8) {
        AttendTask(kt, q.As<const float>(), k_cache.As<const uint8_t>(), v_cache.As<const uint8_t>(), sq, ru.t0,
                   ru.tokens, qi0, window, kvh, h0, per_split, sh, out.As<float>());
      } else if (bf16) {
        AttendTask(kt, q.As<const float>(), k_cache.As<const uint16_t>(), v_cache.As<const uint16_t>(), sq, ru.t0,
                   ru.tokens, qi0, window, kvh, h0, per_split, sh, out.As<float>());
      } else {
        AttendTask(kt, q.As<const float>(), k_cache.As<const float>(), v_cache.As<const float>(), sq, ru.t0,
                   ru.tokens, qi0, window, kvh, h0, per_split, sh, out.As<float>());
      }
    }
  });
}

}  // namespace gemmad::kernels::cpu
