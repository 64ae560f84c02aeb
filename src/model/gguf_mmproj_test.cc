// The mmproj reader on crafted files (the config from metadata and shapes, the converter's value
// changes undone, block types dequantized, one-line errors for what it cannot serve) and on
// llama.cpp's conversion of the multimodal reference checkpoint (tests/golden/gguf_mmproj: every
// encoder tensor equals the safetensors checkpoint's: bit for bit, per_dim_scale through its softplus), through GgufSource and
// OpenWeightSource (the companion found beside the file as vLLM finds it, --mmproj, --no-mmproj).
#include "model/gguf_mmproj.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>

#include "base/files.h"
#include "io/gguf_test_writer.h"
#include "model/gemma4/config.h"
#include "model/gguf_source.h"
#include "model/open_weight_source.h"
#include "model/safetensors_source.h"
#include "tensor/ggml_quants.h"
#include "tensor/ggml_types.h"
#include "tensor/half.h"

namespace gemmad::model {
namespace {

using io::testing::F32s;
using io::testing::GgufTestWriter;

const std::string kDir = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gguf_mmproj/";

std::string F32Range(size_t n, float start = 0.0f, float step = 1.0f) {
  std::string out(n * 4, '\0');
  for (size_t i = 0; i < n; ++i) {
    const float v = start + step * static_cast<float>(i);
    std::memcpy(out.data() + 4 * i, &v, 4);
  }
  return out;
}
void AddBool(GgufTestWriter& w, std::string_view key, bool v) { w.AddRaw(key, 7, std::string(1, v ? '\1' : '\0')); }
void AddF32(GgufTestWriter& w, std::string_view key, float v) {
  std::string p(4, '\0');
  std::memcpy(p.data(), &v, 4);
  w.AddRaw(key, 6, p);
}

struct VisionEdits {
  std::string arch = "clip", projector = "gemma4v";
  float mean = 0.0f;
  std::string drop;  // a tensor left out
};

// A vision-only gemma4v mmproj: D = 8, 2 heads of 4, FF 16, patch 2, a 4-entry position table, one
// layer, projecting to 6; `e` changes it.
GgufTestWriter VisionWriter(const VisionEdits& e = {}) {
  GgufTestWriter w;
  w.AddString("general.architecture", e.arch);
  AddBool(w, "clip.has_vision_encoder", true);
  w.AddString("clip.vision.projector_type", e.projector);
  w.AddU32("clip.vision.projection_dim", 6);
  w.AddU32("clip.vision.embedding_length", 8);
  w.AddU32("clip.vision.feed_forward_length", 16);
  w.AddU32("clip.vision.block_count", 1);
  w.AddU32("clip.vision.attention.head_count", 2);
  w.AddU32("clip.vision.patch_size", 2);
  AddF32(w, "clip.vision.attention.layer_norm_epsilon", 1e-6f);
  w.AddArray("clip.vision.image_mean", 6, 3, F32s({e.mean, e.mean, e.mean}));
  w.AddArray("clip.vision.image_std", 6, 3, F32s({1, 1, 1}));
  w.AddTensor({"v.patch_embd.weight", {2, 2, 3, 8}, 0, F32Range(96)});
  w.AddTensor({"v.position_embd.weight", {8, 4, 2}, 0, F32Range(64)});
  for (const char* n : {"ln1", "ln2", "attn_post_norm", "ffn_post_norm"}) {
    w.AddTensor({std::string("v.blk.0.") + n + ".weight", {8}, 0, F32Range(8, 1.0f, 0.0f)});
  }
  for (const char* n : {"attn_q_norm", "attn_k_norm"}) {
    if (e.drop == std::string("v.blk.0.") + n + ".weight") continue;
    w.AddTensor({std::string("v.blk.0.") + n + ".weight", {4}, 0, F32Range(4, 1.0f, 0.0f)});
  }
  for (const char* n : {"attn_q", "attn_k", "attn_v", "attn_out"}) {
    w.AddTensor({std::string("v.blk.0.") + n + ".weight", {8, 8}, 0, F32Range(64, 0.0f, 0.01f)});
  }
  w.AddTensor({"v.blk.0.attn_q.input_max", {1}, 0, F32s({3.5f})});
  w.AddTensor({"v.blk.0.ffn_gate.weight", {8, 16}, 0, F32Range(128, 0.0f, 0.01f)});
  // ffn_up in Q8_0: 16 rows of one block (scale 0.5, values -16..15).
  std::string q8;
  for (int r = 0; r < 16; ++r) {
    const uint16_t d = tensor::FloatToF16(0.5f);
    q8.append(reinterpret_cast<const char*>(&d), 2);
    for (int j = 0; j < 32; ++j) q8.push_back(static_cast<char>(j - 16));
  }
  w.AddTensor({"v.blk.0.ffn_up.weight", {32, 16}, tensor::kGgmlQ8_0, q8});
  w.AddTensor({"v.blk.0.ffn_down.weight", {16, 8}, 0, F32Range(128, 0.0f, 0.01f)});
  w.AddTensor({"mm.input_projection.weight", {8, 6}, 0, F32Range(48, 0.0f, 0.01f)});
  return w;
}

class GgufMmprojTest : public ::testing::Test {
 protected:
  std::string Save(const GgufTestWriter& w, const std::string& tag = "") {
    const std::string path = ::testing::TempDir() + "/gguf_mmproj_" + std::to_string(getpid()) + "_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name() + tag + ".gguf";
    EXPECT_TRUE(WriteStringToFile(path, w.Build()).ok());
    return path;
  }
  // The error of opening `w` as an mmproj (empty when it opens).
  std::string ErrorOf(const GgufTestWriter& w, const std::string& tag = "") {
    auto r = OpenGgufMmproj(Save(w, tag));
    return r.ok() ? std::string() : r.status().ToString();
  }
  static const MmprojTensor* Find(const GgufMmproj& m, std::string_view name) {
    for (const MmprojTensor& t : m.tensors) {
      if (t.hf_name == name) return &t;
    }
    return nullptr;
  }
};

TEST_F(GgufMmprojTest, VisionConfigFromMetadataAndShapes) {
  auto m = OpenGgufMmproj(Save(VisionWriter()));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  const nlohmann::json& v = (*m)->vision_config;
  EXPECT_TRUE((*m)->audio_config.is_null());
  EXPECT_EQ((*m)->projection_dim, 6);
  EXPECT_EQ(v["hidden_size"], 8);
  EXPECT_EQ(v["intermediate_size"], 16);
  EXPECT_EQ(v["num_attention_heads"], 2);
  EXPECT_EQ(v["num_key_value_heads"], 2);  // attn_k's 8 rows / head_dim 4
  EXPECT_EQ(v["head_dim"], 4);             // the q norm's length
  EXPECT_EQ(v["patch_size"], 2);
  EXPECT_EQ(v["position_embedding_size"], 4);
  EXPECT_EQ(v["pooling_kernel_size"], 3);  // llama.cpp's value for gemma4v
  EXPECT_EQ(v["rms_norm_eps"], 1e-6);      // the FLOAT32 key read as the decimal it was written from
  EXPECT_EQ(v["use_clipped_linears"], true);
  EXPECT_EQ(v["standardize"], false);      // no v.std_bias
  EXPECT_EQ(v["rope_parameters"]["rope_theta"], 100.0);
}

TEST_F(GgufMmprojTest, ValuesAsTransformersReadsThem) {
  auto m = OpenGgufMmproj(Save(VisionWriter()));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  // The patch embedding: stored [D, 3, p, p] = value i at flat index i; HF's [D, p·p·3] holds at
  // (o, (y·p + x)·3 + c) the stored (o, c, y, x).
  const MmprojTensor* pe = Find(**m, "model.vision_tower.patch_embedder.input_proj.weight");
  ASSERT_NE(pe, nullptr);
  EXPECT_EQ(pe->info.shape, (std::vector<int64_t>{8, 12}));
  const float* pv = pe->view.As<const float>();
  for (int64_t o : {0, 7}) {
    for (int64_t c = 0; c < 3; ++c) {
      for (int64_t y = 0; y < 2; ++y) {
        for (int64_t x = 0; x < 2; ++x) {
          EXPECT_EQ(pv[o * 12 + (y * 2 + x) * 3 + c], static_cast<float>(((o * 3 + c) * 2 + y) * 2 + x));
        }
      }
    }
  }
  // A clip bound is 0-d again; a linear's weight is HF's ".linear.weight".
  const MmprojTensor* bound = Find(**m, "model.vision_tower.encoder.layers.0.self_attn.q_proj.input_max");
  ASSERT_NE(bound, nullptr);
  EXPECT_TRUE(bound->info.shape.empty());
  EXPECT_EQ(*bound->view.As<const float>(), 3.5f);
  EXPECT_NE(Find(**m, "model.vision_tower.encoder.layers.0.self_attn.q_proj.linear.weight"), nullptr);
  // The Q8_0 matrix is F32, scale × value.
  const MmprojTensor* up = Find(**m, "model.vision_tower.encoder.layers.0.mlp.up_proj.linear.weight");
  ASSERT_NE(up, nullptr);
  EXPECT_EQ(up->view.dtype, tensor::DType::kF32);
  EXPECT_EQ(up->info.dtype_name, "Q8_0");
  EXPECT_EQ(up->info.shape, (std::vector<int64_t>{16, 32}));
  EXPECT_EQ(up->view.As<const float>()[32 * 5 + 3], 0.5f * (3 - 16));
  // The F32 tensors stay views of the file.
  const MmprojTensor* pos = Find(**m, "model.vision_tower.patch_embedder.position_embedding_table");
  ASSERT_NE(pos, nullptr);
  EXPECT_EQ(pos->info.shape, (std::vector<int64_t>{2, 4, 8}));
  EXPECT_EQ(pos->view.As<const float>()[63], 63.0f);
}

TEST_F(GgufMmprojTest, OneLineErrorsForWhatItCannotServe) {
  struct Case {
    std::string what, needle;
    VisionEdits edits;
    std::function<void(GgufTestWriter&)> add = [](GgufTestWriter&) {};
  };
  const std::vector<Case> cases = {
      {"gemma3", "Gemma 3", {.projector = "gemma3"}},
      {"other", "projector type 'idefics3' is not supported", {.projector = "idefics3"}},
      {"text", "not an mmproj file", {.arch = "gemma4"}},
      {"mean", "image_mean is not all 0", {.mean = 0.5f}},
      {"missing", "missing tensor 'v.blk.0.attn_q_norm.weight'", {.drop = "v.blk.0.attn_q_norm.weight"}},
      {"unknown", "unexpected tensor 'v.blk.0.attn_qkv.weight'", {},
       [](GgufTestWriter& w) { w.AddTensor({"v.blk.0.attn_qkv.weight", {8}, 0, F32Range(8)}); }},
      {"undeclared", "'a.conv1d.0.norm.weight' belongs to an encoder the metadata does not declare", {},
       [](GgufTestWriter& w) { w.AddTensor({"a.conv1d.0.norm.weight", {8}, 0, F32Range(8)}); }},
      {"scale", "scales a layer's output by 2", {},
       [](GgufTestWriter& w) { w.AddTensor({"v.blk.0.out_scale.weight", {8}, 0, F32Range(8, 2.0f, 0.0f)}); }},
      {"bound", "has 2 values, expected 1", {},
       [](GgufTestWriter& w) { w.AddTensor({"v.blk.0.attn_k.output_max", {2}, 0, F32s({1, 2})}); }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    GgufTestWriter w = VisionWriter(c.edits);
    c.add(w);
    const std::string err = ErrorOf(w, c.what);
    EXPECT_NE(err.find(c.needle), std::string::npos) << err;
    EXPECT_NE(err.find(".gguf"), std::string::npos) << err;  // names the file
  }
  // A unit out_scale is accepted (and not handed on: transformers' tower has none).
  GgufTestWriter w = VisionWriter();
  w.AddTensor({"v.blk.0.out_scale.weight", {8}, 0, F32Range(8, 1.0f, 0.0f)});
  auto m = OpenGgufMmproj(Save(w, "unit"));
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(Find(**m, "model.vision_tower.encoder.layers.0.layer_scalar"), nullptr);
}

TEST_F(GgufMmprojTest, EncoderTensorsEqualTheCheckpoints) {
  // llama.cpp's conversion of gemma4_mm/causal: every vision and audio tensor the checkpoint has,
  // under its name and shape, with its values; nothing else.
  GgufSourceOptions options;
  options.mmproj = kDir + "mmproj-gemma4_mm-f32.gguf";
  auto gguf = OpenGgufSource(kDir + "gemma4_mm_f32.gguf", options);
  ASSERT_TRUE(gguf.ok()) << gguf.status().ToString();
  auto st = OpenSafetensorsDir(std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/gemma4_mm/causal");
  ASSERT_TRUE(st.ok()) << st.status().ToString();
  auto is_encoder = [](std::string_view n) {
    return n.starts_with("model.vision_tower.") || n.starts_with("model.audio_tower.") ||
           n.starts_with("model.embed_vision.") || n.starts_with("model.embed_audio.");
  };
  size_t checked = 0, encoder_names = 0;
  for (const std::string& name : (*gguf)->tensor_names()) encoder_names += is_encoder(name);
  for (const std::string& name : (*st)->tensor_names()) {
    if (!is_encoder(name)) continue;
    SCOPED_TRACE(name);
    const WeightInfo* info = (*gguf)->Info(name);
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->shape, (*st)->Info(name)->shape);
    auto a = (*gguf)->View(name);
    auto b = (*st)->View(name);
    ASSERT_TRUE(a.ok() && b.ok());
    ASSERT_EQ(a->dtype, tensor::DType::kF32);
    ASSERT_EQ(b->dtype, tensor::DType::kF32);
    ASSERT_EQ(a->NumElements(), b->NumElements());
    const float* x = a->As<const float>();
    const float* y = b->As<const float>();
    int64_t differ = 0;
    const bool softplus = name.ends_with("per_dim_scale");
    for (int64_t i = 0; i < a->NumElements(); ++i) {
      if (!softplus) {
        differ += x[i] != y[i];
        continue;
      }
      // per_dim_scale was stored as softplus(w) in f32 and read back through the inverse: what
      // the tower uses, softplus of it, is the stored value within an ulp of it.
      const float sx = static_cast<float>(std::log1p(std::exp(static_cast<double>(x[i]))));
      const float sy = static_cast<float>(std::log1p(std::exp(static_cast<double>(y[i]))));
      differ += std::fabs(sx - sy) > std::nextafter(sy, INFINITY) - sy;
    }
    EXPECT_EQ(differ, 0);
    ++checked;
  }
  EXPECT_EQ(checked, encoder_names);
  EXPECT_GT(checked, 200u);
  // The config is the multimodal form: the towers' configs, the media ids by name.
  auto c = gemma4::ParseConfig((*gguf)->config_json());
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_TRUE(c->vision.has_value());
  EXPECT_TRUE(c->audio.has_value());
  EXPECT_EQ(c->image_token_id, 4);
  EXPECT_EQ(c->audio_token_id, 7);
  EXPECT_EQ(c->video_token_id, 10);
  EXPECT_EQ(c->hidden_size, 64);
}

TEST_F(GgufMmprojTest, FoundBesideTheModelNamedOrRefused) {
  // As vLLM looks: mmproj.gguf, then mmproj-*.gguf, then *mmproj*.gguf, each by name.
  auto found = FindMmproj(kDir + "gemma4_mm_f32.gguf", {});
  ASSERT_TRUE(found.ok());
  EXPECT_EQ(*found, kDir + "mmproj-gemma4_mm-f32.gguf");
  const std::string dir = ::testing::TempDir() + "/mmproj_find_" + std::to_string(getpid());
  std::filesystem::create_directories(dir);
  for (const char* n : {"model.gguf", "a-mmproj-F16.gguf", "mmproj-F32.gguf", "mmproj-BF16.gguf"}) {
    ASSERT_TRUE(WriteStringToFile(dir + "/" + n, "GGUF").ok());
  }
  EXPECT_EQ(*FindMmproj(dir + "/model.gguf", {}), dir + "/mmproj-BF16.gguf");
  ASSERT_TRUE(WriteStringToFile(dir + "/mmproj.gguf", "GGUF").ok());
  EXPECT_EQ(*FindMmproj(dir + "/model.gguf", {}), dir + "/mmproj.gguf");
  EXPECT_EQ(*FindMmproj(dir + "/model.gguf", {"", true}), "");
  EXPECT_EQ(*FindMmproj(dir + "/model.gguf", {dir + "/a-mmproj-F16.gguf", false}), dir + "/a-mmproj-F16.gguf");
  EXPECT_FALSE(FindMmproj(dir + "/model.gguf", {dir + "/nope.gguf", false}).ok());
  std::filesystem::remove_all(dir);

  // Through OpenWeightSource: found (multimodal config), refused (text only).
  auto with = OpenWeightSource(kDir + "gemma4_mm_f32.gguf");
  ASSERT_TRUE(with.ok()) << with.status().ToString();
  EXPECT_NE((*with)->config_json().find("vision_config"), std::string::npos);
  EXPECT_EQ((*with)->files().size(), 2u);
  auto without = OpenWeightSource(kDir + "gemma4_mm_f32.gguf", false, {"", true});
  ASSERT_TRUE(without.ok());
  EXPECT_EQ((*without)->config_json().find("vision_config"), std::string::npos);
  // --mmproj with a safetensors model, the mmproj as the model, a text GGUF as the mmproj, an
  // mmproj of another width: one line each.
  const std::string golden = std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/";
  auto err = [](const Result<std::unique_ptr<WeightSource>>& r) { return r.ok() ? std::string() : r.status().ToString(); };
  EXPECT_NE(err(OpenWeightSource(golden + "gemma4_mm/causal", false, {kDir + "mmproj-gemma4_mm-f32.gguf", false}))
                .find("only a GGUF model reads an mmproj"),
            std::string::npos);
  EXPECT_NE(err(OpenWeightSource(kDir + "mmproj-gemma4_mm-f32.gguf", false, {"", true})).find("an mmproj file"),
            std::string::npos);
  EXPECT_NE(err(OpenWeightSource(kDir + "gemma4_mm_f32.gguf", false, {golden + "gguf/gemma4_t1_q8_0.gguf", false}))
                .find("not an mmproj file"),
            std::string::npos);
  GgufTestWriter narrow = VisionWriter();  // projects to 6, the text model is 64 wide
  const std::string narrow_path = Save(narrow);
  EXPECT_NE(err(OpenWeightSource(kDir + "gemma4_mm_f32.gguf", false, {narrow_path, false}))
                .find("project to width 6, but the text model"),
            std::string::npos);
}

// Writes the fuzz seeds (fuzz/gguf_mmproj_fuzz.cc): run with --gtest_also_run_disabled_tests.
TEST_F(GgufMmprojTest, DISABLED_WriteFuzzCorpus) {
  const std::string dir = std::string(GEMMAD_SOURCE_DIR) + "/fuzz/corpus/gguf_mmproj/";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(WriteStringToFile(dir + "vision.gguf", VisionWriter().Build()).ok());
  GgufTestWriter scaled = VisionWriter();
  scaled.AddTensor({"v.blk.0.out_scale.weight", {8}, 0, F32Range(8, 1.0f, 0.0f)});
  scaled.AddTensor({"v.std_bias", {8}, 0, F32Range(8)});
  scaled.AddTensor({"v.std_scale", {8}, 0, F32Range(8, 1.0f, 0.0f)});
  ASSERT_TRUE(WriteStringToFile(dir + "vision_standardize.gguf", scaled.Build()).ok());
}

}  // namespace
}  // namespace gemmad::model
