// Pixels to logits against transformers 5.25.0 (the gemma4_mm golden, make_gemma4_mm_goldens.py):
// the golden's two decoded pictures go through gemmad's own path — the Gemma 4 image processor
// (the tiny config: patch 4, pooling 3, budget 70), the runner's VisionEncoder on the checkpoint's
// vision tower — and must give the image rows transformers inserted; those rows (with the
// recorded audio rows) in the decoder then give transformers' logits at every prompt position.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "golden_compare.h"
#include "mm/gemma4_image_processor.h"
#include "mm/image.h"
#include "mm_golden.h"
#include "model/gemma4/model.h"
#include "model/safetensors_source.h"
#include "runner/vision_encoder.h"
#include "sequence_runner.h"

namespace gemmad::model::gemma4 {
namespace {

using testing::MmGolden;
using testing::SequenceRunner;

// Image rows: the processor is bit-exact and the tower matches transformers to ~1e-5 relative
// (gemma4_vision goldens); measured here 1.1e-5 abs on rows reaching 4.5. Logits: measured 5.5e-4
// (the decoder alone: 1.0e-4, mm_golden_test.cc; the random tiny decoder amplifies the rows'
// 1e-5); logits reach |23|, so 1e-3 is 4e-5 of the largest, and the greedy margin is 2.7.
constexpr double kRowRelTol = 1e-4;
constexpr double kLogitTol = 1e-3;

TEST(MmPipelineGolden, PicturesThroughProcessorAndTowerGiveTransformersRowsAndLogits) {
  auto g = MmGolden::Load("causal");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const auto& ix = g->index();
  const int64_t H = ix["hidden_size"].get<int64_t>();
  const int64_t V = ix["vocab_size"].get<int64_t>();
  auto source = OpenSafetensorsDir(g->dir());
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  auto encoder = runner::CreateGemma4VisionEncoder(std::move(source).value(), kernels::ExecContext{});
  ASSERT_TRUE(encoder.ok()) << encoder.status().ToString();

  const auto want_rows = g->F32("image_rows");
  std::vector<float> rows;  // ours, in prompt order
  const mm::ImageProcessorConfig tiny{4, 3, 70};
  for (int k = 0; k < 2; ++k) {
    const std::string key = "image_" + std::to_string(k) + "_rgb";
    const auto shape = g->Shape(key);
    mm::Image img;
    img.height = shape[0];
    img.width = shape[1];
    for (int64_t v : g->I64(key)) img.rgb.push_back(static_cast<uint8_t>(v));
    auto patches = mm::ProcessImage(img, 70, tiny);
    ASSERT_TRUE(patches.ok()) << patches.status().ToString();
    const auto span = ix["spans"]["image"][k];
    const int64_t n = span[1].get<int64_t>() - span[0].get<int64_t>();
    ASSERT_EQ((*patches)->num_soft_tokens(), n) << "image " << k;
    mm::Item item;
    item.modality = mm::Modality::kImage;
    item.placeholder_offset = span[0].get<int64_t>();
    item.placeholder_length = n;
    item.data = *patches;
    auto out = (*encoder)->Encode(item);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ(static_cast<int64_t>(out->size()), n * H);
    rows.insert(rows.end(), out->begin(), out->end());
  }
  ASSERT_EQ(rows.size(), want_rows.size());
  double max_abs = 0, worst = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    max_abs = std::max(max_abs, static_cast<double>(std::fabs(want_rows[i])));
    worst = std::max(worst, static_cast<double>(std::fabs(rows[i] - want_rows[i])));
  }
  EXPECT_LE(worst, kRowRelTol * max_abs) << "image rows: max |value| " << max_abs;

  auto model = Model::Load(g->dir());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  std::vector<int32_t> ids;
  for (int64_t id : g->I64("input_ids")) ids.push_back(static_cast<int32_t>(id));
  const int64_t T = static_cast<int64_t>(ids.size());
  const auto audio = g->F32("audio_rows");
  SequenceRunner::Chunk ch{0, ids, true};
  int64_t at = 0;
  for (const auto& s : ix["spans"]["image"]) {
    const int64_t b = s[0].get<int64_t>(), e = s[1].get<int64_t>();
    ch.overrides.push_back({b, e - b, rows.data() + at * H});
    at += e - b;
  }
  const auto au = ix["spans"]["audio"][0];
  ch.overrides.push_back({au[0].get<int64_t>(), au[1].get<int64_t>() - au[0].get<int64_t>(), audio.data()});
  SequenceRunner r(**model, 16, 16);
  const auto logits = r.Step({ch});
  const auto s = testing::Compare(logits.data(), g->F32("logits").data(), T, V);
  EXPECT_LE(s.max_abs, kLogitTol) << "worst row " << s.worst_row;
  const float* last = logits.data() + (T - 1) * V;
  EXPECT_EQ(std::max_element(last, last + V) - last, ix["greedy_ids"][0].get<int64_t>()) << "first greedy token";
  std::printf("[mm-pipeline] image rows max abs error %.2e (max |value| %.2f), prompt logits %.2e\n", worst, max_abs,
              s.max_abs);
}

}  // namespace
}  // namespace gemmad::model::gemma4
