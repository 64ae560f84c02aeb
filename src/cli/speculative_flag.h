// `--speculative-config` for `gemmad serve` and the offline benchmarks: parsed as vLLM parses it
// (spec/speculative_config.h), then checked against what gemmad implements (n-gram drafting; MTP
// with the Gemma 4 assistant models is refused with a one-line error until it lands), and turned
// into the runner's token drafter.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "spec/drafter.h"
#include "spec/speculative_config.h"

namespace gemmad::cli {

// Errors are InvalidArgument, prefixed "--speculative-config: ".
Result<spec::SpeculativeConfig> ParseSpeculativeFlag(const nlohmann::json& j);

// The drafter of a config ParseSpeculativeFlag accepted.
std::shared_ptr<const spec::TokenDrafter> MakeTokenDrafter(const spec::SpeculativeConfig& c);

}  // namespace gemmad::cli
