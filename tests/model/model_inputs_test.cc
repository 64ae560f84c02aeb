// The model's input seams: any WeightSource loads the same model as the safetensors directory,
// and ForwardBatch::embedding_overrides replace token embeddings row for row (multimodal.md §5).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <map>

#include "model/forward_batch.h"
#include "model/gemma4/model.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "model/kv_cache.h"
#include "model/safetensors_source.h"
#include "test_blocks.h"

namespace gemmad::model {
namespace {

namespace fs = std::filesystem;
using gemma4::Model;

std::string Checkpoint(const std::string& preset) {
  fs::path dir = fs::path(::testing::TempDir()) / ("gemmad_inputs_" + preset + "_" + std::to_string(getpid()));
  if (!fs::exists(dir / "config.json")) {
    auto p = gemma4::FindPreset(preset);
    EXPECT_TRUE(p.ok());
    gemma4::RandomCheckpointOptions opt;
    opt.seed = 11;
    opt.dtype = tensor::DType::kF32;
    EXPECT_TRUE(gemma4::WriteRandomCheckpoint(dir.string(), p->config, opt).ok());
  }
  return dir.string();
}

// A WeightSource that owns copies of another source's tensors in memory, under the same names:
// what a GGUF or compressed-tensors source will look like to the model.
class MemorySource : public WeightSource {
 public:
  explicit MemorySource(const WeightSource& from)
      : label_("memory:" + from.label()), config_label_("memory:config.json"), config_(from.config_json()),
        generation_(from.generation_config()), names_(from.tensor_names()) {
    for (const std::string& name : names_) {
      WeightInfo info = *from.Info(name);
      info.origin = label_;
      auto view = from.View(name);
      EXPECT_TRUE(view.ok());
      auto& bytes = data_[name];
      bytes.assign(static_cast<const uint8_t*>(view->data), static_cast<const uint8_t*>(view->data) + info.size_bytes);
      views_[name] = tensor::TensorView{bytes.data(), view->dtype, view->shape};
      info_[name] = info;
    }
  }
  const std::string& label() const override { return label_; }
  const std::string& config_label() const override { return config_label_; }
  const std::string& config_json() const override { return config_; }
  const GenerationConfig& generation_config() const override { return generation_; }
  const std::vector<std::string>& tensor_names() const override { return names_; }
  const WeightInfo* Info(std::string_view name) const override {
    auto it = info_.find(std::string(name));
    return it == info_.end() ? nullptr : &it->second;
  }
  Result<tensor::TensorView> View(std::string_view name) const override {
    auto it = views_.find(std::string(name));
    if (it == views_.end()) return NotFoundError(std::string(name));
    return it->second;
  }
  std::vector<std::string> files() const override { return {}; }
  const TokenizerHints& tokenizer_hints() const override { return hints_; }

 private:
  std::string label_, config_label_, config_;
  GenerationConfig generation_;
  std::vector<std::string> names_;
  std::map<std::string, std::vector<uint8_t>> data_;
  std::map<std::string, tensor::TensorView> views_;
  std::map<std::string, WeightInfo> info_;
  TokenizerHints hints_;
};

// Logits of every row of one prefill of `ids` (with optional overrides) on a fresh cache.
std::vector<float> Prefill(Model& m, const std::vector<int32_t>& ids, std::vector<EmbeddingOverride> overrides = {}) {
  KvCacheSpec spec = m.MakeKvCacheSpec(4);
  std::vector<int64_t> blocks(spec.groups.size(), 32);
  testing::TestBlocks tb(spec, blocks);
  EXPECT_TRUE(tb.Prepare(0, 0, static_cast<int64_t>(ids.size())));
  auto cache = KvCache::Create(spec, blocks);
  EXPECT_TRUE(cache.ok());
  ForwardBatch batch = SingleSequenceBatch(ids, 0, tb.tables(0), /*all_logits=*/true);
  batch.embedding_overrides = std::move(overrides);
  const int64_t V = m.config().vocab_size;
  std::vector<float> logits(static_cast<size_t>(batch.num_logit_rows() * V));
  Status s = m.Forward({}, batch, **cache, {logits.data(), tensor::DType::kF32, tensor::Shape{batch.num_logit_rows(), V}});
  EXPECT_TRUE(s.ok()) << s.ToString();
  return logits;
}

std::vector<int32_t> Ids() { return {2, 17, 301, 44, 5, 5, 91, 260, 7, 33, 402, 11}; }

TEST(WeightSourceSeam, AnySourceLoadsTheSameModel) {
  const std::string dir = Checkpoint("t1");
  auto from_dir = Model::Load(dir);
  ASSERT_TRUE(from_dir.ok()) << from_dir.status().ToString();
  auto dir_source = OpenSafetensorsDir(dir);
  ASSERT_TRUE(dir_source.ok());
  auto from_memory = Model::Load(std::make_unique<MemorySource>(**dir_source));
  ASSERT_TRUE(from_memory.ok()) << from_memory.status().ToString();
  EXPECT_EQ(Prefill(**from_memory, Ids()), Prefill(**from_dir, Ids()));
  EXPECT_EQ((*from_memory)->checkpoint().source().label(), "memory:" + (*dir_source)->label());
}

TEST(WeightSourceSeam, SourceErrorsNameTheSource) {
  const std::string dir = Checkpoint("t1");
  auto src = OpenSafetensorsDir(dir);
  ASSERT_TRUE(src.ok());
  struct Missing final : MemorySource {
    using MemorySource::MemorySource;
    const WeightInfo* Info(std::string_view name) const override {
      return name.find("layers.1.mlp.down_proj") != std::string_view::npos ? nullptr : MemorySource::Info(name);
    }
  };
  auto m = Model::Load(std::make_unique<Missing>(**src));
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("memory:"), std::string::npos) << m.status().message();
  EXPECT_NE(m.status().message().find("missing tensor"), std::string::npos) << m.status().message();
  EXPECT_FALSE(OpenSafetensorsDir(dir + "/nowhere").ok());
}

// Rows whose overrides hold exactly the scaled embedding of token t compute what token t does
// (t2 has no per-layer embeddings, whose identity part reads the pad row for overridden rows).
TEST(EmbeddingOverrides, ReplaceTokenEmbeddingsRowForRow) {
  auto m = Model::Load(Checkpoint("t2"));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_EQ((*m)->config().hidden_size_per_layer_input, 0);
  const int64_t H = (*m)->config().hidden_size;
  std::vector<int32_t> ids = Ids();
  const std::vector<float> want = Prefill(**m, ids);
  // Rows 4..7 as overrides: the f32 embedding rows of their tokens times sqrt(H).
  const auto& embed = (*m)->weights().embed;
  ASSERT_EQ(embed.dtype, tensor::DType::kF32);
  std::vector<float> rows(static_cast<size_t>(4 * H));
  const float scale = static_cast<float>(std::sqrt(static_cast<double>(H)));
  for (int r = 0; r < 4; ++r) {
    const float* e = static_cast<const float*>(embed.data) + static_cast<int64_t>(ids[4 + r]) * H;
    for (int64_t d = 0; d < H; ++d) rows[static_cast<size_t>(r * H + d)] = e[d] * scale;
  }
  std::vector<int32_t> placeholders = ids;
  for (int r = 4; r < 8; ++r) placeholders[static_cast<size_t>(r)] = 0;
  EXPECT_EQ(Prefill(**m, placeholders, {{4, 4, rows.data()}}), want);
  EXPECT_NE(Prefill(**m, placeholders), want);  // without them the placeholder tokens count
}

TEST(EmbeddingOverrides, OverriddenRowsIgnoreTheirTokenIdsEvenWithPerLayerEmbeddings) {
  auto m = Model::Load(Checkpoint("t1"));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  ASSERT_GT((*m)->config().hidden_size_per_layer_input, 0);
  const int64_t H = (*m)->config().hidden_size;
  std::vector<float> rows(static_cast<size_t>(3 * H));
  for (size_t i = 0; i < rows.size(); ++i) rows[i] = std::sin(0.37f * static_cast<float>(i));
  std::vector<int32_t> a = Ids(), b = Ids();
  for (int r = 2; r < 5; ++r) {
    a[static_cast<size_t>(r)] = 9;
    b[static_cast<size_t>(r)] = 400;
  }
  const auto with_a = Prefill(**m, a, {{2, 3, rows.data()}});
  EXPECT_EQ(with_a, Prefill(**m, b, {{2, 3, rows.data()}}));
  EXPECT_NE(with_a, Prefill(**m, a));
  // Bidirectional spans: tests/model/bidirectional_spans_test.cc.
}

}  // namespace
}  // namespace gemmad::model
