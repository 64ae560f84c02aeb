// ExecContext: how an op runs — on which backend (kernels/backend.h: its op table, device and
// allocator), with which execution resource (the CPU backend's thread pool; a GPU backend's
// stream would sit beside it) and from which allocator step scratch comes. A default-constructed
// context is the CPU backend on the calling thread only. Ops never create threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace gemmad::kernels {

class Allocator;
struct Backend;
class ThreadPool;

struct ExecContext {
  ThreadPool* pool = nullptr;        // CPU workers to spread an op over (nullptr = the calling thread)
  const Backend* backend = nullptr;  // nullptr = the CPU backend (CpuBackend())
  // Step scratch (nullptr = the backend's allocator). A model keeps the scratch of its last step
  // until its next one or its end, so this allocator must outlive the model it is used with.
  Allocator* scratch = nullptr;
};

// The context's backend: *ctx.backend, or the CPU backend when unset.
const Backend& BackendOf(const ExecContext& ctx);
// Where step scratch comes from: ctx.scratch, or the backend's allocator when unset.
Allocator& ScratchAllocatorOf(const ExecContext& ctx);
// A copy of `ctx` without its pool (ops called from inside a ParallelFor task, e.g. sampling).
inline ExecContext WithoutPool(ExecContext ctx) {
  ctx.pool = nullptr;
  return ctx;
}

// Splits [0, n) into contiguous chunks of at least `min_chunk` items and calls fn(begin, end) for
// each, across the context's pool (the caller included). Chunk sizes differ by at most one item;
// their count is ParallelForChunks(threads, n, min_chunk). fn runs on several threads at once: each
// thread first takes a contiguous run of chunks in ascending order (its share), then the chunks
// other threads have not reached yet, from the back of their runs.
void ParallelFor(const ExecContext& ctx, int64_t n, int64_t min_chunk,
                 const std::function<void(int64_t, int64_t)>& fn);

// ThreadPool::PrefetchWhileIdle on the context's pool (no-op without one): idle workers prefetch
// [data, data + bytes) until the next job, e.g. the next weight matrix while the caller runs an op
// on one thread.
void PrefetchWhileIdle(const ExecContext& ctx, const void* data, size_t bytes);

// How many chunks ParallelFor makes: 0 for n <= 0; 1 (run inline) when one thread or fewer than 2 chunks of
// min_chunk fit; else up to 4 per thread, a multiple of `threads` whenever n allows at least one
// chunk per thread. Exposed for tests and benches.
int64_t ParallelForChunks(int threads, int64_t n, int64_t min_chunk);

}  // namespace gemmad::kernels
