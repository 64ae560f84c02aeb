// --speculative-config: vLLM's parsing, gemmad's methods.
#include "cli/speculative_flag.h"

#include <fmt/format.h>

#include "base/log.h"
#include "model/open_weight_source.h"

namespace gemmad::cli {

Result<spec::SpeculativeConfig> ParseSpeculativeFlag(const nlohmann::json& j) {
  auto c = spec::ParseSpeculativeConfig(j);
  if (!c.ok()) return c.status().WithPrefix("--speculative-config");
  for (const auto& key : c->ignored_keys) {
    GEMMAD_LOG_WARNING("--speculative-config: '{}' has no effect on the CPU engine", key);
  }
  return c;
}

std::shared_ptr<const spec::TokenDrafter> MakeTokenDrafter(const spec::SpeculativeConfig& c) {
  return std::make_shared<spec::NgramDrafter>(c.prompt_lookup_min, c.prompt_lookup_max);
}

Status ApplySpeculativeConfig(const spec::SpeculativeConfig& c, const io::HubSettings& hub, ModelEngineOptions* e) {
  e->num_speculative_tokens = c.num_speculative_tokens;
  if (c.method == spec::SpecMethod::kNgram) {
    e->drafter = MakeTokenDrafter(c);
    e->drafter_label = fmt::format("ngram (prompt_lookup_min={}, prompt_lookup_max={})", c.prompt_lookup_min,
                                   c.prompt_lookup_max);
    return OkStatus();
  }
  if (c.quantization) {
    return InvalidArgumentError(fmt::format("--speculative-config: quantization '{}' of the draft model is not "
                                            "supported (the assistant runs as stored)", *c.quantization));
  }
  auto dir = io::ResolveModelPath(c.model, c.revision.value_or("main"), hub);
  if (!dir.ok()) return dir.status().WithPrefix("--speculative-config: model");
  auto source = model::OpenWeightSource(*dir);
  if (!source.ok()) return source.status().WithPrefix("--speculative-config: model");
  e->assistant = std::move(*source);
  e->drafter_label = fmt::format("mtp with {}", c.model);
  return OkStatus();
}

}  // namespace gemmad::cli
