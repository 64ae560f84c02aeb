// ParallelFor over the context's pool: even chunks, a whole number per thread, each thread taking
// its own contiguous run first and then the others' leftovers, lock-free.
#include "kernels/context.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "kernels/thread_pool.h"

namespace gemmad::kernels {
namespace {

// Chunks per thread when the work allows: more than one lets a thread that starts late (a parked
// worker waking, a core taken by another process) be covered by the others.
constexpr int64_t kChunksPerThread = 4;

// The chunks [front, back) of one owner not yet taken, packed as front | back << 32 so that one
// compare-exchange takes a chunk from either end.
struct alignas(64) OwnedChunks {
  std::atomic<uint64_t> span{0};
  int64_t TakeFront() { return Take(true); }
  int64_t TakeBack() { return Take(false); }

 private:
  // The taken chunk's index, or -1 when none is left.
  int64_t Take(bool front) {
    uint64_t v = span.load(std::memory_order_relaxed);
    while (true) {
      const uint64_t f = v & 0xffffffffu, b = v >> 32;
      if (f >= b) return -1;
      const uint64_t next = front ? (f + 1) | b << 32 : f | (b - 1) << 32;
      if (span.compare_exchange_weak(v, next, std::memory_order_relaxed)) {
        return static_cast<int64_t>(front ? f : b - 1);
      }
    }
  }
};

}  // namespace

int64_t ParallelForChunks(int threads, int64_t n, int64_t min_chunk) {
  if (n <= 0) return 0;
  min_chunk = std::max<int64_t>(min_chunk, 1);
  const int64_t max_chunks = std::max<int64_t>(1, n / min_chunk);
  if (threads <= 1 || max_chunks < 2) return 1;
  // A multiple of the thread count, so equal chunks give every thread equal work; with fewer
  // chunks than threads allowed, as many as min_chunk allows (each still >= min_chunk).
  const int64_t per_thread = std::min(kChunksPerThread, max_chunks / threads);
  return per_thread >= 1 ? per_thread * threads : max_chunks;
}

void PrefetchWhileIdle(const ExecContext& ctx, const void* data, size_t bytes) {
  if (ctx.pool != nullptr) ctx.pool->PrefetchWhileIdle(data, bytes);
}

void ParallelFor(const ExecContext& ctx, int64_t n, int64_t min_chunk,
                 const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int threads = ctx.pool != nullptr ? ctx.pool->num_threads() : 1;
  const int64_t chunks = ParallelForChunks(threads, n, min_chunk);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  // One task per thread, each owning a contiguous run of chunks that it takes from the front, so
  // a thread streams through adjacent memory (a weight matrix's rows) instead of jumping to every
  // threads-th chunk; a task done with its own run takes the others' chunks from their back
  // (a worker that starts late or is descheduled is covered, one chunk at a time).
  const int64_t owners = std::min<int64_t>(threads, chunks);
  thread_local std::vector<OwnedChunks> runs;  // the caller's Run is not reentrant (thread_pool.h)
  if (runs.size() < static_cast<size_t>(owners)) runs = std::vector<OwnedChunks>(static_cast<size_t>(owners));
  for (int64_t o = 0; o < owners; ++o) {
    const auto front = static_cast<uint64_t>(chunks * o / owners);
    const auto back = static_cast<uint64_t>(chunks * (o + 1) / owners);
    runs[static_cast<size_t>(o)].span.store(front | back << 32, std::memory_order_relaxed);
  }
  // One pointer captured, so the std::function below stays in its inline buffer (no allocation).
  struct Split {
    int64_t n, chunks, owners;
    OwnedChunks* runs;
    const std::function<void(int64_t, int64_t)>* fn;
  } split{n, chunks, owners, runs.data(), &fn};
  ctx.pool->Run(owners, [s = &split](int64_t o) {
    // Sizes differ by at most one item: chunk c is [n*c/chunks, n*(c+1)/chunks).
    const auto run = [s](int64_t c) {
      const int64_t begin = s->n * c / s->chunks, end = s->n * (c + 1) / s->chunks;
      if (begin < end) (*s->fn)(begin, end);
    };
    for (int64_t c; (c = s->runs[o].TakeFront()) >= 0;) run(c);
    for (int64_t k = 1; k < s->owners; ++k) {
      OwnedChunks& other = s->runs[(o + k) % s->owners];
      for (int64_t c; (c = other.TakeBack()) >= 0;) run(c);
    }
  });
}

}  // namespace gemmad::kernels
