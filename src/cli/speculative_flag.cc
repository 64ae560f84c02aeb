// --speculative-config: vLLM's parsing, gemmad's methods.
#include "cli/speculative_flag.h"

#include <fmt/format.h>

#include "base/log.h"

namespace gemmad::cli {

Result<spec::SpeculativeConfig> ParseSpeculativeFlag(const nlohmann::json& j) {
  auto c = spec::ParseSpeculativeConfig(j);
  if (!c.ok()) return c.status().WithPrefix("--speculative-config");
  if (c->method != spec::SpecMethod::kNgram) {
    return InvalidArgumentError(fmt::format(
        "--speculative-config: method '{}' with model '{}': drafting with a model (the Gemma 4 MTP assistants) is "
        "not implemented yet; method 'ngram' is",
        spec::SpecMethodName(c->method), c->model));
  }
  for (const auto& key : c->ignored_keys) {
    GEMMAD_LOG_WARNING("--speculative-config: '{}' has no effect on the CPU engine", key);
  }
  return c;
}

std::shared_ptr<const spec::TokenDrafter> MakeTokenDrafter(const spec::SpeculativeConfig& c) {
  return std::make_shared<spec::NgramDrafter>(c.prompt_lookup_min, c.prompt_lookup_max);
}

}  // namespace gemmad::cli
