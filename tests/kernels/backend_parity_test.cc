// The backends of kernels/backend.h: every op table is complete; the data-movement and
// ExpShifted ops on every CPU kernel table; and the reference backend against the CPU backend op
// by op over every dtype the model uses (f32, bf16, Q8_R, Q4_0 weights; f32 and bf16 KV caches),
// so that a model run through either backend computes the same function.
#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <numeric>
#include <vector>

#include "kernels/backend.h"
#include "kernels/ops.h"
#include "kernels/reference/quant.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::View;

const ExecContext kReference{nullptr, &ReferenceBackend()};

TEST(Backends, EveryOpTableIsCompleteAndNamed) {
  static_assert(sizeof(OpTable) == kNumOps * sizeof(void*), "a new OpTable entry needs kNumOps and this test");
  std::vector<std::string_view> names;
  for (const Backend* b : Backends()) {
    SCOPED_TRACE(std::string(b->name));
    names.push_back(b->name);
    EXPECT_EQ(FindBackend(b->name), b);
    EXPECT_EQ(b->device, tensor::kHost);
    ASSERT_NE(b->allocator, nullptr);
    void* entries[kNumOps];
    std::memcpy(entries, b->ops, sizeof(entries));
    for (int i = 0; i < kNumOps; ++i) EXPECT_NE(entries[i], nullptr) << "entry " << i;
  }
  EXPECT_EQ(names, (std::vector<std::string_view>{"cpu", "reference"}));
  EXPECT_EQ(FindBackend("cuda"), nullptr);
  EXPECT_EQ(&BackendOf(ExecContext{}), &CpuBackend());
  EXPECT_EQ(&ScratchAllocatorOf(ExecContext{}), CpuBackend().allocator);
}

TEST(Backends, HostAllocatorGivesZeroedMemory) {
  DeviceBuffer b(HostAllocator(), 1000);
  ASSERT_NE(b.data(), nullptr);
  EXPECT_EQ(b.size(), 1000u);
  EXPECT_EQ(b.device(), tensor::kHost);
  const auto* p = static_cast<const uint8_t*>(b.data());
  EXPECT_TRUE(std::all_of(p, p + 1000, [](uint8_t c) { return c == 0; }));
  DeviceBuffer moved = std::move(b);
  EXPECT_EQ(b.data(), nullptr);
  EXPECT_EQ(moved.size(), 1000u);
}

TEST(BackendsDeathTest, AViewOnAnotherDeviceIsRefused) {
  std::vector<float> x(4), y(4);
  tensor::TensorView xv = View(x.data(), DType::kF32, {2, 2});
  xv.device = tensor::Device{tensor::DeviceKind::kCpu, 1};
  EXPECT_DEATH(Scale(ExecContext{}, xv, 2.0f), "a view on cpu:1 given to the cpu backend");
  EXPECT_DEATH(Add(kReference, xv, xv, View(y.data(), DType::kF32, {2, 2})), "reference backend");
}

// Runs `op` on every CPU kernel table (with a pool) and on the reference backend.
void OnEveryBackend(const std::function<void(const ExecContext&, const std::string&)>& op) {
  ThreadPool pool(2);
  testing::ForEachKernelTable([&](const CpuKernelTable& t) { op(ExecContext{&pool}, "cpu/" + std::string(t.name)); });
  op(kReference, "reference");
}

TEST(BackendParity, DataMovementOps) {
  Rng rng(11);
  const int64_t n = 7, w = 13;
  auto x = testing::RandomFloats(rng, n * w);
  OnEveryBackend([&](const ExecContext& ctx, const std::string& name) {
    SCOPED_TRACE(name);
    testing::Misaligned<float> y(n * w);
    Copy(ctx, View(x.data(), DType::kF32, {n, w}), View(y.data(), DType::kF32, {n * w}));
    EXPECT_EQ(std::memcmp(y.data(), x.data(), sizeof(float) * n * w), 0);

    std::vector<int64_t> rows = {6, 0, 3, 3};
    testing::Misaligned<float> g(4 * w);
    GatherRows(ctx, View(x.data(), DType::kF32, {n, w}), View(rows.data(), DType::kI64, {4}),
               View(g.data(), DType::kF32, {4, w}));
    for (int64_t i = 0; i < 4; ++i) EXPECT_EQ(std::memcmp(g.data() + i * w, x.data() + rows[i] * w, sizeof(float) * w), 0);

    std::vector<float> in_place(x.data(), x.data() + n * w);  // compaction: rows 1, 4, 5 -> 0, 1, 2
    std::vector<int64_t> keep = {1, 4, 5};
    GatherRows(ctx, View(in_place.data(), DType::kF32, {n, w}), View(keep.data(), DType::kI64, {3}),
               View(in_place.data(), DType::kF32, {3, w}));
    for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(std::memcmp(in_place.data() + i * w, x.data() + keep[i] * w, sizeof(float) * w), 0);

    GatherRows(ctx, View(x.data(), DType::kF32, {n, w}), View(nullptr, DType::kI64, {0}),
               View(g.data(), DType::kF32, {0, w}));  // no rows: nothing to do

    testing::Misaligned<float> s(n * 5);
    SliceColumns(ctx, View(x.data(), DType::kF32, {n, w}), 4, View(s.data(), DType::kF32, {n, 5}));
    for (int64_t t = 0; t < n; ++t) EXPECT_EQ(std::memcmp(s.data() + t * 5, x.data() + t * w + 4, sizeof(float) * 5), 0);

    std::vector<int32_t> ids = {5, -2, 7};
    std::vector<int32_t> ids_copy(3);
    Copy(ctx, View(ids.data(), DType::kI32, {3}), View(ids_copy.data(), DType::kI32, {3}));
    EXPECT_EQ(ids_copy, ids);
  });
}

TEST(BackendParity, ExpShiftedMatchesStdExp) {
  std::vector<float> x = {0.0f, -0.5f, -3.0f, -20.0f, -86.0f, -88.0f, -1e30f, -INFINITY, 1.5f, 2.0f};
  OnEveryBackend([&](const ExecContext& ctx, const std::string& name) {
    SCOPED_TRACE(name);
    std::vector<float> out(x.size());
    ExpShifted(ctx, View(x.data(), DType::kF32, {static_cast<int64_t>(x.size())}), 2.0f, 1.0f,
               View(out.data(), DType::kF32, {static_cast<int64_t>(x.size())}));
    for (size_t i = 0; i < x.size(); ++i) {
      const float a = x[i] - 2.0f;
      const float want = a < kExpShiftedFloor ? 0.0f : std::exp(a);
      EXPECT_NEAR(out[i], want, 4e-7f * want) << i;
    }
  });
}

}  // namespace
}  // namespace gemmad::kernels
