// Builds the KV groups from the layer plan; donors follow the general rule of Config::kv_donor.
#include "model/gemma4/kv_plan.h"

#include "base/check.h"

namespace gemmad::model::gemma4 {

KvCacheSpec MakeKvCacheSpec(const Config& c, int64_t block_size, tensor::DType dtype) {
  KvCacheSpec spec;
  const int64_t L = c.num_hidden_layers;
  spec.layer_group.assign(static_cast<size_t>(L), -1);
  spec.layer_kv_source.assign(static_cast<size_t>(L), -1);
  int group_of_type[2] = {-1, -1};
  for (int64_t l = 0; l < L; ++l) {
    if (c.is_kv_shared(l)) continue;
    const int type = c.is_sliding(l) ? 0 : 1;
    if (group_of_type[type] < 0) {
      group_of_type[type] = -2;  // placeholder, numbered below so sliding comes first
    }
  }
  for (int type = 0; type < 2; ++type) {
    if (group_of_type[type] == -1) continue;
    KvGroupSpec g;
    const bool sliding = type == 0;
    g.kind = sliding ? KvGroupKind::kSliding : KvGroupKind::kFull;
    g.window = sliding ? c.sliding_window : 0;
    g.head_dim = sliding ? c.head_dim : c.global_head_dim;
    g.num_kv_heads = (!sliding && c.attention_k_eq_v) ? c.num_global_key_value_heads : c.num_key_value_heads;
    g.block_size = block_size;
    g.dtype = dtype;
    group_of_type[type] = static_cast<int>(spec.groups.size());
    spec.groups.push_back(g);
  }
  for (int64_t l = 0; l < L; ++l) {
    const int type = c.is_sliding(l) ? 0 : 1;
    const int64_t src = c.is_kv_shared(l) ? c.kv_donor(l) : l;
    GEMMAD_CHECK(src >= 0 && group_of_type[type] >= 0, "layer {} has no KV donor", l);
    spec.layer_kv_source[l] = src;
    spec.layer_group[l] = group_of_type[type];
    if (src == l) spec.groups[group_of_type[type]].layers.push_back(l);
  }
  return spec;
}

}  // namespace gemmad::model::gemma4
