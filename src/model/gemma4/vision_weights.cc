// LoadVisionWeights (see vision_weights.h).
#include "model/gemma4/vision_weights.h"

#include <fmt/format.h>

#include <map>
#include <string>
#include <unordered_set>

#include "model/gemma4/tower_weight_binder.h"
#include "model/gemma4/vision_weight_spec.h"

namespace gemmad::model::gemma4 {
namespace {

// Every model.vision_tower.* tensor must be one the config uses.
Status CheckNoStrayTensors(const WeightSource& source, const VisionConfig& c,
                           const std::vector<WeightSpec>& spec) {
  std::unordered_set<std::string> known;
  for (const WeightSpec& w : spec) known.insert(w.name);
  for (const std::string& name : source.tensor_names()) {
    if (name.rfind(kVisionTowerPrefix, 0) != 0 || known.count(name) != 0) continue;
    std::string why = IsClipBound(name) && !c.use_clipped_linears ? " (vision_config.use_clipped_linears is false)"
                      : (name.find("std_") != std::string::npos && !c.standardize) ? " (vision_config.standardize is false)"
                                                                                      : "";
    return DataLossError(fmt::format("{}: unexpected tensor '{}': not part of the vision tower config.json describes{}",
                                     source.Info(name)->origin, name, why));
  }
  return OkStatus();
}

// input_proj -> 2·W, table[0] -> table_x − W·1 (see vision_weights.h).
Status PreparePatchEmbedding(TowerWeightBinder& b, const VisionConfig& c, const std::map<std::string, std::vector<int64_t>>& shapes,
                             VisionWeights* w) {
  const std::string t(kVisionTowerPrefix);
  TensorView proj, table;
  const std::string proj_name = t + "patch_embedder.input_proj.weight";
  const std::string table_name = t + "patch_embedder.position_embedding_table";
  GEMMAD_RETURN_IF_ERROR(b.Bind(proj_name, shapes.at(proj_name), &proj));
  GEMMAD_RETURN_IF_ERROR(b.Bind(table_name, shapes.at(table_name), &table));
  const int64_t dv = c.hidden_size, in = proj.shape[1], rows = c.position_embedding_size;
  const float* pw = proj.As<const float>();
  auto& p2 = b.Own(dv * in);
  std::vector<double> row_sum(static_cast<size_t>(dv), 0.0);
  for (int64_t o = 0; o < dv; ++o) {
    for (int64_t i = 0; i < in; ++i) {
      p2[o * in + i] = 2.0f * pw[o * in + i];  // exact
      row_sum[o] += pw[o * in + i];
    }
  }
  w->input_proj = b.OwnedView(p2, {dv, in});
  auto& px = b.Own(rows * dv);
  const float* tx = table.As<const float>();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < dv; ++o) px[r * dv + o] = static_cast<float>(tx[r * dv + o] - row_sum[o]);
  }
  w->pos_x = b.OwnedView(px, {rows, dv});
  w->pos_y = table;
  w->pos_y.data = table.As<float>() + rows * dv;
  w->pos_y.shape = {rows, dv};
  return OkStatus();
}

}  // namespace

Result<VisionWeights> LoadVisionWeights(const WeightSource& source, const VisionConfig& c, int64_t text_hidden) {
  if (text_hidden <= 0) return InvalidArgumentError(fmt::format("vision projector: text hidden size {}", text_hidden));
  const std::vector<WeightSpec> spec = VisionWeightSpec(c, text_hidden);
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const WeightSpec& s : spec) shapes[s.name] = s.shape;
  GEMMAD_RETURN_IF_ERROR(CheckNoStrayTensors(source, c, spec));
  VisionWeights w;
  TowerWeightBinder b(source, "vision", &w.owned);
  GEMMAD_RETURN_IF_ERROR(PreparePatchEmbedding(b, c, shapes, &w));
  const std::string t(kVisionTowerPrefix);
  w.layers.resize(static_cast<size_t>(c.num_hidden_layers));
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    const std::string p = fmt::format("{}encoder.layers.{}.", t, l);
    VisionLayerWeights& lw = w.layers[static_cast<size_t>(l)];
    for (auto [n, v] : {std::pair{"input_layernorm", &lw.input_norm}, {"post_attention_layernorm", &lw.post_attention_norm},
                        {"pre_feedforward_layernorm", &lw.pre_feedforward_norm},
                        {"post_feedforward_layernorm", &lw.post_feedforward_norm},
                        {"self_attn.q_norm", &lw.q_norm}, {"self_attn.k_norm", &lw.k_norm}}) {
      const std::string name = p + n + ".weight";
      GEMMAD_RETURN_IF_ERROR(b.Bind(name, shapes.at(name), v));
    }
    for (auto [n, lin] : {std::pair{"self_attn.q_proj", &lw.q}, {"self_attn.k_proj", &lw.k}, {"self_attn.v_proj", &lw.v},
                          {"self_attn.o_proj", &lw.o}, {"mlp.gate_proj", &lw.gate}, {"mlp.up_proj", &lw.up},
                          {"mlp.down_proj", &lw.down}}) {
      GEMMAD_RETURN_IF_ERROR(b.Linear(p + n, shapes, c.use_clipped_linears, lin));
    }
  }
  if (c.standardize) {
    TensorView bias, scale;
    GEMMAD_RETURN_IF_ERROR(b.Bind(t + "std_bias", {c.hidden_size}, &bias));
    GEMMAD_RETURN_IF_ERROR(b.Bind(t + "std_scale", {c.hidden_size}, &scale));
    auto& neg = b.Own(c.hidden_size);
    for (int64_t i = 0; i < c.hidden_size; ++i) neg[i] = -bias.As<const float>()[i];
    w.std_bias_neg = b.OwnedView(neg, {1, c.hidden_size});
    w.std_scale = scale;
    w.std_scale.shape = {1, c.hidden_size};
  }
  GEMMAD_RETURN_IF_ERROR(b.Bind(std::string(kVisionProjection), {text_hidden, c.hidden_size}, &w.projection));
  return w;
}

}  // namespace gemmad::model::gemma4
