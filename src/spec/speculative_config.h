// SpeculativeConfig: `--speculative-config` JSON as vLLM's SpeculativeConfig parses it (the
// fields, defaults and error messages of vllm/config/speculative.py that apply to a Gemma 4
// target): `method` ngram (prompt lookup) or mtp (a Gemma 4 assistant model), the number of
// drafted tokens, the n-gram window. Keys vLLM knows that change nothing on gemmad's CPU engine
// (CUDA graphs, padding, attention backends) are accepted and listed in `ignored_keys`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace gemmad::spec {

enum class SpecMethod : uint8_t {
  kNgram,       // prompt lookup over the sequence's own tokens
  kMtp,         // a multi-token-prediction drafter (Gemma 4: the *-assistant checkpoints)
  kDraftModel,  // `model` given without a method: decided by the draft model's model_type
};

struct SpeculativeConfig {
  SpecMethod method = SpecMethod::kNgram;
  std::string model;               // the draft model (mtp / draft_model); "" for ngram
  int32_t num_speculative_tokens = 0;  // > 0 after parsing (mtp defaults to 1: n_predict)
  int32_t prompt_lookup_min = 0;   // ngram only (>= 1, <= max)
  int32_t prompt_lookup_max = 0;
  std::optional<std::string> revision;      // of the draft model
  std::optional<std::string> quantization;  // of the draft model
  std::vector<std::string> ignored_keys;    // accepted, no effect on the CPU engine
};

// Parses the flag's JSON object. Errors are InvalidArgument with vLLM's messages where vLLM
// has one (a pydantic-style "1 validation error for SpeculativeConfig" line otherwise).
Result<SpeculativeConfig> ParseSpeculativeConfig(const nlohmann::json& j);

const char* SpecMethodName(SpecMethod m);

}  // namespace gemmad::spec
