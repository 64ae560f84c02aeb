// CalibrateKvScales and KvScalesFor (--calculate-kv-scales): amax / 200 and amax / 100 per layer,
// 1.0 for a side of zeros, the measured layer's scales for its KV-shared readers, the checkpoint's
// where a layer is not measured, nothing for a non-FP8 cache.
#include "model/gemma4/kv_scales.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace gemmad::model::gemma4 {
namespace {

TEST(KvScaleCalibration, AmaxOverTheConstantsAndTheDonorsScalesForSharedLayers) {
  std::vector<float> k = {0.5f, -4.0f, 2.0f, NAN, 1.0f, -0.25f}, v = {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  const tensor::TensorView kv{k.data(), tensor::DType::kF32, tensor::Shape{2, 3}};
  const tensor::TensorView vv{v.data(), tensor::DType::kF32, tensor::Shape{2, 3}};
  KvScaleCalibration c;
  CalibrateKvScales(kv, vv, 1, &c);
  ASSERT_EQ(c.k.size(), 2u);
  EXPECT_TRUE(c.k[0].empty());
  EXPECT_EQ(c.k[1], std::vector<float>{4.0f / 200.0f});  // |−4| is the amax; NaN is skipped
  EXPECT_EQ(c.v[1], std::vector<float>{1.0f});           // all zeros: 1.0
  std::vector<float> v2 = {3.0f, -5.0f};
  CalibrateKvScales(kv, tensor::TensorView{v2.data(), tensor::DType::kF32, tensor::Shape{2}}, 1, &c);
  EXPECT_EQ(c.v[1], std::vector<float>{5.0f / 100.0f});

  Weights w;
  w.layers.resize(3);
  w.layers[0].k_scale = {0.75f};
  w.layers[0].v_scale = {0.5f};
  KvCacheSpec spec;
  spec.layer_kv_source = {0, 1, 1};  // layer 2 reads layer 1's cache
  const auto f8 = tensor::DType::kF8E4M3;
  EXPECT_EQ(KvScalesFor(w, spec, 2, f8, &c).k[0], 4.0f / 200.0f);  // the donor's measured scales
  EXPECT_EQ(KvScalesFor(w, spec, 2, f8, &c).v[0], 5.0f / 100.0f);
  EXPECT_EQ(KvScalesFor(w, spec, 0, f8, &c).k[0], 0.75f);          // not measured: the checkpoint's
  EXPECT_TRUE(KvScalesFor(w, spec, 2, f8).empty());                // no calibration, no checkpoint scales
  EXPECT_TRUE(KvScalesFor(w, spec, 1, tensor::DType::kBF16, &c).empty());
}

}  // namespace
}  // namespace gemmad::model::gemma4
