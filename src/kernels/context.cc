// ParallelFor over the context's pool: even chunks, a whole number per thread, claimed lock-free.
#include "kernels/context.h"

#include <algorithm>

#include "kernels/thread_pool.h"

namespace gemmad::kernels {
namespace {

// Chunks per thread when the work allows: more than one lets a thread that starts late (a parked
// worker waking, a core taken by another process) be covered by the others.
constexpr int64_t kChunksPerThread = 4;

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

void ParallelFor(const ExecContext& ctx, int64_t n, int64_t min_chunk,
                 const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  const int threads = ctx.pool != nullptr ? ctx.pool->num_threads() : 1;
  const int64_t chunks = ParallelForChunks(threads, n, min_chunk);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  // One pointer captured, so the std::function below stays in its inline buffer (no allocation).
  struct Split {
    int64_t n, chunks;
    const std::function<void(int64_t, int64_t)>* fn;
  } split{n, chunks, &fn};
  ctx.pool->Run(chunks, [s = &split](int64_t c) {
    // Sizes differ by at most one item: chunk c is [n*c/chunks, n*(c+1)/chunks).
    const int64_t begin = s->n * c / s->chunks;
    const int64_t end = s->n * (c + 1) / s->chunks;
    if (begin < end) (*s->fn)(begin, end);
  });
}

}  // namespace gemmad::kernels
