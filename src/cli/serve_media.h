// MakeMediaServing: the chat handler's media settings from the serve flags and what the loaded
// model encodes (--limit-mm-per-prompt, --language-model-only, --mm-processor-kwargs, media
// sources and bounds, the Gemma 4 vision and audio facts).
#pragma once

#include "api/media_serving.h"
#include "base/result.h"
#include "cli/model_engine.h"
#include "cli/serve_options.h"
#include "engine/engine_client.h"

namespace gemmad::cli {

// Errors (startup, exit 2): an invalid --mm-processor-kwargs max_soft_tokens.
Result<api::MediaServing> MakeMediaServing(const ServeOptions& o, const engine::EngineLimits& limits,
                                           const VisionFacts& vision, const AudioFacts& audio);

}  // namespace gemmad::cli
