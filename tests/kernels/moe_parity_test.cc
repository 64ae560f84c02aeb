// Parity of MoE routing and experts with the references (f32 and bf16 expert weights).
#include <gtest/gtest.h>

#include <vector>

#include "kernels/ops.h"
#include "kernels/reference/moe.h"
#include "kernels/thread_pool.h"
#include "parity_util.h"

namespace gemmad::kernels {
namespace {

using tensor::DType;
using testing::View;

TEST(KernelParity, MoeRouteTopKRenormaliseThenScale) {
  Rng rng(7);
  for (int64_t experts : {2, 8, 13}) {
    for (int64_t k : {1, 2, 5}) {
      if (k > experts) continue;
      const int64_t n = 9;
      auto logits = testing::RandomFloats(rng, n * experts, 2.0);
      auto scale = testing::RandomFloats(rng, experts);
      testing::Misaligned<float> w(n * k), w_ref(n * k);
      testing::Misaligned<int32_t> ids(n * k), ids_ref(n * k);
      MoeRoute({}, View(logits.data(), DType::kF32, {n, experts}), View(scale.data(), DType::kF32, {experts}),
               View(w.data(), DType::kF32, {n, k}), View(ids.data(), DType::kI32, {n, k}));
      reference::MoeRoute(logits.data(), n, experts, k, scale.data(), w_ref.data(), ids_ref.data());
      for (int64_t i = 0; i < n * k; ++i) {
        ASSERT_EQ(ids[i], ids_ref[i]) << i;
        ASSERT_NEAR(w[i], w_ref[i], 1e-5 * (1 + std::fabs(w_ref[i])));
      }
    }
  }
  // Ties go to the lower expert id; weights renormalise over the chosen ones before the scale.
  std::vector<float> logits = {1, 3, 3, 0}, scale = {1, 2, 0.5f, 1}, w(2);
  std::vector<int32_t> ids(2);
  MoeRoute({}, View(logits.data(), DType::kF32, {1, 4}), View(scale.data(), DType::kF32, {4}),
           View(w.data(), DType::kF32, {1, 2}), View(ids.data(), DType::kI32, {1, 2}));
  EXPECT_EQ(ids[0], 1);
  EXPECT_EQ(ids[1], 2);
  EXPECT_NEAR(w[0], 1.0, 1e-6);
  EXPECT_NEAR(w[1], 0.25, 1e-6);
}

TEST(KernelParity, MoeExpertsF32AndBf16) {
  ThreadPool pool(2);
  Rng rng(8);
  const int64_t experts = 5, hidden = 19, inter = 7, k = 2;
  for (ExecContext ctx : {ExecContext{}, ExecContext{&pool}}) {
    for (int64_t n : {1, 4, 11}) {
      auto x = testing::RandomFloats(rng, n * hidden);
      std::vector<float> gu_f, dn_f;
      auto gu = testing::RandomBf16(rng, experts * 2 * inter * hidden, &gu_f, 0.3);
      auto dn = testing::RandomBf16(rng, experts * hidden * inter, &dn_f, 0.3);
      testing::Misaligned<float> w(n * k);
      testing::Misaligned<int32_t> ids(n * k);
      for (int64_t t = 0; t < n; ++t) {
        ids[t * k] = static_cast<int32_t>(rng.Below(experts));
        ids[t * k + 1] = static_cast<int32_t>((ids[t * k] + 1 + rng.Below(experts - 1)) % experts);
        w[t * k] = static_cast<float>(rng.Uniform());
        w[t * k + 1] = static_cast<float>(rng.Uniform());
      }
      testing::Misaligned<float> out(n * hidden);
      std::vector<float> want(static_cast<size_t>(n * hidden));
      reference::MoeExperts(x.data(), n, hidden, gu_f.data(), dn_f.data(), inter, w.data(), ids.data(), k,
                            want.data());
      auto xv = View(x.data(), DType::kF32, {n, hidden});
      auto wv = View(w.data(), DType::kF32, {n, k});
      auto iv = View(ids.data(), DType::kI32, {n, k});
      auto ov = View(out.data(), DType::kF32, {n, hidden});
      MoeExperts(ctx, xv, View(gu.data(), DType::kBF16, {experts, 2 * inter, hidden}),
                 View(dn.data(), DType::kBF16, {experts, hidden, inter}), wv, iv, ov);
      testing::ExpectClose(out.data(), want.data(), n * hidden, 2e-5, 1e-4, "bf16");
      MoeExperts(ctx, xv, View(gu_f.data(), DType::kF32, {experts, 2 * inter, hidden}),
                 View(dn_f.data(), DType::kF32, {experts, hidden, inter}), wv, iv, ov);
      testing::ExpectClose(out.data(), want.data(), n * hidden, 2e-5, 1e-4, "f32");
    }
  }
}

}  // namespace
}  // namespace gemmad::kernels
