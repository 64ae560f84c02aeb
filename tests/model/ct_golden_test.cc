// compressed-tensors checkpoints written by the library itself from the reference models
// (scripts/golden/make_ct_goldens.py -> tests/golden/ct/): t1_w4a16 (int4 group 32, as Google's
// *-qat-w4a16-ct), t2_w4a16 (int4 per channel, MoE, rows of 48 that fall back to dequantized
// weights) and t1_w2a16 (int2 group 32, in the same int4 blocks). Through gemmad's weight source:
// - dequantized to the reference weights (CtSourceOptions::dequantize_all), the modules equal the
//   library's own decompression bit for bit and the logits equal transformers' fp32 logits of them
//   within the safetensors path's tolerance;
// - read in place by the int4 kernels, what differs is exact fp32 q·s instead of bf16(q·s) and
//   the int8 activation rounding of those kernels, bounded like the GGUF Q4_0 files.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "gemma4_golden.h"
#include "kernels/reference/quant.h"
#include "tensor/half.h"
#include "golden_compare.h"
#include "model/ct_source.h"
#include "model/gemma4/model.h"
#include "model/gemma4/presets.h"
#include "model/gemma4/random_checkpoint.h"
#include "model/open_weight_source.h"
#include "model/safetensors_source.h"
#include "sequence_runner.h"

namespace gemmad::model::gemma4 {
namespace {

using golden::Gemma4Golden;
using testing::SequenceRunner;

constexpr double kLogitTol = 5e-4;  // the safetensors path's bound against transformers (golden_test.cc)

std::string Dir(const std::string& name) { return std::string(GEMMAD_SOURCE_DIR) + "/tests/golden/ct/" + name; }

struct Reference {
  nlohmann::json index;
  std::string bin;
  template <typename T>
  std::vector<T> Get(const std::string& key) const {
    const auto& a = index["arrays"][key];
    std::vector<T> out(a["bytes"].get<size_t>() / sizeof(T));
    std::memcpy(out.data(), bin.data() + a["offset"].get<size_t>(), out.size() * sizeof(T));
    return out;
  }
};

Reference LoadReference(const std::string& name) {
  Reference r;
  std::ifstream jf(Dir(name) + ".logits.json");
  std::stringstream js;
  js << jf.rdbuf();
  r.index = nlohmann::json::parse(js.str());
  std::ifstream bf(Dir(name) + ".logits.bin", std::ios::binary);
  std::stringstream bs;
  bs << bf.rdbuf();
  r.bin = bs.str();
  return r;
}

std::shared_ptr<const WeightSource> OpenOrDie(const std::string& name, bool dequantize_all) {
  auto dir = OpenSafetensorsDir(Dir(name));
  EXPECT_TRUE(dir.ok()) << dir.status().ToString();
  if (!dir.ok()) return nullptr;
  auto qc = FindQuantizationConfig((*dir)->config_json(), (*dir)->config_label());
  EXPECT_TRUE(qc.ok() && qc->has_value());
  auto s = OpenCtSource(std::move(dir).value(), **qc, {.dequantize_all = dequantize_all});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return s.ok() ? std::shared_ptr<const WeightSource>(std::move(s).value()) : nullptr;
}

std::vector<float> Prefill(Model& m, const std::vector<int64_t>& ids,
                           std::optional<tensor::DType> kv_dtype = std::nullopt) {
  SequenceRunner r(m, 16, 8, {}, kv_dtype);
  return r.Step(0, std::vector<int32_t>(ids.begin(), ids.end()), true, nullptr);
}

// The same rows, the first half of the prompt as one step and then one token a step (the decode
// path: every earlier key read back from the cache).
std::vector<float> PrefillThenDecode(Model& m, const std::vector<int64_t>& ids) {
  SequenceRunner r(m, 16, 8, {});
  const size_t half = ids.size() / 2;
  std::vector<float> out = r.Step(0, std::vector<int32_t>(ids.begin(), ids.begin() + half), true, nullptr);
  for (size_t i = half; i < ids.size(); ++i) {
    const std::vector<float> row = r.Step(0, {static_cast<int32_t>(ids[i])}, true, nullptr);
    out.insert(out.end(), row.begin(), row.end());
  }
  return out;
}

class CtGolden : public ::testing::TestWithParam<std::string> {
 protected:
  bool fp8() const { return GetParam().find("_fp8") != std::string::npos; }
  bool kv() const { return GetParam().find("_kv") != std::string::npos; }  // a static FP8 KV cache
  bool mobile() const { return GetParam().ends_with("_mobile"); }
};

TEST_P(CtGolden, DequantizedWeightsEqualTheLibrarysBitForBit) {
  const Reference ref = LoadReference(GetParam());
  auto source = OpenOrDie(GetParam(), /*dequantize_all=*/true);
  ASSERT_TRUE(source);
  for (const auto& module : ref.index["weights"]) {
    if (fp8()) break;  // FP8 rows are kF8R either way (checked below)
    const std::string name = module.get<std::string>();
    SCOPED_TRACE(name);
    const WeightInfo* info = source->Info(name + ".weight");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(source->Info(name + ".weight_packed"), nullptr);  // the packed tensors are not listed
    ASSERT_EQ(info->dtype, tensor::DType::kBF16);
    auto v = source->View(name + ".weight");
    ASSERT_TRUE(v.ok());
    const auto want = ref.Get<uint16_t>("weights." + name);
    ASSERT_EQ(static_cast<size_t>(v->NumElements()), want.size());
    EXPECT_EQ(0, std::memcmp(v->data, want.data(), want.size() * 2));
  }
  // Read in place as int4 blocks: every weight is the exact q·s, within half a bf16 step of the
  // library's bf16(q·s) (the blocks hold the same integers and scales).
  auto native = OpenOrDie(GetParam(), /*dequantize_all=*/false);
  ASSERT_TRUE(native);
  for (const auto& module : ref.index["weights"]) {
    const std::string name = module.get<std::string>();
    SCOPED_TRACE(name);
    auto v = native->View(name + ".weight");
    ASSERT_TRUE(v.ok());
    if (fp8()) {
      ASSERT_EQ(v->dtype, tensor::DType::kF8R);  // FP8: the checkpoint's bytes with a row scale
    } else if (v->dtype != tensor::DType::kQ4_0) {
      continue;  // rows that do not tile into blocks of 32
    }
    const auto want = ref.Get<uint16_t>("weights." + name);
    const int64_t rows = v->shape[0], in = v->shape[1];
    for (int64_t o = 0; o < rows; ++o) {
      for (int64_t i = 0; i < in; ++i) {
        const double got = kernels::reference::Dequantized(v->As<const uint8_t>(), v->dtype, rows, in, o, i);
        const double lib = tensor::Bf16ToFloat(want[static_cast<size_t>(o * in + i)]);
        ASSERT_LE(std::abs(got - lib), std::abs(lib) / 256.0 + 1e-30) << o << "," << i;
        ASSERT_EQ(tensor::FloatToBf16(static_cast<float>(got)), want[static_cast<size_t>(o * in + i)]) << o << "," << i;
      }
    }
  }
}

// Weight-only checkpoints (W4A16).
class CtWeightOnlyGolden : public CtGolden {};

TEST_P(CtWeightOnlyGolden, GivesTransformersLogitsOfItsWeights) {
  const std::string name = GetParam();
  const std::string model_name = name.substr(0, 2);
  auto g = Gemma4Golden::Load(model_name, "f32");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Reference ref = LoadReference(name);
  auto exact_src = OpenOrDie(name, true), native_src = OpenOrDie(name, false);
  ASSERT_TRUE(exact_src && native_src);
  // The int4 blocks: on t1 every matrix but the ignored per_layer_projection; on t2 the attention.
  const WeightInfo* q = native_src->Info("model.layers.0.self_attn.q_proj.weight");
  ASSERT_NE(q, nullptr);
  EXPECT_EQ(q->dtype, tensor::DType::kQ4_0);
  // The reference runs in fp32 on the decompressed weights: so do these (f32 KV and embedding scale;
  // a bf16 checkpoint otherwise computes with a bf16 KV cache).
  const ModelOptions f32{.compute_dtype = tensor::DType::kF32};
  auto exact = Model::Load(exact_src, f32), native = Model::Load(native_src, f32);
  ASSERT_TRUE(exact.ok()) << exact.status().ToString();
  ASSERT_TRUE(native.ok()) << native.status().ToString();
  // Also through the path the CLI takes (config.json decides, no option).
  auto opened = OpenWeightSource(Dir(name));
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  EXPECT_EQ((*opened)->Info("model.layers.0.self_attn.q_proj.weight")->dtype, tensor::DType::kQ4_0);
  const int64_t V = g->vocab_size();
  for (const auto& p : g->prompts()) {
    SCOPED_TRACE(p.name);
    const auto want = ref.Get<float>(p.name + ".prefill_logits");
    const int64_t T = static_cast<int64_t>(p.token_ids.size());
    const std::vector<float> got = Prefill(**exact, p.token_ids), fast = Prefill(**native, p.token_ids);
    ASSERT_EQ(got.size(), want.size());
    const auto s = testing::Compare(got.data(), want.data(), T, V);
    // int2 moves the logits far (mean abs 5.4 from the unquantized model's): the same fp32 rounding
    // is larger in absolute terms there (measured 1.2e-4 to 5.7e-4).
    const bool int2 = name.ends_with("_w2a16");
    EXPECT_LE(s.max_abs, int2 ? 2 * kLogitTol : kLogitTol);
    auto f32 = g->Array(p.name + ".prefill_logits");
    ASSERT_TRUE(f32.ok());
    const auto lossy = testing::Compare(got.data(), f32->values.data(), T, V);
    EXPECT_GT(lossy.mean_abs, 10 * kLogitTol);  // the quantized weights were not read as the originals
    const auto [kl, top1] = testing::MeanKlAndTop1(want.data(), fast.data(), T, V);
    std::printf("[ct] %s %s: dequantized vs transformers max abs %.2e; int4 kernels vs transformers mean KL %.4f "
                "top-1 %.2f; vs the unquantized model mean abs %.3f\n",
                name.c_str(), p.name.c_str(), s.max_abs, kl, top1, lossy.mean_abs);
    // What the int4 kernels add is their int8 activation rounding (the weights are the library's to
    // half a bf16 step, checked above): measured mean KL 0.039-0.048 on T1 (top-1 0.88-0.89) and
    // 0.042-0.066 on T2 (0.54-0.58), the size of --quantization int8's whole effect on T1 (0.042,
    // quantization_accuracy_test.cc). Bounds about 2x that; a wrong block or scale gives KL > 1.
    // int2 (t1_w2a16, in the same Q4_0 blocks): 0.021-0.157, top-1 0.88-0.89, the int8 rounding on
    // logits that int2 weights made 5x larger; bound 0.3.
    const bool t1 = model_name == "t1";
    EXPECT_LE(kl, int2 ? 0.3 : t1 ? 0.1 : 0.2);
    EXPECT_GE(top1, t1 ? 0.7 : 0.3);
  }
}

// FP8_DYNAMIC: the reference is vLLM's numerics in fp32 (make_ct_goldens.py): exact e4m3 · s
// weights and every quantized Linear's input quantized per token to E4M3, which is what the kF8R
// kernels compute, up to the order of fp32 sums (an activation that lands on an E4M3 rounding
// boundary can move by one step).
// Mobile QAT (static int8 a8/o8 around int2/int4/int8 weights): the reference is vLLM's WNA8O8
// numerics in fp32, the library's dequantized weights with every quantized Linear's input and
// output fake-quantized to int8 with the checkpoint's static scales; gemmad runs those Linears on
// the same weights (int2/int4 per channel read in place as tables of exactly the library's bf16
// values, int8 dequantized) with the same fake quantization (model/gemma4/act_quant_linear.cc).
class CtQuantizedActivationsGolden : public CtGolden {};

TEST_P(CtQuantizedActivationsGolden, GivesVllmsNumerics) {
  const std::string name = GetParam();
  const std::string model_name = name.substr(0, 2);
  auto g = Gemma4Golden::Load(model_name, "f32");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Reference ref = LoadReference(name);
  auto opened = OpenWeightSource(Dir(name));  // the CLI's path: config.json decides
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  std::shared_ptr<const WeightSource> src(std::move(opened).value());
  // Mobile: the int4 and int2 per-channel Linears are read in place as code tables of their
  // reference values (tensor/lut_rows.h), the int8 ones as int8 rows (tensor/i8b_rows.h).
  EXPECT_EQ(src->Info("model.layers.0.self_attn.q_proj.weight")->dtype,
            fp8() ? tensor::DType::kF8R : mobile() ? tensor::DType::kLut4R : tensor::DType::kBF16);
  if (mobile()) {
    EXPECT_EQ(src->Info("model.layers.0.mlp.down_proj.weight")->dtype, tensor::DType::kLut4R);
    EXPECT_EQ(src->Info("model.layers.6.mlp.down_proj.weight")->dtype, tensor::DType::kLut2R);
    EXPECT_EQ(src->Info("model.layers.6.per_layer_input_gate.weight")->dtype, tensor::DType::kI8BR);
  }
  EXPECT_EQ(src->Info("model.layers.0.self_attn.q_proj.weight_scale"), nullptr);
  EXPECT_EQ(src->Info("model.layers.0.self_attn.q_proj.input_scale"), nullptr);
  if (mobile()) {
    EXPECT_GT(src->activation_quant().size(), 20u);
  }
  EXPECT_EQ(src->kv_cache_scales().has_value(), kv());
  if (name.ends_with("_experts")) {  // per-expert FP8 matrices presented as the MoE stacks, read as stored
    const WeightInfo* gu = src->Info("model.layers.0.experts.gate_up_proj");
    ASSERT_NE(gu, nullptr);
    EXPECT_EQ(gu->dtype, tensor::DType::kF8R);
    EXPECT_EQ(gu->shape.size(), 3u);
    EXPECT_EQ(src->Info("model.layers.0.experts.0.gate_proj.weight"), nullptr);
  }
  EXPECT_EQ(src->Info("model.layers.0.self_attn.k_scale"), nullptr);  // read as the KV scales, not listed
  const ModelOptions f32{.compute_dtype = tensor::DType::kF32};
  auto model = Model::Load(src, f32);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const int64_t V = g->vocab_size();
  for (const auto& p : g->prompts()) {
    SCOPED_TRACE(p.name);
    const auto want = ref.Get<float>(p.name + ".prefill_logits");
    const int64_t T = static_cast<int64_t>(p.token_ids.size());
    const std::vector<float> got = Prefill(**model, p.token_ids);
    ASSERT_EQ(got.size(), want.size());
    const auto s = testing::Compare(got.data(), want.data(), T, V);
    auto f32_golden = g->Array(p.name + ".prefill_logits");
    ASSERT_TRUE(f32_golden.ok());
    const auto lossy = testing::Compare(got.data(), f32_golden->values.data(), T, V);
    const auto [kl, top1] = testing::MeanKlAndTop1(want.data(), got.data(), T, V);
    std::printf("[ct] %s %s: gemmad vs vLLM's numerics max abs %.2e mean abs %.2e, mean KL %.2e top-1 %.2f; vs "
                "the unquantized model mean abs %.3f\n",
                name.c_str(), p.name.c_str(), s.max_abs, s.mean_abs, kl, top1, lossy.mean_abs);
    EXPECT_GT(lossy.mean_abs, 10 * s.mean_abs);  // far closer to the FP8 reference than to the originals
    EXPECT_LE(kl, 1e-4);  // measured 5.5e-14 to 1.9e-6 (T1: a few activations flip an E4M3 step)
    if (!kv()) continue;
    // A static FP8 KV cache: auto chose it (vLLM's rule for a kv_cache_scheme), and it is what
    // brings gemmad to the reference: the same weights with an f32 cache are much farther off.
    EXPECT_EQ((*model)->default_kv_dtype(), tensor::DType::kF8E4M3);
    const std::vector<float> f32_cache = Prefill(**model, p.token_ids, tensor::DType::kF32);
    const auto no_kv = testing::Compare(f32_cache.data(), want.data(), T, V);
    const std::vector<float> stepped = PrefillThenDecode(**model, p.token_ids);
    const auto step = testing::Compare(stepped.data(), want.data(), T, V);
    std::printf("[ct] %s %s: f32 KV cache vs the FP8-KV reference mean abs %.2e; prefill then decode %.2e\n",
                name.c_str(), p.name.c_str(), no_kv.mean_abs, step.mean_abs);
    EXPECT_GT(no_kv.mean_abs, 10 * s.mean_abs);
    EXPECT_LE(step.mean_abs, 2 * s.mean_abs + 1e-6);
  }
}

// The mobile layout's weight-only tables (int2 per-row embeddings, int4 per-row PLE table), written by
// make-test-model on T3 (whose PLE rows, 8 layers x 16, tile into blocks of 32): read in place as int4
// blocks, every element within half a bf16 step of the library's bf16(q·s) (the dequantized path's
// value) and rounding to it; the model computes in bf16 (its norms' dtype), and its logits stay close
// to the dequantized tables' (the tied LM head's int8 activation rounding).
TEST(CtMobileTables, AreReadInPlaceAsInt4Blocks) {
  const std::string dir = ::testing::TempDir() + "/gemmad_ct_mobile_t3_" + std::to_string(::getpid());
  auto preset = FindPreset("t3");
  ASSERT_TRUE(preset.ok());
  RandomCheckpointOptions opt;
  opt.seed = 5;
  opt.ct_format = CtWeightFormat::kMobile;
  ASSERT_TRUE(WriteRandomCheckpoint(dir, preset->config, opt).ok());
  const auto open = [&](bool dequantize_all) -> std::shared_ptr<const WeightSource> {
    auto d = OpenSafetensorsDir(dir);
    EXPECT_TRUE(d.ok()) << d.status().ToString();
    auto qc = FindQuantizationConfig((*d)->config_json(), (*d)->config_label());
    auto s = OpenCtSource(std::move(d).value(), **qc, {.dequantize_all = dequantize_all});
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return std::shared_ptr<const WeightSource>(std::move(s).value());
  };
  const auto native = open(false), exact = open(true);
  for (const char* name : {"model.embed_tokens.weight", "model.embed_tokens_per_layer.weight"}) {
    SCOPED_TRACE(name);
    auto q = native->View(name), b = exact->View(name);
    ASSERT_TRUE(q.ok() && b.ok());
    ASSERT_EQ(q->dtype, tensor::DType::kQ4_0);
    ASSERT_EQ(b->dtype, tensor::DType::kBF16);
    const int64_t rows = q->shape[0], in = q->shape[1];
    for (int64_t o = 0; o < rows; o += 7) {
      for (int64_t i = 0; i < in; ++i) {
        const double got = kernels::reference::Dequantized(q->As<const uint8_t>(), q->dtype, rows, in, o, i);
        const uint16_t want = b->As<const uint16_t>()[o * in + i];
        ASSERT_EQ(tensor::FloatToBf16(static_cast<float>(got)), want) << o << "," << i;
      }
    }
  }
  auto fast = Model::Load(native, {}), ref = Model::Load(exact, {});
  ASSERT_TRUE(fast.ok() && ref.ok());
  EXPECT_EQ((*fast)->compute_dtype(), tensor::DType::kBF16);
  const std::vector<int64_t> ids = {2, 17, 300, 45, 511, 9, 128, 77, 3, 260};
  const std::vector<float> a = Prefill(**fast, ids), r = Prefill(**ref, ids);
  const int64_t V = (*fast)->config().vocab_size, T = static_cast<int64_t>(ids.size());
  const auto [kl, top1] = testing::MeanKlAndTop1(r.data(), a.data(), T, V);
  std::printf("[ct] mobile T3 tables in place vs dequantized: mean KL %.4f top-1 %.2f\n", kl, top1);
  EXPECT_LE(kl, 0.01);  // measured 0.0005, top-1 1.00
  std::filesystem::remove_all(dir);
}

INSTANTIATE_TEST_SUITE_P(Checkpoints, CtGolden,
                         ::testing::Values("t1_w4a16", "t2_w4a16", "t1_w2a16", "t1_fp8", "t2_fp8", "t1_mobile",
                                           "t1_fp8_kv", "t2_fp8_kvh", "t2_fp8_experts"));
INSTANTIATE_TEST_SUITE_P(Checkpoints, CtWeightOnlyGolden, ::testing::Values("t1_w4a16", "t2_w4a16", "t1_w2a16"));
INSTANTIATE_TEST_SUITE_P(Checkpoints, CtQuantizedActivationsGolden,
                         ::testing::Values("t1_fp8", "t2_fp8", "t1_mobile", "t1_fp8_kv", "t2_fp8_kvh",
                                           "t2_fp8_experts"));

}  // namespace
}  // namespace gemmad::model::gemma4
