// The Gemma 4 vision encoder behind the runner: a MultimodalEncoder for image and video items
// (a video frame is an image of the video's budget) whose data is mm::VisionPatches, running the
// checkpoint's VisionTower (model/gemma4/vision_tower.h) on the runner's execution context.
// Encode is called on the engine thread between steps, so it shares the model's thread pool.
#pragma once

#include <memory>

#include "base/result.h"
#include "kernels/context.h"
#include "model/gemma4/vision_tower.h"
#include "model/weight_source.h"
#include "runner/mm_encoder.h"

namespace gemmad::runner {

class VisionEncoder final : public MultimodalEncoder {
 public:
  VisionEncoder(std::unique_ptr<model::gemma4::VisionTower> tower, kernels::ExecContext exec);

  bool Supports(mm::Modality modality) const override;
  // [N, Dt]: the tower's soft-token embeddings. InvalidArgument when the item is not an image or
  // video frame, carries no VisionPatches, was preprocessed for another patch size or pooling
  // kernel, or has a placeholder run of a length other than the patches' soft-token count.
  Result<std::vector<float>> Encode(const mm::Item& item) override;

  const model::gemma4::VisionTower& tower() const { return *tower_; }

 private:
  std::unique_ptr<model::gemma4::VisionTower> tower_;
  kernels::ExecContext exec_;
};

// The vision encoder of the checkpoint behind `source`: reads its config.json (the vision_config
// and the text hidden size the projector maps to) and binds the tower's weights. NotFound when
// the checkpoint has no vision tower; tensor errors name the tensor. Never returns null.
Result<std::unique_ptr<MultimodalEncoder>> CreateGemma4VisionEncoder(std::shared_ptr<const model::WeightSource> source,
                                                                     kernels::ExecContext exec);

}  // namespace gemmad::runner
