// EncoderSet: several MultimodalEncoders behind one (the vision tower for images and video
// frames, the audio tower for clips); each item goes to the first encoder that supports its
// modality. What ModelRunner::Create receives when a checkpoint has more than one tower.
#pragma once

#include <memory>
#include <vector>

#include "runner/mm_encoder.h"

namespace gemmad::runner {

class EncoderSet final : public MultimodalEncoder {
 public:
  explicit EncoderSet(std::vector<std::unique_ptr<MultimodalEncoder>> encoders);

  bool Supports(mm::Modality modality) const override;
  // InvalidArgument when no encoder supports the item's modality.
  Result<std::vector<float>> Encode(const mm::Item& item) override;

 private:
  std::vector<std::unique_ptr<MultimodalEncoder>> encoders_;
};

// null when `encoders` is empty, the one encoder when there is one, else an EncoderSet.
std::unique_ptr<MultimodalEncoder> CombineEncoders(std::vector<std::unique_ptr<MultimodalEncoder>> encoders);

}  // namespace gemmad::runner
