// ReadCtKvScales: vLLM's kv_cache_scheme rules and the scale tensors' one-line errors.
#include "model/ct_kv_scales.h"

#include <gtest/gtest.h>

#include <map>

#include "tensor/half.h"

namespace gemmad::model {
namespace {

// An in-memory source of named float tensors.
class Tensors : public WeightSource {
 public:
  void Add(const std::string& name, std::vector<int64_t> shape, std::vector<float> values,
           tensor::DType dtype = tensor::DType::kF32) {
    Entry& e = entries_[name];
    e.info.shape = shape;
    e.info.dtype = dtype;
    e.info.dtype_name = std::string(tensor::DTypeName(dtype));
    e.info.origin = "m/model.safetensors";
    e.f32 = std::move(values);
    for (float v : e.f32) e.bf16.push_back(tensor::FloatToBf16(v));
    e.view.data = dtype == tensor::DType::kBF16 ? static_cast<void*>(e.bf16.data()) : static_cast<void*>(e.f32.data());
    e.view.dtype = dtype;
    for (int64_t d : shape) e.view.shape.dims[e.view.shape.rank++] = d;
    names_.push_back(name);
  }
  const std::string& label() const override { return label_; }
  const std::string& config_label() const override { return config_label_; }
  const std::string& config_json() const override { return label_; }
  const GenerationConfig& generation_config() const override { return generation_; }
  const std::vector<std::string>& tensor_names() const override { return names_; }
  const WeightInfo* Info(std::string_view name) const override {
    auto it = entries_.find(std::string(name));
    return it == entries_.end() ? nullptr : &it->second.info;
  }
  Result<tensor::TensorView> View(std::string_view name) const override {
    auto it = entries_.find(std::string(name));
    if (it == entries_.end()) return NotFoundError(std::string(name));
    return it->second.view;
  }
  std::vector<std::string> files() const override { return {}; }
  const TokenizerHints& tokenizer_hints() const override { return hints_; }

 private:
  struct Entry {
    WeightInfo info;
    std::vector<float> f32;
    std::vector<uint16_t> bf16;
    tensor::TensorView view;
  };
  std::string label_ = "m", config_label_ = "m/config.json";
  GenerationConfig generation_;
  TokenizerHints hints_;
  std::vector<std::string> names_;
  std::map<std::string, Entry> entries_;
};

CtArgs Fp8(CtStrategy s) {
  CtArgs a;
  a.is_float = true;
  a.num_bits = 8;
  a.strategy = s;
  return a;
}

std::string Error(const CtArgs& scheme, const Tensors& t) {
  std::set<std::string, std::less<>> consumed;
  auto r = ReadCtKvScales(scheme, t, &consumed);
  return r.ok() ? "" : r.status().ToString();
}

TEST(CtKvScales, ReadsPerTensorAndPerHeadScalesAndConsumesTheirTensors) {
  Tensors t;
  t.Add("model.layers.0.self_attn.k_scale", {1}, {0.5f});
  t.Add("model.layers.0.self_attn.v_scale", {}, {0.25f}, tensor::DType::kBF16);
  t.Add("model.layers.0.self_attn.q_scale", {1}, {2.0f});
  t.Add("model.layers.1.self_attn.q_scale", {1}, {2.0f});  // a query scale alone: read past
  t.Add("model.layers.0.self_attn.q_proj.weight", {2, 2}, {1, 2, 3, 4});
  std::set<std::string, std::less<>> consumed;
  auto r = ReadCtKvScales(Fp8(CtStrategy::kTensor), t, &consumed);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].attention, "model.layers.0.self_attn");
  EXPECT_EQ((*r)[0].k, std::vector<float>{0.5f});
  EXPECT_EQ((*r)[0].v, std::vector<float>{0.25f});
  EXPECT_EQ(consumed.size(), 4u);
  EXPECT_FALSE(consumed.contains("model.layers.0.self_attn.q_proj.weight"));

  Tensors h;
  h.Add("a.self_attn.k_scale", {3, 1, 1}, {0.1f, 0.2f, 0.3f});
  h.Add("a.self_attn.v_scale", {3, 1, 1}, {1.0f, 2.0f, 3.0f});
  auto rh = ReadCtKvScales(Fp8(CtStrategy::kAttnHead), h, &consumed);
  ASSERT_TRUE(rh.ok()) << rh.status().ToString();
  EXPECT_EQ((*rh)[0].k, (std::vector<float>{0.1f, 0.2f, 0.3f}));
  EXPECT_NE(Error(Fp8(CtStrategy::kTensor), h).find("is [3, 1, 1]; kv_cache_scheme"), std::string::npos);
}

// Legacy names (spec §5): kv_scale scales both K and V; k_proj / v_proj output_scale are KV scales
// where the config gives those projections no output activations, and o8 output scales (a mobile
// QAT file's) where it does; a legacy name beside a current one for the same attention is an error.
TEST(CtKvScales, ReadsLegacyNamesAndLeavesO8OutputScales) {
  Tensors t;
  t.Add("model.layers.0.self_attn.kv_scale", {1}, {0.5f});
  t.Add("model.layers.1.self_attn.k_proj.output_scale", {1}, {0.125f});
  t.Add("model.layers.1.self_attn.v_proj.output_scale", {}, {0.0625f}, tensor::DType::kBF16);
  auto plain = ParseCtConfig(R"({"quant_method": "compressed-tensors", "format": "float-quantized",
      "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 8, "type": "float",
      "strategy": "channel", "symmetric": true, "dynamic": false}}},
      "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "symmetric": true,
      "dynamic": false}})");
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  std::set<std::string, std::less<>> consumed;
  auto r = ReadCtKvScales(Fp8(CtStrategy::kTensor), t, &consumed, &*plain);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].attention, "model.layers.0.self_attn");
  EXPECT_EQ((*r)[0].k, std::vector<float>{0.5f});
  EXPECT_EQ((*r)[0].v, std::vector<float>{0.5f});
  EXPECT_EQ((*r)[1].attention, "model.layers.1.self_attn");
  EXPECT_EQ((*r)[1].k, std::vector<float>{0.125f});
  EXPECT_EQ((*r)[1].v, std::vector<float>{0.0625f});
  EXPECT_EQ(consumed.size(), 3u);

  // With o8 output activations on the projections (mobile QAT) their output scales stay theirs.
  auto o8 = ParseCtConfig(R"({"quant_method": "compressed-tensors", "format": "pack-quantized",
      "config_groups": {"g": {"targets": ["Linear"], "weights": {"num_bits": 4, "type": "int",
      "strategy": "channel", "symmetric": true, "dynamic": false}, "output_activations": {"num_bits": 8,
      "type": "int", "strategy": "tensor", "symmetric": true, "dynamic": false}}},
      "kv_cache_scheme": {"num_bits": 8, "type": "float", "strategy": "tensor", "symmetric": true,
      "dynamic": false}})");
  ASSERT_TRUE(o8.ok()) << o8.status().ToString();
  consumed.clear();
  auto r8 = ReadCtKvScales(Fp8(CtStrategy::kTensor), t, &consumed, &*o8);
  ASSERT_TRUE(r8.ok()) << r8.status().ToString();
  ASSERT_EQ(r8->size(), 1u);  // layer 0's kv_scale only
  EXPECT_FALSE(consumed.contains("model.layers.1.self_attn.k_proj.output_scale"));
  consumed.clear();
  auto none = ReadCtKvScales(Fp8(CtStrategy::kTensor), t, &consumed);  // no config: left alone as well
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->size(), 1u);

  t.Add("model.layers.0.self_attn.k_scale", {1}, {0.5f});
  t.Add("model.layers.0.self_attn.v_scale", {1}, {0.5f});
  auto both = ReadCtKvScales(Fp8(CtStrategy::kTensor), t, &consumed, &*plain);
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().ToString().find("attention 'model.layers.0.self_attn' has both k_scale / v_scale and a "
                                          "legacy kv_scale"),
            std::string::npos)
      << both.status().ToString();
}

TEST(CtKvScales, RefusesWhatVllmRefuses) {
  Tensors t;
  CtArgs int8 = Fp8(CtStrategy::kTensor);
  int8.is_float = false;
  EXPECT_NE(Error(int8, t).find("only num_bits=8 and type=float"), std::string::npos) << Error(int8, t);
  CtArgs fp4 = Fp8(CtStrategy::kTensor);
  fp4.num_bits = 4;
  EXPECT_NE(Error(fp4, t).find("only num_bits=8 and type=float"), std::string::npos);
  CtArgs dynamic = Fp8(CtStrategy::kToken);
  dynamic.dynamic = true;
  EXPECT_NE(Error(dynamic, t).find("only static symmetric scales"), std::string::npos);
  CtArgs asym = Fp8(CtStrategy::kTensor);
  asym.symmetric = false;
  EXPECT_NE(Error(asym, t).find("only static symmetric scales"), std::string::npos);
  EXPECT_NE(Error(Fp8(CtStrategy::kChannel), t).find("only static symmetric scales"), std::string::npos);
  EXPECT_EQ(Error(Fp8(CtStrategy::kTensor), t), "");  // no attention carries scales: the model checks per layer
}

TEST(CtKvScales, MalformedScaleTensorsAreOneLineErrors) {
  const CtArgs scheme = Fp8(CtStrategy::kTensor);
  struct Case {
    std::vector<float> k;
    tensor::DType dtype;
    bool with_v;
    const char* needle;
  };
  const Case cases[] = {
      {{0.0f}, tensor::DType::kF32, true, "holds 0: a KV cache scale must be finite and positive"},
      {{-1.0f}, tensor::DType::kF32, true, "must be finite and positive"},
      {{NAN}, tensor::DType::kF32, true, "must be finite and positive"},
      {{INFINITY}, tensor::DType::kF32, true, "must be finite and positive"},
      {{1.0f}, tensor::DType::kI32, true, "has dtype I32, expected F32, BF16 or F16"},
      {{1.0f}, tensor::DType::kF32, false, "has a k_scale but no v_scale"},
      {{1.0f, 2.0f}, tensor::DType::kF32, true, "is [2]; kv_cache_scheme"},
  };
  for (const Case& c : cases) {
    Tensors t;
    t.Add("x.self_attn.k_scale", {static_cast<int64_t>(c.k.size())}, c.k, c.dtype);
    if (c.with_v) t.Add("x.self_attn.v_scale", {1}, {1.0f});
    const std::string e = Error(scheme, t);
    EXPECT_NE(e.find(c.needle), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

}  // namespace
}  // namespace gemmad::model
