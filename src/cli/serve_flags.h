// The `gemmad serve` flag table (vLLM's names), split by group into serve_flags_*.cc.
// It drives parsing, `gemmad serve --help` and the docs/api.md flags table.
#pragma once

#include <vector>

#include "cli/flag_help.h"
#include "cli/flag_spec.h"

namespace gemmad::cli {

FlagTable ServeFrontendFlags();  // HTTP server, OpenAI API, chat template, parsers, logging
FlagTable ServeModelFlags();     // model, tokenizer, dtype, context length, multimodal
FlagTable ServeEngineFlags();    // scheduler, KV cache, parallelism, speculative decoding
FlagTable ServeLimitFlags();     // request limits (gemmad's own: bounds checked before work starts)

std::vector<FlagGroup> ServeFlagGroups();
// All groups in one table (what the parser sees).
FlagTable ServeFlagTable();

}  // namespace gemmad::cli
