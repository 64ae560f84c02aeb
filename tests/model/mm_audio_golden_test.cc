// Features to logits against transformers 5.25.0 (the gemma4_mm golden's audio cases,
// make_gemma4_mm_goldens.py): a 1.0 s clip's log-mel frames go through the runner's audio encoder
// on the checkpoint's audio tower (§8.3's tiny tower) and must give the rows transformers
// inserted; with those rows (and, in the audio_image case, the picture through gemmad's image
// processor and vision encoder) the decoder gives transformers' logits at every prompt position
// and its 8-token greedy continuation. Prompts: audio alone, and an image then audio.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "golden_compare.h"
#include "mm/audio_input.h"
#include "mm/gemma4_image_processor.h"
#include "mm/image.h"
#include "mm_golden.h"
#include "model/gemma4/model.h"
#include "model/safetensors_source.h"
#include "runner/audio_encoder.h"
#include "runner/vision_encoder.h"
#include "sequence_runner.h"

namespace gemmad::model::gemma4 {
namespace {

using testing::MmGolden;
using testing::SequenceRunner;

// Audio rows: max abs error over the rows ≤ kRowRelTol · max |value|; measured 3.1e-6 with values
// up to 2.7 (1.1e-6 relative: the tower matches transformers to ~1e-6 per block, gemma4_audio
// goldens). Logits (prompt and greedy steps): max abs; measured 2.9e-4 with audio alone (6e-5 with
// the audio linears on kernels::Linear instead of LinearGemm: the random tiny decoder amplifies the
// rows' 1e-6 rounding ~100-fold) and 3.8e-4 with the image (its rows carry the vision tower's
// ~1e-5, as in mm_pipeline_golden_test.cc); logits reach |20|, the smallest greedy margin is 0.13.
constexpr double kRowRelTol = 1e-5;
double LogitTol(const std::string& c) { return c == "audio_only" ? 5e-4 : 1e-3; }

double MaxAbs(const std::vector<float>& v) {
  double m = 0;
  for (float x : v) m = std::max(m, static_cast<double>(std::fabs(x)));
  return m;
}

class MmAudioGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(MmAudioGolden, FeaturesThroughTheAudioEncoderGiveTransformersRowsLogitsAndGreedyRun) {
  const std::string c = GetParam();
  auto g = MmGolden::Load("audio");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const auto& ix = g->index();
  const int64_t H = ix["hidden_size"].get<int64_t>(), V = ix["vocab_size"].get<int64_t>();
  const std::string ckpt = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gemma4_mm/" + ix["checkpoint"].get<std::string>();
  auto source = OpenSafetensorsDir(ckpt);
  ASSERT_TRUE(source.ok()) << source.status().ToString();
  std::shared_ptr<const WeightSource> shared(std::move(source).value());
  auto audio_enc = runner::CreateGemma4AudioEncoder(shared, kernels::ExecContext{});
  ASSERT_TRUE(audio_enc.ok()) << audio_enc.status().ToString();

  // The audio rows from the features.
  const auto& cx = ix[c];
  const auto au = cx["spans"]["audio"][0];
  const int64_t a0 = au[0].get<int64_t>(), m = au[1].get<int64_t>() - a0;
  auto feats = std::make_shared<mm::AudioFeatures>();
  feats->num_mels = g->Shape(c + ".audio_features")[1];
  feats->num_frames = g->Shape(c + ".audio_features")[0];
  feats->features = g->F32(c + ".audio_features");
  ASSERT_EQ(feats->num_soft_tokens(), m);
  mm::Item item;
  item.modality = mm::Modality::kAudio;
  item.placeholder_offset = a0;
  item.placeholder_length = m;
  item.data = feats;
  auto audio_rows = (*audio_enc)->Encode(item);
  ASSERT_TRUE(audio_rows.ok()) << audio_rows.status().ToString();
  const auto want_rows = g->F32(c + ".audio_rows");
  ASSERT_EQ(static_cast<int64_t>(audio_rows->size()), m * H);
  ASSERT_EQ(audio_rows->size(), want_rows.size());
  double row_err = 0;
  for (size_t i = 0; i < want_rows.size(); ++i) {
    row_err = std::max(row_err, static_cast<double>(std::fabs((*audio_rows)[i] - want_rows[i])));
  }
  EXPECT_LE(row_err, kRowRelTol * MaxAbs(want_rows)) << "audio rows";

  std::vector<int32_t> ids;
  for (int64_t id : g->I64(c + ".input_ids")) ids.push_back(static_cast<int32_t>(id));
  const int64_t T = static_cast<int64_t>(ids.size());
  SequenceRunner::Chunk ch{0, ids, true};
  std::vector<float> image_rows;
  if (!cx["spans"]["image"].empty()) {  // the picture through the processor and the vision encoder
    auto vision_enc = runner::CreateGemma4VisionEncoder(shared, kernels::ExecContext{});
    ASSERT_TRUE(vision_enc.ok()) << vision_enc.status().ToString();
    const auto shape = g->Shape(c + ".image_rgb");
    mm::Image img;
    img.height = shape[0];
    img.width = shape[1];
    for (int64_t v : g->I64(c + ".image_rgb")) img.rgb.push_back(static_cast<uint8_t>(v));
    auto patches = mm::ProcessImage(img, 70, mm::ImageProcessorConfig{4, 3, 70});
    ASSERT_TRUE(patches.ok()) << patches.status().ToString();
    const auto sp = cx["spans"]["image"][0];
    mm::Item im;
    im.modality = mm::Modality::kImage;
    im.placeholder_offset = sp[0].get<int64_t>();
    im.placeholder_length = sp[1].get<int64_t>() - im.placeholder_offset;
    im.data = *patches;
    auto rows = (*vision_enc)->Encode(im);
    ASSERT_TRUE(rows.ok()) << rows.status().ToString();
    image_rows = std::move(rows).value();
    ch.overrides.push_back({im.placeholder_offset, im.placeholder_length, image_rows.data()});
  }
  ch.overrides.push_back({a0, m, audio_rows->data()});

  auto model = Model::Load(ckpt);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  SequenceRunner r(**model, 16, 16);
  const auto logits = r.Step({ch});
  const auto s = testing::Compare(logits.data(), g->F32(c + ".logits").data(), T, V);
  EXPECT_LE(s.max_abs, LogitTol(c)) << "worst row " << s.worst_row;
  double worst = s.max_abs;
  const auto greedy = cx["greedy_ids"].get<std::vector<int32_t>>();
  const auto greedy_logits = g->F32(c + ".greedy_logits");
  std::vector<float> row(logits.end() - V, logits.end());
  for (size_t i = 0; i < greedy.size(); ++i) {
    const auto d = testing::Compare(row.data(), greedy_logits.data() + i * V, 1, V);
    EXPECT_LE(d.max_abs, LogitTol(c)) << "greedy step " << i;
    worst = std::max(worst, d.max_abs);
    EXPECT_EQ(std::max_element(row.begin(), row.end()) - row.begin(), greedy[i]) << "greedy step " << i;
    if (i + 1 < greedy.size()) row = r.Step({{0, {greedy[i]}, false}});
  }
  std::printf("[mm-audio] %s: audio rows max abs error %.2e (max |value| %.2f), logits %.2e\n", c.c_str(), row_err,
              MaxAbs(want_rows), worst);
}

INSTANTIATE_TEST_SUITE_P(Cases, MmAudioGolden, ::testing::Values("audio_only", "audio_image"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace gemmad::model::gemma4
