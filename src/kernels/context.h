// ExecContext: how an op runs — today the CPU thread pool to spread work over (nullptr = the
// calling thread only). Later backends add their stream here; ops never create threads.
#pragma once

#include <cstdint>
#include <functional>

namespace gemmad::kernels {

class ThreadPool;

struct ExecContext {
  ThreadPool* pool = nullptr;
};

// Splits [0, n) into contiguous chunks of at least `min_chunk` items (at most a few per thread)
// and calls fn(begin, end) for each, across the context's pool.
void ParallelFor(const ExecContext& ctx, int64_t n, int64_t min_chunk,
                 const std::function<void(int64_t, int64_t)>& fn);

}  // namespace gemmad::kernels
