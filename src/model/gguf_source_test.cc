// The GGUF weight source on crafted files: config.json from gemma3 metadata (llama.cpp's defaults
// for what a GGUF does not store), HF names and PyTorch shapes, the Gemma 3 norm shift undone,
// Gemma 4's rope_freqs read into the config, and one-line errors for what it cannot serve.
#include "model/gguf_source.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <nlohmann/json.hpp>

#include "base/files.h"
#include "io/gguf_test_writer.h"
#include "base/rng.h"
#include "kernels/reference/quant.h"
#include "model/gguf_names.h"
#include "tensor/ggml_quants.h"
#include "tensor/ggml_types.h"
#include "tensor/half.h"

namespace gemmad::model {
namespace {

using io::testing::F32s;
using io::testing::GgufTestWriter;

std::string Zeros(size_t n) { return std::string(n * 4, '\0'); }

// A gemma3 file with 7 layers of H = 4 (one head of d = 4, F = 8, vocab 3), all F32.
GgufTestWriter Gemma3Writer(int layers = 7) {
  GgufTestWriter w;
  w.AddString("general.architecture", "gemma3");
  w.AddU32("gemma3.block_count", layers);
  w.AddU32("gemma3.embedding_length", 4);
  w.AddU32("gemma3.feed_forward_length", 8);
  w.AddU32("gemma3.attention.head_count", 1);
  w.AddU32("gemma3.attention.head_count_kv", 1);
  w.AddU32("gemma3.attention.key_length", 4);
  w.AddU32("gemma3.attention.value_length", 4);
  w.AddU32("gemma3.attention.sliding_window", 16);
  w.AddU32("tokenizer.ggml.eos_token_id", 1);
  w.AddTensor({"token_embd.weight", {4, 3}, 0, Zeros(12)});
  w.AddTensor({"output_norm.weight", {4}, 0, F32s({1.5f, 1.0f, 0.25f, 2.0f})});
  for (int l = 0; l < layers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    for (const char* n : {"attn_norm", "post_attention_norm", "ffn_norm", "post_ffw_norm"}) {
      w.AddTensor({p + n + ".weight", {4}, 0, Zeros(4)});
    }
    for (const char* n : {"attn_q_norm", "attn_k_norm"}) w.AddTensor({p + n + ".weight", {4}, 0, Zeros(4)});
    for (const char* n : {"attn_q", "attn_k", "attn_v", "attn_output"}) w.AddTensor({p + n + ".weight", {4, 4}, 0, Zeros(16)});
    w.AddTensor({p + "ffn_gate.weight", {4, 8}, 0, Zeros(32)});
    w.AddTensor({p + "ffn_up.weight", {4, 8}, 0, Zeros(32)});
    w.AddTensor({p + "ffn_down.weight", {8, 4}, 0, Zeros(32)});
  }
  return w;
}

class GgufSourceTest : public ::testing::Test {
 protected:
  std::string Save(const GgufTestWriter& w) {
    const std::string path = ::testing::TempDir() + "/gguf_source_" + std::to_string(getpid()) + "_" +
                             ::testing::UnitTest::GetInstance()->current_test_info()->name() + ".gguf";
    EXPECT_TRUE(WriteStringToFile(path, w.Build()).ok());
    return path;
  }
};

TEST_F(GgufSourceTest, Gemma3ConfigNamesShapesAndNormShift) {
  auto s = OpenGgufSource(Save(Gemma3Writer()));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const auto c = nlohmann::json::parse((*s)->config_json());
  EXPECT_EQ(c["model_type"], "gemma3_text");
  EXPECT_EQ(c["query_pre_attn_scalar"], 4);  // head_dim, as llama.cpp
  EXPECT_EQ(c["vocab_size"], 3);
  EXPECT_EQ(c["sliding_window"], 16);
  EXPECT_TRUE(c["final_logit_softcapping"].is_null());
  EXPECT_EQ(c["rope_parameters"]["sliding_attention"]["rope_theta"], 10000.0);  // freq_base_swa absent
  EXPECT_EQ(c["rope_parameters"]["full_attention"]["rope_theta"], 1000000.0);
  std::vector<std::string> types;
  for (const auto& t : c["layer_types"]) types.push_back(t);
  EXPECT_EQ(types[4], "sliding_attention");
  EXPECT_EQ(types[5], "full_attention");  // period 6: every sixth layer global
  EXPECT_EQ(types[6], "sliding_attention");
  EXPECT_EQ((*s)->generation_config().eos_token_ids, (std::vector<int64_t>{1, 106}));

  const WeightInfo* gate = (*s)->Info("model.layers.3.mlp.gate_proj.weight");
  ASSERT_NE(gate, nullptr);
  EXPECT_EQ(gate->shape, (std::vector<int64_t>{8, 4}));  // ne {4, 8} reversed
  EXPECT_EQ(gate->dtype_name, "F32");
  auto norm = (*s)->View("model.norm.weight");
  ASSERT_TRUE(norm.ok());
  const float* v = norm->As<const float>();
  EXPECT_EQ(v[0], 0.5f);  // stored 1 + w
  EXPECT_EQ(v[2], -0.75f);
  EXPECT_EQ((*s)->tokenizer_hints().gguf_file, (*s)->label());
  EXPECT_EQ((*s)->Info("lm_head.weight"), nullptr);  // tied
}

TEST_F(GgufSourceTest, RefusesOtherArchitecturesAndUnknownTensors) {
  GgufTestWriter llama;
  llama.AddString("general.architecture", "llama");
  auto a = OpenGgufSource(Save(llama));
  ASSERT_FALSE(a.ok());
  EXPECT_NE(a.status().message().find("'llama' is not supported"), std::string::npos) << a.status().message();

  GgufTestWriter w = Gemma3Writer();
  w.AddTensor({"blk.0.ffn_gate_inp.weight", {4, 2}, 0, Zeros(8)});  // a gemma4 tensor in a gemma3 file
  auto b = OpenGgufSource(Save(w));
  ASSERT_FALSE(b.ok());
  EXPECT_NE(b.status().message().find("unexpected tensor 'blk.0.ffn_gate_inp.weight'"), std::string::npos)
      << b.status().message();

  GgufTestWriter missing;
  missing.AddString("general.architecture", "gemma3");
  auto c = OpenGgufSource(Save(missing));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("gemma3.block_count"), std::string::npos) << c.status().message();
}

TEST_F(GgufSourceTest, Gemma4RopeFreqsMustBeOnesThenHuge) {
  GgufTestWriter w;
  w.AddString("general.architecture", "gemma4");
  w.AddU32("gemma4.block_count", 1);
  w.AddU32("gemma4.embedding_length", 4);
  w.AddU32("gemma4.feed_forward_length", 8);
  w.AddU32("gemma4.attention.head_count", 1);
  w.AddU32("gemma4.attention.head_count_kv", 1);
  w.AddU32("gemma4.attention.key_length", 8);
  w.AddTensor({"token_embd.weight", {4, 3}, 0, Zeros(12)});
  w.AddTensor({"rope_freqs.weight", {4}, 0, F32s({1.0f, 1e30f, 1e30f, 1e30f})});
  auto ok = OpenGgufSource(Save(w));
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  const auto c = nlohmann::json::parse((*ok)->config_json());
  EXPECT_EQ(c["rope_parameters"]["full_attention"]["partial_rotary_factor"], 0.25);
  EXPECT_EQ(c["final_logit_softcapping"], 30.0);

  GgufTestWriter odd;
  odd.AddString("general.architecture", "gemma4");
  odd.AddU32("gemma4.block_count", 1);
  odd.AddU32("gemma4.embedding_length", 4);
  odd.AddU32("gemma4.feed_forward_length", 8);
  odd.AddU32("gemma4.attention.head_count", 1);
  odd.AddU32("gemma4.attention.head_count_kv", 1);
  odd.AddU32("gemma4.attention.key_length", 8);
  odd.AddTensor({"token_embd.weight", {4, 3}, 0, Zeros(12)});
  odd.AddTensor({"rope_freqs.weight", {4}, 0, F32s({1.0f, 0.5f, 1e30f, 1e30f})});
  auto r = OpenGgufSource(Save(odd));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("rope_freqs.weight[1]"), std::string::npos) << r.status().message();
}

// Q4_0 matrices become gemmad's kQ4_0 (rows paired) holding the same values, odd row counts too.
TEST_F(GgufSourceTest, Q4_0MatricesAreRepackedLosslessly) {
  // A gemma3 file with H = 32 holding one Q4_0 matrix of 3 rows (the source does not check completeness).
  GgufTestWriter q;
  q.AddString("general.architecture", "gemma3");
  q.AddU32("gemma3.block_count", 1);
  q.AddU32("gemma3.embedding_length", 32);
  q.AddU32("gemma3.feed_forward_length", 3);
  q.AddU32("gemma3.attention.head_count", 1);
  q.AddU32("gemma3.attention.head_count_kv", 1);
  q.AddU32("gemma3.attention.key_length", 32);
  q.AddTensor({"token_embd.weight", {32, 5}, 0, Zeros(160)});
  std::string blocks;
  Rng rng(5);
  for (int r = 0; r < 3; ++r) {
    const uint16_t d = tensor::FloatToF16(0.01f * static_cast<float>(r + 1));
    blocks.append(reinterpret_cast<const char*>(&d), 2);
    for (int j = 0; j < 16; ++j) blocks.push_back(static_cast<char>(rng.Next()));
  }
  q.AddTensor({"blk.0.ffn_gate.weight", {32, 3}, tensor::kGgmlQ4_0, blocks});
  auto s = OpenGgufSource(Save(q));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto v = (*s)->View("model.layers.0.mlp.gate_proj.weight");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->dtype, tensor::DType::kQ4_0);
  EXPECT_EQ((*s)->Info("model.layers.0.mlp.gate_proj.weight")->dtype_name, "Q4_0");
  // Repacked into the source's huge-page arena, each matrix on its own pages.
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v->data) % 4096, 0u);
  for (int r = 0; r < 3; ++r) {
    std::vector<float> want(32);
    ASSERT_TRUE(tensor::DequantizeGgmlRow(tensor::kGgmlQ4_0, reinterpret_cast<const uint8_t*>(blocks.data()) + 18 * r,
                                          32, want.data()).ok());
    const std::vector<double> got = kernels::reference::DequantizedRow(v->As<const uint8_t>(), tensor::DType::kQ4_0,
                                                                       3, 32, r);
    for (int i = 0; i < 32; ++i) ASSERT_EQ(got[i], want[i]) << "row " << r << " i " << i;
  }
}

// A gemma4 file of `layers` layers of hidden size H (one head) with its 3-token embedding: enough
// for the source to open, with expert stacks added after it.
GgufTestWriter Gemma4StackWriter(int layers, int H) {
  GgufTestWriter w;
  w.AddString("general.architecture", "gemma4");
  w.AddU32("gemma4.block_count", layers);
  w.AddU32("gemma4.embedding_length", H);
  w.AddU32("gemma4.feed_forward_length", 8);
  w.AddU32("gemma4.attention.head_count", 1);
  w.AddU32("gemma4.attention.head_count_kv", 1);
  w.AddU32("gemma4.attention.key_length", 8);
  w.AddTensor({"token_embd.weight", {static_cast<uint64_t>(H), 3}, 0, Zeros(3 * H)});
  return w;
}

// `rows` ggml blocks of 32 weights, row r's f16 scale `step`·(r + 1) and random quants: Q4_0
// (16 nibble bytes) or Q8_0 (32 int8).
std::string RandomBlocks(Rng& rng, int rows, uint32_t type, float step) {
  std::string b;
  for (int r = 0; r < rows; ++r) {
    const uint16_t d = tensor::FloatToF16(step * static_cast<float>(r + 1));
    b.append(reinterpret_cast<const char*>(&d), 2);
    for (int j = 0; j < (type == tensor::kGgmlQ4_0 ? 16 : 32); ++j) b.push_back(static_cast<char>(rng.Next()));
  }
  return b;
}

// A Q4_0 expert stack [E, F, H] with F even becomes a kQ4_0 stack (each expert's rows paired, as
// --quantization int4 lays a stack out) holding the same values; with F odd (pairs would cross two
// experts) it is dequantized to f32 instead.
TEST_F(GgufSourceTest, Q4_0ExpertStacksAreRepackedWhenTheirRowsPair) {
  for (const int F : {4, 3}) {
    SCOPED_TRACE(F);
    const int E = 3, H = 32;
    GgufTestWriter w = Gemma4StackWriter(1, H);
    Rng rng(7);
    const std::string blocks = RandomBlocks(rng, E * F, tensor::kGgmlQ4_0, 0.01f);
    w.AddTensor({"blk.0.ffn_gate_up_exps.weight", {static_cast<uint64_t>(H), static_cast<uint64_t>(F),
                                                   static_cast<uint64_t>(E)},
                 tensor::kGgmlQ4_0, blocks});
    auto s = OpenGgufSource(Save(w));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    auto v = (*s)->View("model.layers.0.experts.gate_up_proj");
    ASSERT_TRUE(v.ok());
    EXPECT_EQ(v->shape.ToString(), tensor::Shape({E, F, H}).ToString());
    EXPECT_EQ(v->dtype, F % 2 == 0 ? tensor::DType::kQ4_0 : tensor::DType::kF32);
    for (int r = 0; r < E * F; ++r) {
      std::vector<float> want(H);
      ASSERT_TRUE(tensor::DequantizeGgmlRow(tensor::kGgmlQ4_0, reinterpret_cast<const uint8_t*>(blocks.data()) + 18 * r,
                                            H, want.data()).ok());
      for (int i = 0; i < H; ++i) {
        // Expert e's row f: its own row of the stack (pairs never cross experts when F is even).
        const double got = v->dtype == tensor::DType::kQ4_0
                               ? kernels::reference::DequantizedRow(v->As<const uint8_t>(), tensor::DType::kQ4_0,
                                                                    E * F, H, r)[i]
                               : v->As<const float>()[r * H + i];
        ASSERT_EQ(got, want[i]) << "row " << r << " i " << i;
      }
    }
  }
}

// Expert stacks in a block type the kernels read (Q8_0 here) stay in the file's bytes, one matrix
// per expert; the split form (gate and up stacks) becomes one gate_up stack, per expert the gate
// rows then the up rows: in the halves' own type when they share it, else in F32 (gate Q8_0 with
// up Q4_0, which is repacked on its own). Every row holds the file's values.
TEST_F(GgufSourceTest, BlockExpertStacksStayAsStoredAndSplitHalvesCombine) {
  const int E = 3, F = 4, H = 32;
  Rng rng(9);
  const std::vector<uint64_t> ne = {static_cast<uint64_t>(H), static_cast<uint64_t>(F), static_cast<uint64_t>(E)};
  auto q8 = [&] { return RandomBlocks(rng, E * F, tensor::kGgmlQ8_0, 0.002f); };
  const std::string stack = q8(), gate1 = q8(), up1 = q8(), gate2 = q8(),
                    up2 = RandomBlocks(rng, E * F, tensor::kGgmlQ4_0, 0.01f);
  GgufTestWriter w = Gemma4StackWriter(3, H);
  w.AddTensor({"blk.0.ffn_gate_up_exps.weight", ne, tensor::kGgmlQ8_0, stack});
  w.AddTensor({"blk.1.ffn_gate_exps.weight", ne, tensor::kGgmlQ8_0, gate1});
  w.AddTensor({"blk.1.ffn_up_exps.weight", ne, tensor::kGgmlQ8_0, up1});
  w.AddTensor({"blk.2.ffn_gate_exps.weight", ne, tensor::kGgmlQ8_0, gate2});
  w.AddTensor({"blk.2.ffn_up_exps.weight", ne, tensor::kGgmlQ4_0, up2});
  auto s = OpenGgufSource(Save(w));
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  // Row r of a tensor written above, dequantized by gguf-py's rules.
  auto file_row = [&](const std::string& blocks, uint32_t type, int r) {
    const size_t bytes = type == tensor::kGgmlQ8_0 ? 34 : 18;
    std::vector<float> v(H);
    EXPECT_TRUE(tensor::DequantizeGgmlRow(type, reinterpret_cast<const uint8_t*>(blocks.data()) + bytes * r, H, v.data()).ok());
    return v;
  };
  // Row r of a Q8_0 view, the same way.
  auto view_row = [&](const tensor::TensorView& v, int r) {
    std::vector<float> out(H);
    EXPECT_TRUE(tensor::DequantizeGgmlRow(tensor::kGgmlQ8_0, v.As<const uint8_t>() + 34 * r, H, out.data()).ok());
    return out;
  };

  auto v0 = (*s)->View("model.layers.0.experts.gate_up_proj");
  ASSERT_TRUE(v0.ok());
  EXPECT_EQ(v0->dtype, tensor::DType::kGgmlQ8_0);
  EXPECT_EQ(v0->shape.ToString(), tensor::Shape({E, F, H}).ToString());
  for (int r = 0; r < E * F; ++r) ASSERT_EQ(view_row(*v0, r), file_row(stack, tensor::kGgmlQ8_0, r)) << "row " << r;

  for (int layer : {1, 2}) {
    SCOPED_TRACE(layer);
    const std::string p = "model.layers." + std::to_string(layer) + ".experts.";
    EXPECT_FALSE((*s)->View(p + "gate_proj").ok());
    EXPECT_FALSE((*s)->View(p + "up_proj").ok());
    auto v = (*s)->View(p + "gate_up_proj");
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(v->shape.ToString(), tensor::Shape({E, 2 * F, H}).ToString());
    EXPECT_EQ(v->dtype, layer == 1 ? tensor::DType::kGgmlQ8_0 : tensor::DType::kF32);
    for (int x = 0; x < E; ++x) {
      for (int j = 0; j < 2 * F; ++j) {
        const int src = x * F + j % F;
        const std::vector<float> want =
            j < F ? file_row(layer == 1 ? gate1 : gate2, tensor::kGgmlQ8_0, src)
                  : file_row(layer == 1 ? up1 : up2, layer == 1 ? tensor::kGgmlQ8_0 : tensor::kGgmlQ4_0, src);
        const int row = x * 2 * F + j;
        const std::vector<float> got =
            layer == 1 ? view_row(*v, row) : std::vector<float>(v->As<const float>() + row * H, v->As<const float>() + (row + 1) * H);
        ASSERT_EQ(got, want) << "expert " << x << " row " << j;
      }
    }
  }
}

// A split set (spec §1.8): opened from the first shard, the tensors of every shard found; a later
// shard named instead, or a missing one, is a clear error.
TEST_F(GgufSourceTest, SplitFilesOpenFromTheFirstShard) {
  auto split_keys = [](GgufTestWriter& w, uint16_t no, uint16_t count, std::optional<int32_t> total) {
    std::string p;
    io::testing::PutRaw<uint16_t>(p, no);
    w.AddRaw("split.no", 2, p);
    p.clear();
    io::testing::PutRaw<uint16_t>(p, count);
    w.AddRaw("split.count", 2, p);
    if (total) {
      p.clear();
      io::testing::PutRaw<int32_t>(p, *total);
      w.AddRaw("split.tensors.count", 5, p);
    }
  };
  // All of a 2-layer gemma3 model's tensors, split: globals and layer 0 in shard 1, layer 1 in shard 2.
  GgufTestWriter first = Gemma3Writer(1);  // metadata + globals + layer 0
  GgufTestWriter second;
  for (const char* n : {"attn_norm", "post_attention_norm", "ffn_norm", "post_ffw_norm", "attn_q_norm", "attn_k_norm"}) {
    second.AddTensor({std::string("blk.1.") + n + ".weight", {4}, 0, Zeros(4)});
  }
  for (const char* n : {"attn_q", "attn_k", "attn_v", "attn_output"}) {
    second.AddTensor({std::string("blk.1.") + n + ".weight", {4, 4}, 0, Zeros(16)});
  }
  second.AddTensor({"blk.1.ffn_gate.weight", {4, 8}, 0, Zeros(32)});
  second.AddTensor({"blk.1.ffn_up.weight", {4, 8}, 0, Zeros(32)});
  second.AddTensor({"blk.1.ffn_down.weight", {8, 4}, 0, Zeros(32)});
  split_keys(first, 0, 2, 15 + 13);
  split_keys(second, 1, 2, std::nullopt);
  const std::string dir = ::testing::TempDir() + "/gguf_split_" + std::to_string(getpid());
  ASSERT_EQ(std::system(("rm -rf " + dir + " && mkdir -p " + dir).c_str()), 0);
  // The metadata says block_count 1 and the shards hold two layers: the source presents every
  // tensor; matching them against the config is the checkpoint validation's business.
  ASSERT_TRUE(WriteStringToFile(dir + "/m-00001-of-00002.gguf", first.Build()).ok());
  ASSERT_TRUE(WriteStringToFile(dir + "/m-00002-of-00002.gguf", second.Build()).ok());
  auto s = OpenGgufSource(dir + "/m-00001-of-00002.gguf");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ((*s)->files().size(), 2u);
  ASSERT_NE((*s)->Info("model.layers.1.mlp.down_proj.weight"), nullptr);
  EXPECT_EQ((*s)->Info("model.layers.1.mlp.down_proj.weight")->origin, dir + "/m-00002-of-00002.gguf");

  auto later = OpenGgufSource(dir + "/m-00002-of-00002.gguf");
  ASSERT_FALSE(later.ok());
  EXPECT_NE(later.status().message().find("give the first shard"), std::string::npos) << later.status().message();
  ASSERT_EQ(std::remove((dir + "/m-00002-of-00002.gguf").c_str()), 0);
  auto missing = OpenGgufSource(dir + "/m-00001-of-00002.gguf");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("m-00002-of-00002.gguf"), std::string::npos) << missing.status().message();
}

TEST(GgufNames, MapsBothArchitectures) {
  EXPECT_EQ(MapGgufTensorName(GgufArch::kGemma3, "blk.12.ffn_norm.weight")->hf_name,
            "model.layers.12.pre_feedforward_layernorm.weight");
  EXPECT_TRUE(MapGgufTensorName(GgufArch::kGemma3, "blk.12.ffn_norm.weight")->subtract_one);
  EXPECT_FALSE(MapGgufTensorName(GgufArch::kGemma3, "blk.1.attn_q.weight")->subtract_one);
  EXPECT_FALSE(MapGgufTensorName(GgufArch::kGemma4, "blk.0.attn_norm.weight")->subtract_one);
  EXPECT_EQ(MapGgufTensorName(GgufArch::kGemma4, "blk.3.ffn_down_exps.scale")->hf_name,
            "model.layers.3.router.per_expert_scale");
  EXPECT_EQ(MapGgufTensorName(GgufArch::kGemma4, "per_layer_proj_norm.weight")->hf_name,
            "model.per_layer_projection_norm.weight");
  EXPECT_FALSE(MapGgufTensorName(GgufArch::kGemma3, "per_layer_token_embd.weight"));
  EXPECT_FALSE(MapGgufTensorName(GgufArch::kGemma4, "blk.01.attn_q.weight"));
  EXPECT_FALSE(MapGgufTensorName(GgufArch::kGemma4, "blk.x.attn_q.weight"));
  EXPECT_FALSE(MapGgufTensorName(GgufArch::kGemma4, "blk.1.nonsense.weight"));
}

}  // namespace
}  // namespace gemmad::model
