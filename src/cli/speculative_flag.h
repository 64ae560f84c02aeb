// `--speculative-config` for `gemmad serve` and the offline benchmarks: parsed as vLLM parses it
// (spec/speculative_config.h), then checked against what gemmad implements (n-gram drafting; MTP
// with the Gemma 4 assistant models is refused with a one-line error until it lands), and turned
// into the runner's token drafter.
#pragma once

#include <memory>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cli/model_engine.h"
#include "io/hf_hub.h"
#include "spec/drafter.h"
#include "spec/speculative_config.h"

namespace gemmad::cli {

// Errors are InvalidArgument, prefixed "--speculative-config: ".
Result<spec::SpeculativeConfig> ParseSpeculativeFlag(const nlohmann::json& j);

// The drafter of an ngram config.
std::shared_ptr<const spec::TokenDrafter> MakeTokenDrafter(const spec::SpeculativeConfig& c);

// Sets the engine options for `c`: the n-gram drafter, or (mtp, draft_model) the draft model's
// checkpoint resolved like a served model (local directory or HF cache, `hub`), whose
// model_type must be gemma4_assistant (checked when the engine loads it).
Status ApplySpeculativeConfig(const spec::SpeculativeConfig& c, const io::HubSettings& hub, ModelEngineOptions* e);

}  // namespace gemmad::cli
