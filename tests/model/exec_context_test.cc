// The forward pass allocates through its ExecContext (kernels/backend.h): step scratch from the
// context's scratch allocator (grow-only: nothing once the largest batch has been seen), KV
// storage from the allocator KvCache::Create is given, and the cache's views carry that
// allocator's device. On T3 (MoE, KV sharing) so that every step buffer is used.
#include <gtest/gtest.h>

#include <filesystem>
#include <unistd.h>

#include "kernels/allocator.h"
#include "kernels/backend.h"
#include "model/gemma4/model.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "sequence_runner.h"

namespace gemmad::model::gemma4 {
namespace {

namespace fs = std::filesystem;

// Host memory, counted.
class CountingAllocator final : public kernels::Allocator {
 public:
  tensor::Device device() const override { return tensor::kHost; }
  void* Allocate(size_t bytes) override {
    ++allocations;
    return kernels::HostAllocator().Allocate(bytes);
  }
  void Free(void* p) override {
    if (p != nullptr) ++frees;
    kernels::HostAllocator().Free(p);
  }
  int allocations = 0, frees = 0;
};

std::unique_ptr<Model> T3(const std::string& tag) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("gemmad_exec_" + tag + "_" + std::to_string(getpid()));
  auto preset = FindPreset("t3");
  EXPECT_TRUE(preset.ok());
  RandomCheckpointOptions opt;
  opt.seed = 5;
  EXPECT_TRUE(WriteRandomCheckpoint(dir.string(), preset->config, opt).ok());
  auto m = Model::Load(dir.string());
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  return std::move(m).value();
}

TEST(ExecContext, StepScratchComesFromTheContextAndOnlyGrows) {
  CountingAllocator scratch;  // declared first: the model's step buffers are freed into it at the end
  auto model = T3("scratch");
  const kernels::ExecContext exec{nullptr, &kernels::CpuBackend(), &scratch};
  testing::SequenceRunner r(*model, 4, 32, exec);
  const std::vector<int32_t> prompt = {2, 5, 9, 11, 3, 7, 8, 1};
  r.Step(0, prompt, true);
  // The step buffers (x, q, k, v, attn, gate, up, router, moe_ids, ...); some grew within the step
  // (full layers have a larger head_dim), releasing their first allocation.
  const int allocations = scratch.allocations, frees = scratch.frees;
  EXPECT_GT(allocations, 10);
  for (int32_t t : {4, 6, 10}) r.Step(0, {t}, false);  // decode steps are smaller: no allocation
  r.Step(1, prompt, true);                              // a batch as large as the first: none either
  EXPECT_EQ(scratch.allocations, allocations);
  EXPECT_EQ(scratch.frees, frees);
}

TEST(ExecContext, KvStorageComesFromTheGivenAllocator) {
  auto model = T3("kv");
  CountingAllocator kv;
  const KvCacheSpec spec = model->MakeKvCacheSpec(4);
  auto cache = KvCache::Create(spec, std::vector<int64_t>(spec.groups.size(), 8), kv);
  ASSERT_TRUE(cache.ok()) << cache.status().ToString();
  int owning = 0;
  for (const auto& g : spec.groups) owning += static_cast<int>(g.layers.size());
  EXPECT_EQ(kv.allocations, 2 * owning);  // K and V of every KV-owning layer
  EXPECT_EQ((*cache)->k(0).device, tensor::kHost);
  cache->reset();
  EXPECT_EQ(kv.frees, 2 * owning);
}

}  // namespace
}  // namespace gemmad::model::gemma4
