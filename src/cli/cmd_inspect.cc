// `gemmad inspect MODEL_DIR`: opens and validates a checkpoint exactly as serving would, then
// prints a JSON summary (architecture, layer plan, parameter counts, bytes, KV bytes per token per
// group). A bad checkpoint gives one line on stderr naming the file and the problem, exit code 2.
// `gemmad inspect FILE.gguf` validates a GGUF file and prints its header, metadata and tensor table
// (io/gguf_summary.h); GGUF models cannot be served yet.
#include <fmt/format.h>

#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/subcommand.h"
#include "io/gguf_file.h"
#include "io/gguf_summary.h"
#include "io/progress_bar.h"
#include "model/gemma4/checkpoint.h"
#include "model/gemma4/weight_spec.h"

namespace gemmad::cli {
namespace {

using model::gemma4::Checkpoint;
using model::gemma4::Config;
using nlohmann::json;

json LayerPlan(const Config& c) {
  json layers = json::array();
  for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
    json e = {{"layer", l},
              {"type", c.is_sliding(l) ? "sliding" : "full"},
              {"head_dim", c.layer_head_dim(l)},
              {"kv_heads", c.layer_num_kv_heads(l)},
              {"kv_from", c.is_kv_shared(l) ? c.kv_donor(l) : l},
              {"ffn", c.layer_intermediate_size(l)},
              {"k_eq_v", !c.is_sliding(l) && c.attention_k_eq_v}};
    if (c.enable_moe_block) e["experts"] = {{"num", c.num_experts}, {"top_k", c.top_k_experts}};
    layers.push_back(e);
  }
  return layers;
}

// KV groups: the KV-owning layers of each type; bytes per token for bf16 K and V.
// The KV cache `serve` makes by default: bf16 (2 bytes a value), or FP8 E4M3 (1) for a checkpoint
// with static FP8 KV scales (a compressed-tensors kv_cache_scheme).
json KvGroups(const Config& c, bool fp8) {
  const int64_t value_bytes = fp8 ? 1 : 2;
  json groups = json::array();
  int64_t total = 0;
  for (bool sliding : {true, false}) {
    std::vector<int64_t> owners;
    for (int64_t l = 0; l < c.num_hidden_layers; ++l) {
      if (c.is_sliding(l) == sliding && !c.is_kv_shared(l)) owners.push_back(l);
    }
    if (owners.empty()) continue;
    int64_t per_layer = 2 * c.layer_num_kv_heads(owners[0]) * c.layer_head_dim(owners[0]) * value_bytes;
    json g = {{"type", sliding ? "sliding" : "full"}, {"layers", owners},
              {"bytes_per_token_per_layer", per_layer}, {"bytes_per_token", per_layer * static_cast<int64_t>(owners.size())}};
    if (sliding) g["window"] = c.sliding_window;
    total += per_layer * static_cast<int64_t>(owners.size());
    groups.push_back(g);
  }
  return {{"dtype", fp8 ? "fp8_e4m3" : "bf16"}, {"checkpoint_scales", fp8}, {"groups", groups},
          {"bytes_per_token_all_groups", total}};
}

json Summary(const Checkpoint& ck) {
  const Config& c = ck.config();
  std::map<std::string, int64_t> dtypes;
  for (const auto& name : ck.source().tensor_names()) {
    if (!model::gemma4::IsNonTextTensor(name)) dtypes[ck.source().Info(name)->dtype_name]++;
  }
  json files = json::array();
  for (const auto& f : ck.source().files()) files.push_back(f);
  auto pc = model::gemma4::CountParams(c, /*include_unused=*/ck.stats().unused_text_bytes > 0);
  const auto& st = ck.stats();
  json out;
  out["model_dir"] = ck.dir();
  out["model_type"] = c.model_type;
  out["architectures"] = c.architectures;
  out["config_layout"] = c.family == model::gemma4::Family::kGemma3 ? "gemma3_text"
                         : c.per_layer_config_layout                 ? "per_layer_config"
                                                                     : "global_head_dim";
  out["tensor_prefix"] = ck.prefix();
  out["files"] = files;
  out["dtypes"] = dtypes;
  out["config"] = {{"vocab_size", c.vocab_size}, {"hidden_size", c.hidden_size},
                   {"num_hidden_layers", c.num_hidden_layers}, {"num_attention_heads", c.num_attention_heads},
                   {"sliding_window", c.sliding_window}, {"num_kv_shared_layers", c.num_kv_shared_layers},
                   {"hidden_size_per_layer_input", c.hidden_size_per_layer_input},
                   {"enable_moe_block", c.enable_moe_block}, {"attention_k_eq_v", c.attention_k_eq_v},
                   {"final_logit_softcapping", c.final_logit_softcapping},
                   {"max_position_embeddings", c.max_position_embeddings}, {"eos_token_ids", c.eos_token_ids}};
  out["layers"] = LayerPlan(c);
  out["params"] = {{"used", pc.used}, {"unused_present", pc.unused}, {"embedding", pc.embedding},
                   {"per_layer_embedding", pc.per_layer_embedding},
                   {"used_without_per_layer_embedding", pc.used - pc.per_layer_embedding}};
  out["bytes"] = {{"text", st.text_bytes}, {"text_unused", st.unused_text_bytes}, {"skipped_non_text", st.skipped_bytes}};
  out["tensors"] = {{"text", st.num_text_tensors}, {"skipped_non_text", st.num_skipped_tensors}};
  out["kv_cache"] = KvGroups(c, ck.source().kv_cache_scales().has_value());
  const auto& g = ck.generation_config();
  out["generation_config"] = {{"present", g.from_file}, {"eos_token_ids", g.eos_token_ids}};
  if (g.temperature) out["generation_config"]["temperature"] = *g.temperature;
  if (g.top_k) out["generation_config"]["top_k"] = *g.top_k;
  if (g.top_p) out["generation_config"]["top_p"] = *g.top_p;
  return out;
}

int Run(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    bool help = args.size() == 1 && (args[0] == "--help" || args[0] == "-h");
    std::fprintf(help ? stdout : stderr, "usage: gemmad inspect MODEL_DIR|FILE.gguf\n");
    return help ? 0 : 2;
  }
  const std::string& path = args[0];
  if (path.size() > 5 && path.compare(path.size() - 5, 5, ".gguf") == 0) {
    auto gguf = io::GgufFile::Open(path);
    if (!gguf.ok()) {
      std::fprintf(stderr, "gemmad inspect: %s\n", gguf.status().message().c_str());
      return 2;
    }
    std::printf("%s\n", io::GgufSummaryJson(gguf->header(), path).c_str());
    return 0;
  }
  model::gemma4::CheckpointOptions options;
  options.show_progress = io::ProgressBar::StderrIsTerminal();
  auto ck = Checkpoint::Open(path, options);
  if (!ck.ok()) {
    std::fprintf(stderr, "gemmad inspect: %s\n", ck.status().message().c_str());
    return 2;
  }
  std::printf("%s\n", Summary(*ck).dump(2).c_str());
  return 0;
}

}  // namespace

extern const Subcommand kCmd_inspect;
const Subcommand kCmd_inspect{"inspect", "validate a checkpoint and print a JSON summary of it", &Run};
}  // namespace gemmad::cli
