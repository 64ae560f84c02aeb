// ParallelFor over the context's pool.
#include "kernels/context.h"

#include <algorithm>

#include "kernels/thread_pool.h"

namespace gemmad::kernels {

void ParallelFor(const ExecContext& ctx, int64_t n, int64_t min_chunk,
                 const std::function<void(int64_t, int64_t)>& fn) {
  if (n <= 0) return;
  min_chunk = std::max<int64_t>(min_chunk, 1);
  int threads = ctx.pool != nullptr ? ctx.pool->num_threads() : 1;
  int64_t max_chunks = std::max<int64_t>(1, n / min_chunk);
  int64_t chunks = std::min<int64_t>(max_chunks, threads == 1 ? 1 : int64_t{threads} * 4);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  ctx.pool->Run(chunks, [&](int64_t c) {
    int64_t begin = n * c / chunks;
    int64_t end = n * (c + 1) / chunks;
    if (begin < end) fn(begin, end);
  });
}

}  // namespace gemmad::kernels
