// The text decoder with multimodal rows against transformers 5.25.0 (scripts/golden/
// make_gemma4_mm_goldens.py, multimodal.md §8.4): the tiny end-to-end checkpoint loaded by the text
// loader (tower tensors ignored), input_ids with the recorded image and audio rows as embedding
// overrides, and for the "vision" variant the images' bidirectional spans. Every hidden state and
// the logits of every prompt position, in one prefill step and in chunked prefills whose chunks never
// split an image span (audio rows may be split: they are causal), then the greedy decode steps;
// the "vision" golden is not reproduced when the spans are left out, and the causal model gives
// the same answer with or without them. On the CPU and the reference backend.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <tuple>

#include "golden_compare.h"
#include "kernels/backend.h"
#include "mm_golden.h"
#include "sequence_runner.h"

namespace gemmad::model::gemma4 {
namespace {

namespace fs = std::filesystem;
using testing::MmGolden;
using testing::SequenceRunner;

// fp32 logits, max abs error. Measured (transformers 5.25.0 goldens): causal 1.04e-4 (CPU) and
// 1.15e-4 (reference backend, double-precision attention), vision 5.2e-5 / 5.6e-5, all in image rows
// (the image rows are ~6x the text embeddings' RMS); logits reach |23|, so 2.5e-4 is 1.1e-5 of the
// largest. The greedy margins are >= 0.2 and the semantics this golden tells apart (causal, block
// overlay on full layers too, block overlay not bounded by the window) move logits by >= 17.
constexpr double kLogitTol = 2.5e-4;
// fp32 hidden states, per row: max abs error <= abs + rel * max |value| of the row.
constexpr double kHiddenAbsTol = 1e-4;
constexpr double kHiddenRelTol = 5e-5;

struct Golden {
  MmGolden g;
  std::unique_ptr<Model> model;
  std::vector<int32_t> ids;
  std::vector<BidirectionalSpan> image_spans, audio_spans, spans;  // spans: what the model is given
  std::vector<float> image_rows, audio_rows;
  int64_t T = 0, V = 0, H = 0, L = 0;
};

std::vector<BidirectionalSpan> Spans(const nlohmann::json& j) {
  std::vector<BidirectionalSpan> out;
  for (const auto& s : j) out.push_back({s[0].get<int64_t>(), s[1].get<int64_t>()});
  return out;
}

// The variant's checkpoint: causal/ as committed; vision/ keeps only its config.json, so the
// directory is assembled under the test's temp dir with causal/'s weights.
std::string CheckpointDir(const MmGolden& g, const std::string& variant) {
  if (variant == "causal") return g.dir();
  const fs::path dir = fs::path(::testing::TempDir()) / ("gemmad_mm_" + variant + "_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const fs::path weights = fs::path(g.dir()).parent_path() / "causal";
  const auto over = fs::copy_options::overwrite_existing;
  fs::copy_file(fs::path(g.dir()) / "config.json", dir / "config.json", over);
  fs::copy_file(weights / "model.safetensors", dir / "model.safetensors", over);
  fs::copy_file(weights / "generation_config.json", dir / "generation_config.json", over);
  return dir.string();
}

Golden Load(const std::string& variant) {
  auto g = MmGolden::Load(variant);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  Golden out{std::move(g).value()};
  auto m = Model::Load(CheckpointDir(out.g, variant));
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  out.model = std::move(m).value();
  for (int64_t id : out.g.I64("input_ids")) out.ids.push_back(static_cast<int32_t>(id));
  const auto& ix = out.g.index();
  out.image_spans = Spans(ix["spans"]["image"]);
  out.audio_spans = Spans(ix["spans"]["audio"]);
  out.spans = Spans(ix["bidirectional_spans"]);
  out.image_rows = out.g.F32("image_rows");
  out.audio_rows = out.g.F32("audio_rows");
  out.T = static_cast<int64_t>(out.ids.size());
  out.V = ix["vocab_size"].get<int64_t>();
  out.H = ix["hidden_size"].get<int64_t>();
  out.L = ix["num_hidden_layers"].get<int64_t>();
  EXPECT_EQ(out.model->config().use_bidirectional_attention, variant == "vision" ? "vision" : "");
  return out;
}

// Tokens [begin, end) of the prompt as one chunk: the media rows inside it as overrides.
SequenceRunner::Chunk PromptChunk(const Golden& gd, int64_t begin, int64_t end,
                                  const std::vector<BidirectionalSpan>& spans) {
  SequenceRunner::Chunk ch{0, {gd.ids.begin() + begin, gd.ids.begin() + end}, true, spans};
  for (const auto* media : {&gd.image_spans, &gd.audio_spans}) {
    const float* rows = media == &gd.image_spans ? gd.image_rows.data() : gd.audio_rows.data();
    for (const BidirectionalSpan& s : *media) {
      const int64_t lo = std::max(begin, s.begin), hi = std::min(end, s.end);
      if (lo < hi) ch.overrides.push_back({lo - begin, hi - lo, rows + (lo - s.begin) * gd.H});
      rows += (s.end - s.begin) * gd.H;
    }
  }
  std::sort(ch.overrides.begin(), ch.overrides.end(), [](const auto& a, const auto& b) { return a.row < b.row; });
  return ch;
}

// Chunk ends of budget-sized steps that never split an image span (sched::Sequence::ClampChunkEnd:
// stop before a span that starts inside the chunk; a span at the chunk's start goes in whole).
std::vector<int64_t> BudgetChunks(const Golden& gd, int64_t budget) {
  std::vector<int64_t> ends;
  for (int64_t begin = 0; begin < gd.T;) {
    int64_t end = std::min(gd.T, begin + budget);
    for (const BidirectionalSpan& s : gd.image_spans) {
      if (s.begin < end && end < s.end) end = s.begin > begin ? s.begin : s.end;
    }
    ends.push_back(end);
    begin = end;
  }
  return ends;
}

using VariantAndBackend = std::tuple<std::string, std::string>;

class MmGoldenTest : public ::testing::TestWithParam<VariantAndBackend> {
 protected:
  const std::string& variant() const { return std::get<0>(GetParam()); }
  kernels::ExecContext exec() const {
    const kernels::Backend* b = kernels::FindBackend(std::get<1>(GetParam()));
    EXPECT_NE(b, nullptr);
    return {nullptr, b};
  }
  // Prompt logits [T, V] computed in chunks ending at `ends`, with `spans`.
  std::vector<float> Prefill(const Golden& gd, SequenceRunner& r, const std::vector<int64_t>& ends,
                             const std::vector<BidirectionalSpan>& spans, HiddenStates* hidden = nullptr) {
    std::vector<float> all;
    int64_t begin = 0;
    for (int64_t end : ends) {
      const auto rows = r.Step({PromptChunk(gd, begin, end, spans)}, hidden);
      all.insert(all.end(), rows.begin(), rows.end());
      begin = end;
    }
    return all;
  }
};

TEST_P(MmGoldenTest, EveryLayerAndThePromptLogitsInOneStep) {
  Golden gd = Load(variant());
  SequenceRunner r(*gd.model, 16, 16, exec());
  HiddenStates hidden;
  const auto logits = Prefill(gd, r, {gd.T}, gd.spans, &hidden);
  const auto want_hidden = gd.g.F32("hidden_states");
  ASSERT_EQ(static_cast<int64_t>(hidden.size()), gd.L + 1);
  for (int64_t k = 0; k <= gd.L; ++k) {
    for (int64_t t = 0; t < gd.T; ++t) {
      double row_max = 0, row_err = 0;
      for (int64_t j = t * gd.H; j < (t + 1) * gd.H; ++j) {
        const float w = want_hidden[k * gd.T * gd.H + j];
        row_max = std::max(row_max, static_cast<double>(std::fabs(w)));
        row_err = std::max(row_err, static_cast<double>(std::fabs(hidden[k][j] - w)));
      }
      ASSERT_LE(row_err, kHiddenAbsTol + kHiddenRelTol * row_max)
          << "first diverging hidden state: entry " << k << ", token " << t << " (max |value| " << row_max << ")";
    }
  }
  const auto s = testing::Compare(logits.data(), gd.g.F32("logits").data(), gd.T, gd.V);
  EXPECT_LE(s.max_abs, kLogitTol) << "worst row " << s.worst_row;
  std::printf("[mm-golden] %s %s: prompt logits max abs error %.2e\n", variant().c_str(),
              std::get<1>(GetParam()).c_str(), s.max_abs);
}

TEST_P(MmGoldenTest, ChunkedPrefillThenGreedyDecode) {
  Golden gd = Load(variant());
  const auto want = gd.g.F32("logits");
  const auto greedy_logits = gd.g.F32("greedy_logits");
  const auto greedy = gd.g.index()["greedy_ids"].get<std::vector<int32_t>>();
  const BidirectionalSpan im1 = gd.image_spans[0], im2 = gd.image_spans[1], au = gd.audio_spans[0];
  const std::vector<std::vector<int64_t>> plans = {
      {im1.begin, im1.end, im2.begin, im2.end, au.begin + 3, gd.T},  // each image alone; audio split
      {im1.end + 1, au.end - 2, gd.T},                                // image 2 with the text around it
      BudgetChunks(gd, 16), BudgetChunks(gd, 70)};
  for (const auto& ends : plans) {
    SCOPED_TRACE(::testing::Message() << ends.size() << " chunks, first ending at " << ends[0]);
    SequenceRunner r(*gd.model, 16, 16, exec());
    const auto logits = Prefill(gd, r, ends, gd.spans);
    const auto s = testing::Compare(logits.data(), want.data(), gd.T, gd.V);
    EXPECT_LE(s.max_abs, kLogitTol) << "worst row " << s.worst_row;
    // Decode: the spans (all in the past now) still come with every step, as the runner sends them.
    std::vector<float> row(logits.end() - gd.V, logits.end());
    for (size_t i = 0; i < greedy.size(); ++i) {
      const auto d = testing::Compare(row.data(), greedy_logits.data() + i * gd.V, 1, gd.V);
      EXPECT_LE(d.max_abs, kLogitTol) << "greedy step " << i;
      EXPECT_EQ(std::max_element(row.begin(), row.end()) - row.begin(), greedy[i]) << "greedy step " << i;
      if (i + 1 < greedy.size()) row = r.Step({{0, {greedy[i]}, false, gd.spans}});
    }
  }
}

TEST_P(MmGoldenTest, TheSpansDecideForVisionModelsOnly) {
  Golden gd = Load(variant());
  const auto want = gd.g.F32("logits");
  // The vision model without spans computes the causal answer, far from its golden; the causal
  // model given the image spans ignores them.
  const auto other = variant() == "vision" ? std::vector<BidirectionalSpan>{} : gd.image_spans;
  SequenceRunner r(*gd.model, 16, 16, exec());
  const auto logits = Prefill(gd, r, {gd.T}, other);
  const auto s = testing::Compare(logits.data(), want.data(), gd.T, gd.V);
  if (variant() == "vision") {
    EXPECT_GT(s.max_abs, 100 * kLogitTol);
    auto causal = MmGolden::Load("causal");
    ASSERT_TRUE(causal.ok());
    const auto c = testing::Compare(logits.data(), causal->F32("logits").data(), gd.T, gd.V);
    EXPECT_LE(c.max_abs, kLogitTol) << "the vision model without spans should be the causal model";
  } else {
    EXPECT_LE(s.max_abs, kLogitTol);
  }
}

INSTANTIATE_TEST_SUITE_P(Variants, MmGoldenTest,
                         ::testing::Combine(::testing::Values("causal", "vision"), ::testing::Values("cpu", "reference")),
                         [](const ::testing::TestParamInfo<VariantAndBackend>& info) {
                           return std::get<0>(info.param) + "_" + std::get<1>(info.param);
                         });

}  // namespace
}  // namespace gemmad::model::gemma4
