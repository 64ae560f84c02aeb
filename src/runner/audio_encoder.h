// The Gemma 4 audio encoder behind the runner: a MultimodalEncoder for audio items whose data is
// mm::AudioFeatures, running the checkpoint's audio tower and its projector (embed_audio;
// multimodal.md §4.2-§4.6) on the runner's execution context.
#pragma once

#include <memory>

#include "base/result.h"
#include "kernels/context.h"
#include "model/weight_source.h"
#include "runner/mm_encoder.h"

namespace gemmad::runner {

// The audio encoder of the checkpoint behind `source`: reads its config.json (audio_config and
// the text hidden size the projector maps to) and binds the tower's weights. NotFound when the
// checkpoint has no audio tower; tensor errors name the tensor. Never returns null.
// Encode: [ceil(F/4), Dt] for an item of F feature frames; InvalidArgument when the item is not
// audio, carries no AudioFeatures, has another mel count than the tower reads, or has a
// placeholder run of a length other than its soft-token count.
Result<std::unique_ptr<MultimodalEncoder>> CreateGemma4AudioEncoder(std::shared_ptr<const model::WeightSource> source,
                                                                    kernels::ExecContext exec);

}  // namespace gemmad::runner
